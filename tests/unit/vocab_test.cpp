#include <catch2/catch.hpp>

#include "corpus/vocab.h"

namespace {

kb::SettingDef def_of(const std::string& type) {
  kb::SettingDef d;
  d.type = type;
  if (type == "enum") {
    d.values = {{"pd", {"disaggregated"}, "", {}, {}}, {"none", {}, "", {}, {}}};
  }
  return d;
}

}  // namespace

TEST_CASE("normalize_value: the normalised value, or why and where it does not fit", "[vocab]") {
  auto yes = kb::normalize_value(def_of("bool"), " Yes ");
  REQUIRE(yes.value);
  CHECK(*yes.value == "true");
  CHECK(yes.error.message.empty());
  CHECK(*kb::normalize_value(def_of("integer"), "04").value == "4");
  CHECK(*kb::normalize_value(def_of("enum"), "Disaggregated").value == "pd");
  CHECK(*kb::normalize_value(def_of("version"), "v0.26.0").value == "0.26.0");

  auto maybe = kb::normalize_value(def_of("bool"), "  maybe");
  CHECK_FALSE(maybe.value);
  CHECK(maybe.error.message == "'maybe' is not a boolean (true/false, yes/no, on/off, 1/0)");
  CHECK(maybe.error.offset == 2);
  auto other = kb::normalize_value(def_of("enum"), "shared");
  CHECK_FALSE(other.value);
  CHECK(other.error.message == "'shared' is not one of pd, none");
  auto version = kb::normalize_value(def_of("version"), " 0.2x8");
  CHECK_FALSE(version.value);
  CHECK(version.error.message == kb::Version::parse_or_error("0.2x8").error.message);
  CHECK(version.error.offset == 1 + kb::Version::parse_or_error("0.2x8").error.offset);
  auto empty = kb::normalize_value(def_of("string"), "   ");
  CHECK_FALSE(empty.value);
  CHECK(empty.error.message == "empty value");
}
