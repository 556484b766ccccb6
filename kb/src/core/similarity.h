#pragma once

// String similarity for reference repair and did-you-mean suggestions. All functions work
// on bytes; callers pass normalised (lower-case ASCII) names.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/suggest.h"  // did_you_mean

namespace kb {

/// Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent
/// transpositions each cost 1 (`sglnag` -> `sglang` is 1, `mooncache` -> `mooncake` is 2).
std::size_t osa_distance(std::string_view a, std::string_view b);

/// 1 - osa_distance / max(|a|, |b|); 1 for two empty strings.
double edit_similarity(std::string_view a, std::string_view b);

/// Jaro-Winkler similarity (prefix scale 0.1, prefix up to 4 characters).
double jaro_winkler(std::string_view a, std::string_view b);

/// The score candidates are ranked and thresholded by: the mean of edit_similarity and
/// jaro_winkler. Edit similarity alone punishes short names (one typo in `nixl` is 0.75)
/// and Jaro-Winkler alone over-rewards shared prefixes (`lmcache-vllm` vs `lmcache` is
/// 0.92); the mean keeps one- and two-typo misspellings of real names above 0.80 and
/// different names with a common prefix below it (see the measurement in
/// tests/unit/resolver_test.cpp).
double name_similarity(std::string_view a, std::string_view b);

}  // namespace kb
