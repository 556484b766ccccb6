#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

fs::path small_tree(const fs::path& dir) {
  fs::path rec = dir / "records";
  spit(rec / "engines/vllm.yaml", "name: vLLM\nrepo: vllm-project/vllm\n");
  spit(rec / "gotchas/cache-hit-differs.yaml", kGotcha);
  return rec;
}

}  // namespace

TEST_CASE("kb lint exits 0 on a clean tree and prints a summary", "[cli][lint]") {
  auto dir = scratch("lint_clean");
  auto rec = small_tree(dir);
  auto r = kb(dir, "lint --records '" + rec.string() + "'");
  CHECK(r.code == 0);
  CHECK(r.out == "2 records, 0 errors, 0 warnings\n");
}

TEST_CASE("kb lint --format json matches the contract's shape", "[cli][lint]") {
  auto dir = scratch("lint_json");
  auto rec = small_tree(dir);
  spit(rec / "gotchas/bad.yaml", std::string(kGotcha) + "severty: major\naffects2: x\n");
  auto r = kb(dir, "lint --format json --records '" + rec.string() + "'");
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  CHECK(j["records"] == 2);
  CHECK(j["errors"] == 2);
  CHECK(j["warnings"] == 0);
  REQUIRE(j["diagnostics"].size() == 2);
  const json& d = j["diagnostics"][0];
  CHECK(d["file"] == "gotchas/bad.yaml");
  CHECK(d["line"] == 7);
  CHECK(d["column"] == 1);
  CHECK(d["severity"] == "error");
  CHECK(d["code"] == "schema.unknown-field");
  CHECK(d["message"] == "unknown field 'severty'");
  CHECK(d["record"] == "gotchas/bad");
  CHECK(d["hint"] == "did you mean 'severity'?");
}

TEST_CASE("kb lint text output reads like a compiler", "[cli][lint]") {
  auto dir = scratch("lint_text");
  auto rec = small_tree(dir);
  spit(rec / "gotchas/cache-hit-differs.yaml", std::string(kGotcha) + "related: [nothing-here]\n");
  auto r = kb(dir, "lint --records '" + rec.string() + "'");
  CHECK(r.code == 1);
  CHECK(r.out.rfind("gotchas/cache-hit-differs.yaml:7:11: error[ref.dangling]: related[0]: no "
                    "gotcha 'nothing-here'",
                    0) == 0);
}

TEST_CASE("bad usage exits 2", "[cli]") {
  auto dir = scratch("usage");
  CHECK(kb(dir, "").code == 2);
  CHECK(kb(dir, "frobnicate").code == 2);
  CHECK(kb(dir, "lint --format xml").code == 2);
  CHECK(kb(dir, "lint --records '" + (dir / "missing").string() + "'").code == 2);
  CHECK(kb(dir, "--help").code == 0);
}

TEST_CASE("every date flag refuses a day the calendar does not have", "[cli]") {
  auto dir = scratch("dates");
  auto rec = small_tree(dir);
  const std::string records = " --records '" + rec.string() + "'";
  for (const std::string args :
       {"lint --today 2026-02-30", "show gotchas/cache-hit-differs --today 2026-13-01",
        "repair --today 2026-1-1", "serve --today 2026-00-10", "check deploy.yaml --today x",
        "results import r.xml --oracle o --subject vllm --date 2026-02-29"}) {
    INFO(args);
    auto r = kb(dir, args + records);
    CHECK(r.code == 2);
    CHECK(r.err.find("expected a date YYYY-MM-DD") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(rec / "results"));
}

TEST_CASE("kb build writes an index and a failed build leaves it byte-identical", "[cli][build]") {
  auto dir = scratch("build");
  auto rec = small_tree(dir);
  fs::path db = dir / "kb.db";
  auto ok = kb(dir, "build --records '" + rec.string() + "' --db '" + db.string() + "'");
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  REQUIRE(fs::exists(db));
  const std::string before = slurp(db);
  CHECK(before.rfind("SQLite format 3", 0) == 0);

  spit(rec / "gotchas/broken.yaml", "title: [unclosed\n");
  auto bad = kb(dir, "build --records '" + rec.string() + "' --db '" + db.string() + "'");
  CHECK(bad.code == 1);
  CHECK(bad.err.find("gotchas/broken.yaml:") != std::string::npos);
  CHECK(slurp(db) == before);
  for (const auto& e : fs::directory_iterator(dir)) {
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
  }
}

TEST_CASE("kb build removes what killed builds left behind, and only that", "[cli][build]") {
  auto dir = scratch("build-leftovers");
  auto rec = small_tree(dir);
  fs::path db = dir / "kb.db";
  // pid 4194304 is above Linux's pid_max: no such process. pid 1 is always alive.
  for (const char* name : {"kb.db.tmp-4194304", "kb.db.tmp-4194304-journal", "kb.db.tmp-1",
                           "kb.db.tmp-notapid", "other.db.tmp-4194304"})
    spit(dir / name, "partial");
  auto ok = kb(dir, "build --records '" + rec.string() + "' --db '" + db.string() + "'");
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  CHECK_FALSE(fs::exists(dir / "kb.db.tmp-4194304"));
  CHECK_FALSE(fs::exists(dir / "kb.db.tmp-4194304-journal"));
  CHECK(fs::exists(dir / "kb.db.tmp-1"));
  CHECK(fs::exists(dir / "kb.db.tmp-notapid"));
  CHECK(fs::exists(dir / "other.db.tmp-4194304"));
}

TEST_CASE("kb show prints one record in text, json and yaml", "[cli][show]") {
  auto dir = scratch("show");
  auto rec = small_tree(dir);
  auto yaml =
      kb(dir, "show gotchas/cache-hit-differs --format yaml --records '" + rec.string() + "'");
  CHECK(yaml.code == 0);
  CHECK(yaml.out == kGotcha);
  auto text = kb(dir, "show gotchas/cache-hit-differs --records '" + rec.string() + "'");
  CHECK(text.code == 0);
  CHECK(text.out == "id\ngotchas/cache-hit-differs\nSymptom\nIt breaks.\n");
  auto js =
      kb(dir, "show gotchas/cache-hit-differs --format json --records '" + rec.string() + "'");
  REQUIRE(js.code == 0);
  json j = json::parse(js.out);
  CHECK(j["id"] == "gotchas/cache-hit-differs");
  CHECK(j["severity"] == "major");
  CHECK(j["affects"][0]["id"] == "engines/vllm");
  CHECK(j["evidence"]["state"] == "no-evidence");
  auto missing = kb(dir, "show gotchas/cache-hit-difers --records '" + rec.string() + "'");
  CHECK(missing.code == 1);
  CHECK(missing.err.find("did you mean 'gotchas/cache-hit-differs'?") != std::string::npos);
}

TEST_CASE("the shipped records lint clean and build", "[cli][records]") {
  auto dir = scratch("shipped");
  auto rec = fs::path(KB_SOURCE_DIR) / "records";
  auto lint = kb(dir, "lint --records '" + rec.string() + "'");
  INFO(lint.out);
  CHECK(lint.code == 0);
  // Clean means no warning either: the shipped knowledge base is the authors' example.
  CHECK(lint.out.find(" records, 0 errors, 0 warnings\n") != std::string::npos);
  auto build =
      kb(dir, "build --records '" + rec.string() + "' --db '" + (dir / "kb.db").string() + "'");
  INFO(build.err);
  CHECK(build.code == 0);
}

TEST_CASE("kb lint reports a dangling reference once, with the repair it would make",
          "[cli][lint]") {
  auto dir = scratch("lint_dangling");
  auto rec = small_tree(dir);
  spit(rec / "engines/mooncake.yaml", "name: Mooncake\nrepo: kvcache-ai/Mooncake\n");
  spit(rec / "gotchas/cache-hit-differs.yaml", std::string(kGotcha) + "related: []\n");
  spit(rec / "gotchas/typo.yaml",
       "title: T\nseverity: minor\nstatus: open\nsymptom: x\n"
       "affects: [vllm, mooncache, vllm-ascend]\n");
  auto r = kb(dir, "lint --format json --records '" + rec.string() + "'");
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  REQUIRE(j["diagnostics"].size() == 2);
  CHECK(j["diagnostics"][0]["code"] == "ref.dangling");
  CHECK(j["diagnostics"][0]["line"] == 5);
  CHECK(j["diagnostics"][0]["column"] == 17);
  CHECK(j["diagnostics"][0]["message"] == "affects[1]: no engine 'mooncache'");
  CHECK(j["diagnostics"][0]["hint"] ==
        "did you mean `mooncake`? (0.85, `kb repair --write` would apply it)");
  CHECK(j["diagnostics"][1]["message"] == "affects[2]: no engine 'vllm-ascend'");
  CHECK(j["diagnostics"][1]["hint"].get<std::string>().find("not applied") != std::string::npos);
}
