#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

const std::string kJunit = std::string(KB_TEST_DATA) + "/junit/";

// A copy of the small fixture tree: one gotcha without evidence, its engines and oracle.
fs::path fixture_tree(const fs::path& dir) {
  fs::path out = dir / "records";
  fs::copy(kJunit + "records", out, fs::copy_options::recursive);
  return out;
}

std::string import_args(const fs::path& records, const std::string& report) {
  return "results import '" + kJunit + report +
         "' --oracle monolithic-equivalence --subject "
         "'vllm@0.26.0, lmcache' --config kv_transfer=pd,connector=lmcache --evidence-for "
         "lmcache-pd-diverges --date 2026-09-30 --source vllm-project/vllm#52617 --records '" +
         records.string() + "'";
}

}  // namespace

TEST_CASE("an imported JUnit report lints clean and reproduces the gotcha", "[cli][results]") {
  auto dir = scratch("results_import");
  auto records = fixture_tree(dir);
  const std::string show =
      "show gotchas/lmcache-pd-diverges --format json --today 2026-10-05 --records '" +
      records.string() + "'";

  auto before = kb(dir, show);
  REQUIRE(before.code == 0);
  CHECK(json::parse(before.out)["evidence"]["state"] == "no-evidence");

  auto imported = kb(dir, import_args(records, "pytest-mixed.xml"));
  INFO(imported.err);
  REQUIRE(imported.code == 0);
  const fs::path written =
      records / "results" / "monolithic-equivalence-vllm-0-26-0-lmcache-2026-09-30.yaml";
  REQUIRE(fs::exists(written));
  CHECK(imported.out ==
        "wrote " + written.generic_string() +
            ": 2 passed, 2 failed, 1 error, 1 skipped\n"
            "  gotchas/lmcache-pd-diverges: no-evidence -> reproduced (reproduced: 2/4 failed in 1 "
            "run, 1 error)\n");
  CHECK(slurp(written).find("source: {type: issue, repo: vllm-project/vllm, number: 52617}\n") !=
        std::string::npos);

  auto lint = kb(dir, "lint --format json --today 2026-10-05 --records '" + records.string() + "'");
  INFO(lint.out);
  CHECK(lint.code == 0);
  auto report = json::parse(lint.out);
  CHECK(report["records"] == 5);
  CHECK(report["errors"] == 0);
  CHECK(report["warnings"] == 0);

  auto after = kb(dir, show);
  REQUIRE(after.code == 0);
  auto evidence = json::parse(after.out)["evidence"];
  CHECK(evidence["state"] == "reproduced");
  CHECK(evidence["failed"] == 2);
  REQUIRE(evidence["groups"].size() == 1);
  CHECK(evidence["groups"][0]["summary"] ==
        "vllm 0.26.0 + lmcache: 2/4 failed in 1 run, 1 error, 1 skipped");
  CHECK(evidence["groups"][0]["config"] == json{{"connector", "lmcache"}, {"kv_transfer", "pd"}});

  // The same run again would count twice: refused, and the first file is untouched.
  const std::string first = slurp(written);
  auto again = kb(dir, import_args(records, "summary.json"));
  CHECK(again.code == 1);
  CHECK(again.err.find("already exists; pass --id to name this run") != std::string::npos);
  CHECK(slurp(written) == first);

  auto second = kb(dir, import_args(records, "summary.json") + " --id run-2 --format json");
  INFO(second.err);
  REQUIRE(second.code == 0);
  auto out = json::parse(second.out);
  CHECK(out["id"] == "results/run-2");
  CHECK(out["format"] == "json");
  CHECK(out["passed"] == 3);
  CHECK(out["gotchas"][0] == json{{"id", "gotchas/lmcache-pd-diverges"},
                                  {"before", "reproduced"},
                                  {"after", "reproduced"},
                                  {"summary", "reproduced: 3/8 failed in 2 runs, 1 error"}});
  fs::remove_all(dir);
}

TEST_CASE("unusable reports and unknown names write nothing", "[cli][results]") {
  auto dir = scratch("results_errors");
  auto records = fixture_tree(dir);

  auto malformed = kb(dir, import_args(records, "malformed.xml"));
  CHECK(malformed.code == 2);
  CHECK(malformed.err.find("malformed.xml:5:5: error[results.malformed]: malformed XML: "
                           "Start-end tags mismatch") != std::string::npos);

  auto empty = kb(dir, import_args(records, "empty.xml"));
  CHECK(empty.code == 2);
  CHECK(empty.err.find("error[results.empty]") != std::string::npos);

  auto missing = kb(dir, import_args(records, "no-such-report.xml"));
  CHECK(missing.code == 2);
  CHECK(missing.err.find("cannot read") != std::string::npos);

  auto typo = kb(dir, "results import '" + kJunit +
                          "summary.json' --oracle monolithic-equivalense "
                          "--subject vllm --records '" +
                          records.string() + "'");
  CHECK(typo.code == 2);
  CHECK(typo.err.find("oracle: no oracle 'monolithic-equivalense' in " + records.string() +
                      " (did you mean oracles/monolithic-equivalence?)") != std::string::npos);

  auto bad_subject =
      kb(dir, "results import '" + kJunit +
                  "summary.json' --oracle "
                  "monolithic-equivalence --subject 'vllm@not a version' --records '" +
                  records.string() + "'");
  CHECK(bad_subject.code == 2);

  auto no_oracle = kb(dir, "results import '" + kJunit + "summary.json' --subject vllm");
  CHECK(no_oracle.code == 2);

  CHECK_FALSE(fs::exists(records / "results"));
  fs::remove_all(dir);
}

TEST_CASE("a dry run prints the record and writes nothing", "[cli][results]") {
  auto dir = scratch("results_dry_run");
  auto records = fixture_tree(dir);
  auto r = kb(dir, import_args(records, "cases.json") + " --dry-run");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("id: results/monolithic-equivalence-vllm-0-26-0-lmcache-2026-09-30\n", 0) == 0);
  CHECK(r.out.find("\nfailed: 2\nerrors: 1\n") != std::string::npos);
  CHECK_FALSE(fs::exists(records / "results"));
  fs::remove_all(dir);
}

TEST_CASE("kb show carries the shipped seed's evidence summary", "[cli][results]") {
  auto dir = scratch("results_show_seed");
  auto r = kb(dir,
              "show gotchas/pd-cache-hit-silently-differs-from-cold-run --format json "
              "--today 2026-10-05 --records '" +
                  std::string(KB_SOURCE_DIR) + "/records'");
  REQUIRE(r.code == 0);
  auto evidence = json::parse(r.out)["evidence"];
  CHECK(evidence["state"] == "reproduced");
  json mono;
  for (const auto& o : evidence["by_oracle"]) {
    if (o["oracle"] == "oracles/monolithic-equivalence") mono = o;
  }
  CHECK(mono["failed"] == 9);
  CHECK(mono["passed"] == 0);
  CHECK(mono["runs"] == 3);
  std::vector<std::string> summaries;
  for (const auto& g : evidence["groups"]) summaries.push_back(g["summary"]);
  CHECK(std::count(summaries.begin(), summaries.end(),
                   "vllm 0.26.0 + lmcache: 6/6 failed in 2 runs") == 1);
  CHECK(std::count(summaries.begin(), summaries.end(),
                   "vllm 0.27.1 + lmcache: 3/3 failed in 1 run") == 1);
  // The seed's two controls; later records may add more passing runs.
  std::vector<std::string> controls;
  for (const auto& c : evidence["controls"]) controls.push_back(c["subject"]);
  CHECK(std::count(controls.begin(), controls.end(), "mooncake + vllm") == 1);
  CHECK(std::count(controls.begin(), controls.end(), "nixl + vllm") == 1);
  fs::remove_all(dir);
}

TEST_CASE("hostile reports are refused at a limit: no crash, nothing written",
          "[cli][results][limits]") {
  // Before: 10,000 nested <testsuite> elements (230 KB) crashed kb with SIGSEGV.
  auto dir = scratch("results_hostile");
  auto records = fixture_tree(dir);
  std::string deep = "<?xml version=\"1.0\"?>\n";
  for (int i = 0; i < 10000; ++i) deep += "<testsuite>\n";
  deep += "<testcase name=\"t\"/>\n";
  for (int i = 0; i < 10000; ++i) deep += "</testsuite>\n";
  spit(dir / "deep.xml", deep);
  const std::string rest =
      "' --oracle monolithic-equivalence --subject vllm --records '" + records.string() + "'";
  auto r = kb(dir, "results import '" + (dir / "deep.xml").string() + rest);
  CHECK(r.code == 2);
  CHECK(r.err.find("deep.xml:66:1: error[limits.depth]: elements nested deeper than 64 levels") !=
        std::string::npos);

  spit(dir / "big.json", std::string(2000, ' ') + "{\"passed\": 1}");
  auto big =
      kb(dir, "results import '" + (dir / "big.json").string() + rest + " --max-report-bytes 1000");
  CHECK(big.code == 2);
  CHECK(big.err.find("error[limits.file-size]: file is 2013 bytes; the limit is 1000") !=
        std::string::npos);
  CHECK(big.err.find("hint: split the report, or raise --max-report-bytes") != std::string::npos);
  CHECK_FALSE(fs::exists(records / "results"));
  fs::remove_all(dir);
}
