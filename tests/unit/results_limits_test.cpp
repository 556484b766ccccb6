// Hostile reports: depth and size are bounded and reported, never obeyed (no recursion
// per nesting level, no unbounded memory).

#include <catch2/catch.hpp>

#include <string>

#include "kb/results_import.h"

namespace {

// `depth` nested <testsuite> elements around one passing case, one element per line.
std::string nested_suites(int depth) {
  std::string xml = "<?xml version=\"1.0\"?>\n";
  for (int i = 0; i < depth; ++i) xml += "<testsuite name=\"s" + std::to_string(i) + "\">\n";
  xml += "<testcase name=\"t\"/>\n";
  for (int i = 0; i < depth; ++i) xml += "</testsuite>\n";
  return xml;
}

}  // namespace

TEST_CASE("JUnit: 10,000 nested suites are refused at the depth limit, no crash",
          "[results_import][limits]") {
  // Before the fix the reader recursed once per <testsuite> and died of a stack overflow.
  const std::string xml = nested_suites(10000);
  REQUIRE(xml.size() > 200 * 1024);
  auto r = kb::parse_junit(xml, "deep.xml");
  CHECK_FALSE(r.counts);
  REQUIRE(r.diagnostics.size() == 1);
  const auto& d = r.diagnostics.front();
  CHECK(d.code == "limits.depth");
  CHECK(d.severity == kb::Severity::error);
  CHECK(d.file == "deep.xml");
  CHECK(d.line == 66);  // the 65th <testsuite>, after the XML declaration
  CHECK(d.column == 1);
  CHECK(d.message == "elements nested deeper than 64 levels");
}

TEST_CASE("JUnit: a million nested elements parse and free without recursion",
          "[results_import][limits]") {
  std::string xml;
  for (int i = 0; i < 1000000; ++i) xml += "<a>";
  for (int i = 0; i < 1000000; ++i) xml += "</a>";
  auto r = kb::parse_report(xml, "deeper.xml");
  CHECK(r.format == kb::ReportFormat::junit);
  CHECK_FALSE(r.counts);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics.front().code == "limits.depth");
  CHECK(r.diagnostics.front().column == 193);  // the 65th <a>: 64 * 3 + 1
}

TEST_CASE("JUnit: nesting up to the limit still counts, with per-suite cross-checks",
          "[results_import][limits]") {
  std::string xml = nested_suites(63);  // 63 suites + the case = 64 elements deep
  auto r = kb::parse_junit(xml, "ok.xml");
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 1);
  CHECK(r.diagnostics.empty());

  // Suites count in document order; each suite is held to the cases under it.
  const std::string mixed =
      "<testsuites tests=\"3\">\n"
      "<testsuite name=\"a\" tests=\"1\"><testcase name=\"x\"><failure/></testcase></testsuite>\n"
      "<testsuite name=\"b\" tests=\"5\">\n"
      "  <testsuite name=\"c\"><testcase name=\"y\"/></testsuite>\n"
      "  <testcase name=\"z\"><error/></testcase>\n"
      "</testsuite>\n"
      "</testsuites>\n";
  auto m = kb::parse_junit(mixed, "mixed.xml");
  REQUIRE(m.counts);
  CHECK(m.counts->passed == 1);
  CHECK(m.counts->failed == 1);
  CHECK(m.counts->errors == 1);
  CHECK(m.counts->failing == std::vector<std::string>{"x", "z"});
  REQUIRE(m.diagnostics.size() == 1);
  CHECK(m.diagnostics[0].code == "results.count-mismatch");
  CHECK(m.diagnostics[0].line == 3);
  CHECK(m.diagnostics[0].message ==
        "testsuite 'b' says tests=5 but its test cases give tests=2; using the test cases");
}

TEST_CASE("reports larger than the size limit are refused before parsing",
          "[results_import][limits]") {
  kb::ReportLimits limits;
  limits.max_bytes = 64;
  const std::string xml = nested_suites(3);
  REQUIRE(xml.size() > 64);
  auto r = kb::parse_report(xml, "big.xml", kb::ReportFormat::detect, limits);
  CHECK(r.format == kb::ReportFormat::junit);
  CHECK_FALSE(r.counts);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "limits.file-size");
  CHECK(r.diagnostics[0].message == "the report is larger than the limit of 64 bytes");

  const std::string json = R"({"passed": 1, "failed": 0, "errors": 0, "skipped": 0, "x": 12345})";
  auto j = kb::parse_report(json, "big.json", kb::ReportFormat::detect, limits);
  CHECK(j.format == kb::ReportFormat::json);
  CHECK_FALSE(j.counts);
  REQUIRE(j.diagnostics.size() == 1);
  CHECK(j.diagnostics[0].code == "limits.file-size");
  CHECK(kb::ReportLimits{}.max_bytes == 32u << 20);
}

TEST_CASE("JSON summaries nested past the depth limit are refused", "[results_import][limits]") {
  std::string json = "{\"passed\": 1, \"x\": ";
  for (int i = 0; i < 10000; ++i) json += "[";
  for (int i = 0; i < 10000; ++i) json += "]";
  json += "}";
  auto r = kb::parse_report(json, "deep.json");
  CHECK_FALSE(r.counts);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "limits.depth");
}
