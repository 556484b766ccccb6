#include <catch2/catch.hpp>

#include "core/similarity.h"

using kb::did_you_mean;
using kb::edit_similarity;
using kb::jaro_winkler;
using kb::name_similarity;
using kb::osa_distance;

TEST_CASE("osa_distance counts substitutions, indels and adjacent swaps as one edit") {
  CHECK(osa_distance("", "") == 0);
  CHECK(osa_distance("", "abc") == 3);
  CHECK(osa_distance("nixl", "nixl") == 0);
  CHECK(osa_distance("sglnag", "sglang") == 1);
  CHECK(osa_distance("nxil", "nixl") == 1);
  CHECK(osa_distance("mooncache", "mooncake") == 2);
  CHECK(osa_distance("kvcache", "lmcache") == 2);
  CHECK(osa_distance("vllm", "nixl") == 4);
  // Optimal string alignment never edits a swapped pair again: "ca" -> "abc" is 3, not 2.
  CHECK(osa_distance("ca", "abc") == 3);
}

TEST_CASE("edit_similarity normalises by the longer string") {
  CHECK(edit_similarity("", "") == 1.0);
  CHECK(edit_similarity("nilx", "nixl") == Approx(0.75));
  CHECK(edit_similarity("mooncache", "mooncake") == Approx(1.0 - 2.0 / 9.0));
}

TEST_CASE("jaro_winkler matches the textbook values") {
  CHECK(jaro_winkler("martha", "marhta") == Approx(0.9611).epsilon(0.0001));
  CHECK(jaro_winkler("dixon", "dicksonx") == Approx(0.8133).epsilon(0.0001));
  CHECK(jaro_winkler("abc", "xyz") == 0.0);
  CHECK(jaro_winkler("", "abc") == 0.0);
  CHECK(jaro_winkler("same", "same") == 1.0);
}

TEST_CASE("name_similarity is the mean of edit similarity and Jaro-Winkler") {
  CHECK(name_similarity("mooncache", "mooncake") == Approx(0.854).margin(0.001));
  CHECK(name_similarity("nkxl", "nixl") == Approx(0.80).margin(1e-9));
  CHECK(name_similarity("rixl", "nixl") == Approx(0.792).margin(0.001));
  CHECK(name_similarity("sglnag", "sglang") == Approx(0.897).margin(0.001));
}

TEST_CASE("did_you_mean suggests one close field name or nothing") {
  const std::vector<std::string> fields = {"severity", "status", "symptom", "title", "kind"};
  CHECK(did_you_mean("severty", fields) == std::optional<std::string>("severity"));
  CHECK(did_you_mean("titel", fields) == std::optional<std::string>("title"));
  CHECK(did_you_mean("Status", fields) == std::optional<std::string>("status"));
  CHECK_FALSE(did_you_mean("colour", fields).has_value());
  CHECK_FALSE(did_you_mean("x", fields).has_value());
  CHECK_FALSE(did_you_mean("abc", {}).has_value());
  // One edit from both: no guess.
  CHECK_FALSE(did_you_mean("cat", {"bat", "hat"}).has_value());
}
