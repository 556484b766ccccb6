#pragma once

// Small text helpers shared by the loader, the corpus and the writers.

#include <cstdint>
#include <string>
#include <string_view>

#include "kb/model.h"
#include "kb/text.h"

namespace kb::text {

/// 1-based line and column (in bytes) of `offset` in `s`.
Pos offset_to_pos(std::string_view s, std::size_t offset);
/// Whether `s` is a real calendar date written YYYY-MM-DD.
bool valid_date(std::string_view s);
/// FNV-1a 64-bit, as 16 hex digits.
std::string fnv1a_hex(std::string_view s);
/// Folds `s` into a running FNV-1a 64-bit state.
std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ull);
/// 16 hex digits of `v`.
std::string hex64(std::uint64_t v);
/// Today's date in UTC, YYYY-MM-DD.
std::string today_utc();

}  // namespace kb::text
