#include <catch2/catch.hpp>

#include <algorithm>

#include "kb/model.h"
#include "kb/schema.h"

TEST_CASE("gotcha severities and statuses round-trip through their names", "[model]") {
  for (auto s : kb::kAllGotchaSeverities) CHECK(kb::parse_gotcha_severity(kb::to_string(s)) == s);
  for (auto s : kb::kAllGotchaStatuses) CHECK(kb::parse_gotcha_status(kb::to_string(s)) == s);
  CHECK(kb::to_string(kb::GotchaSeverity::blocker) == "blocker");
  CHECK(kb::to_string(kb::GotchaStatus::withdrawn) == "withdrawn");
  CHECK(kb::parse_gotcha_severity("Blocker") == std::nullopt);
  CHECK(kb::parse_gotcha_status("closed") == std::nullopt);
  CHECK(kb::severity_rank("blocker") == 0);
  CHECK(kb::severity_rank("info") == 3);
  CHECK(kb::severity_rank("blockr") == 4);
}

TEST_CASE("the schema table's severity and status values are the model's", "[model][schema]") {
  const auto* severity = kb::schema::find_field(kb::schema::record_struct(kb::Kind::gotcha), "severity");
  const auto* status = kb::schema::find_field(kb::schema::record_struct(kb::Kind::gotcha), "status");
  REQUIRE(severity != nullptr);
  REQUIRE(status != nullptr);
  CHECK(std::equal(severity->values.begin(), severity->values.end(),
                   std::begin(kb::kSeverityNames), std::end(kb::kSeverityNames)));
  CHECK(std::equal(status->values.begin(), status->values.end(), std::begin(kb::kStatusNames),
                   std::end(kb::kStatusNames)));
}
