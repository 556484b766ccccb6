#pragma once

// Shared between evidence.cpp (deriving summaries) and evidence_claims.cpp (checking
// gotchas against them).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kb/evidence.h"
#include "kb/model.h"

namespace kb {

namespace evidence_detail {

/// What EvidenceIndex::build derives.
struct IndexData {
  std::unordered_map<std::string, EvidenceSummary> by_gotcha;
  /// oracle id -> result ids, oldest first
  std::unordered_map<std::string, std::vector<std::string>> by_oracle;
};

/// The 1-based position of byte `offset` in `text`; columns count UTF-8 code points.
Pos offset_to_pos(std::string_view text, std::size_t offset);

/// Byte offset of the line holding a top-level `key:` in a record's source.
std::optional<std::size_t> top_level_key_offset(std::string_view source, std::string_view key);

/// Position of a top-level `key:` in a record's source, or {0, 0}.
Pos top_level_key_pos(std::string_view source, std::string_view key);

/// Byte offset of `phrase` in `text`, case-insensitively, where a space in `phrase`
/// matches any run of whitespace (line breaks and YAML indentation included) and `'`
/// matches a typographic apostrophe too.
std::optional<std::size_t> find_phrase(std::string_view text, std::string_view phrase);

/// date_to_days(`today`) for the claim checks; throws Error{invalid_argument} when it is
/// not a YYYY-MM-DD date.
std::int64_t claims_day(const std::string& today);

}  // namespace evidence_detail

struct EvidenceIndex::Impl : evidence_detail::IndexData {};
}  // namespace kb
