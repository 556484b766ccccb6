#pragma once

// What a Snapshot precomputes at construction so that listing, faceting, paging and
// reverse lookups cost one pass (or one hash lookup) per request. Private to kb_core.

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "kb/snapshot.h"

namespace kb {

/// A gotcha with the values its filters and facets read, computed once.
struct GotchaRow {
  const Record* record = nullptr;
  std::vector<std::string> engines;  ///< slugs of the resolved `affects` engines, sorted, unique
  std::string reproduced;            ///< evidence state: reproduced | not-reproduced | no-evidence
  bool withdrawn = false;
};

/// Number of sort orders (kGotchaSorts).
inline constexpr std::size_t kSortCount = std::size(kGotchaSorts);

struct SnapshotData {
  std::vector<GotchaRow> rows;  ///< in corpus (id) order
  /// Per sort order: row indices in that order, and each row's sort key (indexed by row).
  std::array<std::vector<std::uint32_t>, kSortCount> order;
  std::array<std::vector<std::string>, kSortCount> keys;
  std::unordered_map<std::string, std::vector<const Record*>> referencing;
  std::unordered_map<std::string, ChangeStamp> stamps;  ///< by id, tombstones included
  std::vector<ChangeStamp> by_time;                     ///< by changed_at_ms, then id
  std::int64_t loaded_ms = 0;
  std::array<std::size_t, 3> severity_counts{};  ///< error, warning, note
};

struct Snapshot::Impl : SnapshotData {};

/// Fills rows, order and keys of `data` from the gotchas of `corpus`.
void index_gotchas(SnapshotData& data, const Corpus& corpus, const EvidenceIndex& evidence);

/// The keyset pagination token after the row whose sort key is `key`, for sort `sort`.
std::string encode_page_token(std::string_view sort, std::string_view key);

/// The sort key inside `token`; throws Error(invalid_argument) when it was not made by
/// encode_page_token for this sort.
std::string decode_page_token(std::string_view token, std::string_view sort);

}  // namespace kb
