// `kb lint PATH...`: record files and directories of the tree, in the context of the tree.

#include <catch2/catch.hpp>

#include <set>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;

namespace {

// Two engines (one with an unknown field), two gotchas (one with an unknown field), and a
// file the loader does not read. (A record in a subfolder of its namespace is refused:
// `file.path`, tested with the loader.)
fs::path fixture_tree(const fs::path& dir) {
  fs::path rec = dir / "records";
  spit(rec / "engines/vllm.yaml", "name: vLLM\nrepo: vllm-project/vllm\n");
  spit(rec / "engines/sglang.yaml", "name: SGLang\nrepo: sgl-project/sglang\nrepp: x\n");
  spit(rec / "gotchas/cache-hit-differs.yaml", kGotcha);
  spit(rec / "gotchas/bad.yaml", std::string(kGotcha) + "severty: major\n");
  spit(rec / "gotchas/notes.txt", "not a record\n");
  return rec;
}

std::string quoted(const fs::path& p) {
  return "'" + p.string() + "'";
}

}  // namespace

TEST_CASE("kb lint DIR: the records directory itself is `kb lint`", "[cli][lint]") {
  auto dir = scratch("lint_dir_root");
  auto rec = fixture_tree(dir);
  auto whole = kb(dir, "lint --records " + quoted(rec));
  CHECK(whole.code == 1);
  CHECK(whole.out ==
        "engines/sglang.yaml:3:1: error[schema.unknown-field]: unknown field 'repp'\n"
        "  hint: did you mean 'repo'?\n"
        "gotchas/bad.yaml:7:1: error[schema.unknown-field]: unknown field 'severty'\n"
        "  hint: did you mean 'severity'?\n"
        "2 records, 2 errors, 0 warnings\n");
  for (const std::string& arg : {quoted(rec), quoted(rec) + "/", quoted(rec / "gotchas/..")}) {
    auto named = kb(dir, "lint --records " + quoted(rec) + " " + arg);
    INFO(arg << "\n" << named.err);
    CHECK(named.code == whole.code);
    CHECK(named.out == whole.out);
  }
  auto json_whole = kb(dir, "lint --format json --records " + quoted(rec));
  auto json_named = kb(dir, "lint --format json --records " + quoted(rec) + " " + quoted(rec));
  CHECK(json_named.out == json_whole.out);
}

TEST_CASE("kb lint DIR: a directory of the tree lints the record files under it", "[cli][lint]") {
  auto dir = scratch("lint_dir_sub");
  auto rec = fixture_tree(dir);
  auto gotchas = kb(dir, "lint --records " + quoted(rec) + " " + quoted(rec / "gotchas"));
  INFO(gotchas.err);
  CHECK(gotchas.code == 1);
  CHECK(gotchas.out ==
        "gotchas/bad.yaml:7:1: error[schema.unknown-field]: unknown field 'severty'\n"
        "  hint: did you mean 'severity'?\n"
        "2 records, 1 errors, 0 warnings\n");
  CHECK(gotchas.err.empty());
  auto engines = kb(dir, "lint --records " + quoted(rec) + " " + quoted(rec / "engines") + " " +
                             quoted(rec / "engines/vllm.yaml"));
  CHECK(engines.code == 1);
  CHECK(engines.out ==
        "engines/sglang.yaml:3:1: error[schema.unknown-field]: unknown field 'repp'\n"
        "  hint: did you mean 'repo'?\n"
        "2 records, 1 errors, 0 warnings\n");
  // In the context of the tree: the file alone holds no engine its gotcha affects.
  auto one = kb(dir, "lint --records " + quoted(rec) + " " + quoted(rec / "gotchas/bad.yaml"));
  CHECK(one.code == 1);
  CHECK(one.out ==
        "gotchas/bad.yaml:7:1: error[schema.unknown-field]: unknown field 'severty'\n"
        "  hint: did you mean 'severity'?\n"
        "1 records, 1 errors, 0 warnings\n");
}

TEST_CASE("kb lint PATH: a missing path or a directory outside the tree is bad usage",
          "[cli][lint]") {
  auto dir = scratch("lint_dir_usage");
  auto rec = fixture_tree(dir);
  const fs::path missing = rec / "gotchas/nope";
  auto r = kb(dir, "lint --records " + quoted(rec) + " " + quoted(missing));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "kb lint: '" + missing.string() + "': no such file or directory\n");

  fs::create_directories(dir / "elsewhere");
  const fs::path outside = dir / "elsewhere";
  r = kb(dir, "lint --records " + quoted(rec) + " " + quoted(outside));
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "kb lint: '" + outside.string() +
                     "' is a directory outside the records directory '" + rec.string() +
                     "'\n  hint: to lint that tree, run `kb lint --records " + outside.string() +
                     "`\n");
}

TEST_CASE("kb lint --format sarif and github: paths from the working directory", "[cli][lint]") {
  auto dir = scratch("lint_formats");
  fixture_tree(dir);
  // Run from `dir`: the paths say records/gotchas/bad.yaml, a file that exists from there.
  auto run = [&](const std::string& args) { return kb_in(dir, args); };
  Run gh = run("lint -f github");
  CHECK(gh.code == 1);
  CHECK(gh.out.find("::error file=records/gotchas/bad.yaml,line=7,col=1,title=schema.unknown-field"
                    "::unknown field 'severty'") != std::string::npos);
  CHECK(fs::exists(dir / "records/gotchas/bad.yaml"));
  Run sarif = run("lint --format sarif");
  CHECK(sarif.code == 1);
  auto log = nlohmann::json::parse(sarif.out, nullptr, false);
  REQUIRE_FALSE(log.is_discarded());
  CHECK(log["version"] == "2.1.0");
  const auto& run0 = log["runs"][0];
  bool found = false;
  for (const auto& r : run0["results"]) {
    const auto& loc = r["locations"][0]["physicalLocation"];
    if (r["ruleId"] != "schema.unknown-field") continue;
    CHECK(loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%");
    CHECK(fs::exists(dir / loc["artifactLocation"]["uri"].get<std::string>()));
    found = true;
  }
  CHECK(found);
  // Each rule once, with what the code means.
  std::set<std::string> ids;
  for (const auto& rule : run0["tool"]["driver"]["rules"]) {
    CHECK(ids.insert(rule["id"].get<std::string>()).second);
    CHECK(rule["shortDescription"]["text"].is_string());
  }
}
