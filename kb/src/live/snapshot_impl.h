#pragma once

// What a Snapshot precomputes so that listing, faceting, paging and reverse lookups cost
// one pass (or one hash lookup) per request. Records are named by their index in
// Corpus::records(), so a part that did not change between two snapshots is shared
// through its shared_ptr instead of rebuilt. Private to kb_core.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kb/check.h"
#include "kb/snapshot.h"
#include "kb/store.h"
#include "kb/str.h"

namespace kb {

/// A gotcha with the values its filters and facets read, computed once.
struct GotchaRow {
  std::uint32_t index = 0;  ///< in Corpus::records()
  /// Slugs of the resolved `affects` engines, sorted, unique, each followed by '\n'
  /// (slugs have none): "lmcache\nvllm\n" is inline, where a vector of strings took
  /// ~100 bytes a gotcha more. Read with for_each_engine().
  Str engines;
  Reproduction reproduced = Reproduction::no_evidence;
  bool withdrawn = false;
};

/// Calls `fn(slug)` for each engine slug of `row`, in order.
template <class Fn>
void for_each_engine(const GotchaRow& row, Fn&& fn) {
  std::string_view rest = row.engines;
  for (auto end = rest.find('\n'); end != std::string_view::npos; end = rest.find('\n')) {
    fn(rest.substr(0, end));
    rest.remove_prefix(end + 1);
  }
}

/// Number of sort orders (kGotchaSorts).
inline constexpr std::size_t kSortCount = std::size(kGotchaSorts);

/// Per sort order: row positions in that order. Sort keys are not kept (three strings per
/// gotcha): a page token's place is found by binary search, computing keys as it goes.
struct SortIndex {
  std::array<std::vector<std::uint32_t>, kSortCount> order;
};

/// Target id -> indices of the records whose references name it, ascending (= by id).
using ReferenceMap = std::unordered_map<std::string, std::vector<std::uint32_t>>;

/// Every diagnostic of a snapshot, its lint's and the deferred claim checks', and the date
/// the claims were checked for. Each claim is held once, here, with the record it belongs
/// to: a later snapshot takes an unchanged record's claims from this list instead of
/// checking them again (at 100k records, with many verifications stale, a second copy
/// per record was ~20 MiB).
struct RecordClaims {
  /// `owner` of a diagnostic that is the lint's, not a claim check's.
  static constexpr std::uint32_t kLint = UINT32_MAX;
  std::string today;
  int stale_after_days = 0;
  DiagnosticList all;                ///< sorted by file, line, column, code
  std::vector<std::uint32_t> owner;  ///< by position in `all`: its record's index, or kLint
};

struct SnapshotData {
  std::shared_ptr<const std::vector<GotchaRow>> rows;  ///< in corpus (id) order
  std::shared_ptr<const SortIndex> sorts;
  std::shared_ptr<const ReferenceMap> referencing;
  std::vector<std::int64_t> stamps;                            ///< change time per record index
  std::shared_ptr<const std::vector<ChangeStamp>> tombstones;  ///< by time, then id
  std::int64_t loaded_ms = 0;
  std::string kb_date;  ///< knowledge_base_date() of the corpus, patched after small changes
  std::once_flag synonyms_once;  ///< search's synonyms, made at the first search
  SearchSynonyms synonyms;

  std::once_flag claims_once;                  ///< deferred claim checks, merged into `claims`
  std::shared_ptr<const RecordClaims> claims;  ///< every diagnostic, once they are checked
  std::atomic<bool> claims_ready{false};
  /// The previous snapshot's claims and its corpus (kept alive for them), when they can
  /// stand for every record that did not change; dropped once `claims` is built.
  std::shared_ptr<const RecordClaims> claims_base;
  std::shared_ptr<const Corpus> claims_base_corpus;
  std::once_flag checks_once;
  std::unique_ptr<const CheckIndex> checks;
  /// Set once `checks` is built, for the next snapshot to build on.
  std::atomic<const CheckIndex*> checks_ready{nullptr};
  /// The previous snapshot's check index and its corpus (kept alive for it), until
  /// `checks` is built from them.
  std::optional<CheckIndex> checks_base;
  std::shared_ptr<const Corpus> checks_base_corpus;
};

struct Snapshot::Impl : SnapshotData {};

/// Fills rows, sorts, referencing, stamps and tombstones of `data` for `corpus`, sharing
/// or patching what `previous` (of `previous_corpus`) already holds when that is sound.
void build_snapshot_data(SnapshotData& data, const Corpus& corpus, const EvidenceIndex& evidence,
                         const SnapshotData* previous, const Corpus* previous_corpus);

/// Whether `next` derives exactly the evidence `prev` does, so a reload can keep the
/// previous EvidenceIndex: the same ids and names, no result or oracle changed, and every
/// changed gotcha declares the same oracles.
bool same_evidence(const Corpus& prev, const Corpus& next);

/// The sort key of record `r` in sort order `sort` (an index into kGotchaSorts).
std::string sort_key(std::size_t sort, const Record& r);

/// The keyset pagination token after the row whose sort key is `key`, for sort `sort`.
std::string encode_page_token(std::string_view sort, std::string_view key);

/// The sort key inside `token`; throws Error(invalid_argument) when it was not made by
/// encode_page_token for this sort.
std::string decode_page_token(std::string_view token, std::string_view sort);

}  // namespace kb
