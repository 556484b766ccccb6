#include <catch2/catch.hpp>

#include "../test_files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kb/corpus.h"
#include "kb/repair.h"

using namespace kb;
namespace fs = std::filesystem;

namespace {

using kb::test::read_file;

void spit(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

fs::path scratch(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("kb_repair_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path copy_fixture(const std::string& fixture, const std::string& name) {
  auto dir = scratch(name);
  fs::copy(fs::path(KB_TEST_DATA) / "repair" / fixture, dir, fs::copy_options::recursive);
  return dir;
}

// Engines enough for the inline trees below.
fs::path engines_tree(const std::string& name) {
  auto dir = scratch(name);
  spit(dir / "engines/vllm.yaml", "name: vLLM\n");
  spit(dir / "engines/nixl.yaml", "name: NIXL\n");
  spit(dir / "engines/mooncake.yaml", "name: Mooncake\nrepo: kvcache-ai/Mooncake\n");
  spit(dir / "engines/lmcache.yaml", "name: LMCache\n");
  return dir;
}

const char* kHead = "title: T\nseverity: minor\nstatus: open\nsymptom: s\n";

std::string written(const fs::path& dir, const std::string& file, RepairPlan* out = nullptr) {
  auto corpus = Corpus::load(dir);
  RepairPlan plan = plan_repairs(*corpus);
  ApplyResult result = apply_repairs(*corpus, plan, "2026-10-04");
  std::string refused;
  for (const auto& d : result.refused) refused += d.code + ": " + d.message + "\n";
  INFO(refused);
  REQUIRE(result.refused.empty());
  if (out) *out = plan;
  return read_file(dir / file);
}

const std::string kMooncacheReason =
    "2 edits from `mooncake` (engines/mooncake): score 0.85 >= 0.80, runner-up engines/lmcache "
    "0.70 is no typo match (too-many-edits)";

}  // namespace

TEST_CASE("seed 002 before its repair yields exactly the mooncache -> mooncake repair") {
  auto corpus = Corpus::load(fs::path(KB_TEST_DATA) / "repair/seed002");
  RepairPlan plan = plan_repairs(*corpus);
  CHECK(plan.unresolved.empty());
  REQUIRE(plan.repairs.size() == 1);
  const PlannedRepair& r = plan.repairs.front();
  CHECK(r.record == "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace");
  CHECK(r.file == "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.yaml");
  CHECK(r.line == 8);
  CHECK(r.column == 23);
  CHECK(r.field == "affects[2]");
  CHECK(r.from == "mooncache");
  CHECK(r.to == "mooncake");
  CHECK(r.target == "engines/mooncake");
  CHECK(r.confidence == Approx(0.854).margin(0.001));
  CHECK_FALSE(r.applied);
  CHECK(r.reason == kMooncacheReason);
}

TEST_CASE("repair --write on seed 002 edits the scalar, appends the log and is idempotent") {
  auto dir = copy_fixture("seed002", "seed002_write");
  const std::string file = "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.yaml";
  const std::string before = read_file(dir / file);
  RepairPlan plan;
  const std::string after = written(dir, file, &plan);
  REQUIRE(plan.repairs.size() == 1);
  CHECK(plan.repairs.front().applied);

  std::string expected = before;
  expected.replace(expected.find("mooncache"), 9, "mooncake");
  expected +=
      "repairs:\n"
      "  - {date: 2026-10-04, field: \"affects[2]\", from: mooncache, to: mooncake,\n"
      "     reason: \"" +
      kMooncacheReason + "\", confidence: 0.85}\n";
  CHECK(after == expected);

  auto again = Corpus::load(dir);
  CHECK(count_severity(again->diagnostics(), Severity::error) == 0);
  RepairPlan second = plan_repairs(*again);
  CHECK(second.repairs.empty());
  CHECK(second.unresolved.empty());
  const Record* rec = again->find("gotchas/pd-batch-invariant-mode-absent-from-kv-namespace");
  REQUIRE(rec != nullptr);
  REQUIRE(rec->repairs.size() == 1);
  CHECK(rec->repairs[0].from == "mooncache");
  CHECK(rec->repairs[0].to == "mooncake");
  CHECK(rec->repairs[0].confidence == Approx(0.85));
}

TEST_CASE("every kind of reference: exact ones pass, typos are planned, the rest unresolved") {
  auto corpus = Corpus::load(fs::path(KB_TEST_DATA) / "repair/rules");
  RepairPlan plan = plan_repairs(*corpus);
  std::vector<std::string> repairs;
  for (const auto& r : plan.repairs) repairs.push_back(r.field + " " + r.from + " -> " + r.to);
  CHECK(repairs == std::vector<std::string>{
                       "affects[5] sglnag -> sglang",
                       "affects[6] lmcahce -> lmcache",
                       "related[1] pd-cache-hit-silently-differs-from-cold-rn -> "
                       "pd-cache-hit-silently-differs-from-cold-run",
                       "oracles[0] monolithic-equivalance -> monolithic-equivalence",
                   });
  std::vector<std::string> unresolved;
  for (const auto& u : plan.unresolved)
    unresolved.push_back(u.field + " " + u.value + " " + u.rule);
  CHECK(unresolved == std::vector<std::string>{
                          "affects[7] vllm-ascend extends-id",
                          "affects[8] lmcache-vllm extends-id",
                          "affects[9] mooncake, nixl several-ids",
                          "affects[10] moon abbreviation",
                          "affects[11] trt too-short",
                          "affects[12] xccl low-confidence",
                          "affects[13] morio ambiguous",
                          "affects[14] monolithic-equivalence wrong-namespace",
                      });
  const UnresolvedRef& ascend = plan.unresolved.front();
  CHECK(ascend.line == 14);
  CHECK(ascend.column == 5);
  REQUIRE_FALSE(ascend.candidates.empty());
  CHECK(ascend.candidates.front().id == "engines/vllm");
  CHECK(plan.unresolved.back().other_namespace_id == "oracles/monolithic-equivalence");
}

TEST_CASE("repair --write changes only the repaired scalars and the log: comments, quotes, block list") {
  auto dir = copy_fixture("rules", "rules_write");
  const std::string file = "gotchas/every-kind-of-reference.yaml";
  const std::string before = read_file(dir / file);
  RepairPlan plan;
  const std::string after = written(dir, file, &plan);
  std::string expected = before;
  auto swap = [&](const std::string& from, const std::string& to) {
    const auto at = expected.find(from);
    REQUIRE(at != std::string::npos);
    expected.replace(at, from.size(), to);
  };
  swap("  - sglnag    ", "  - sglang    ");
  swap("\"lmcahce\"", "\"lmcache\"");
  swap("cold-rn ", "cold-run ");
  swap("[monolithic-equivalance]", "[monolithic-equivalence]");
  expected += "repairs:\n";
  for (const auto& r : plan.repairs) {
    char conf[8];
    std::snprintf(conf, sizeof conf, "%.2f", r.confidence);
    expected += "  - {date: 2026-10-04, field: \"" + r.field + "\", from: " + r.from +
                ", to: " + r.to + ",\n     reason: \"" + r.reason + "\", confidence: " + conf +
                "}\n";
  }
  CHECK(after == expected);
  RepairPlan second = plan_repairs(*Corpus::load(dir));
  CHECK(second.repairs.empty());
  CHECK(second.unresolved.size() == 8);
}

TEST_CASE("repair --write keeps CRLF line endings, the BOM and comments byte for byte") {
  auto dir = engines_tree("crlf");
  const std::string text =
      "\xEF\xBB\xBF# a comment first\r\n"
      "title: T\r\nseverity: minor\r\nstatus: open\r\nsymptom: s\r\n"
      "affects:\r\n"
      "- vllm   # indentless list\r\n"
      "- 'nixll'\r\n"
      "- {engine: engines/mooncache, versions: \">=0.3\"}\r\n"
      "repairs:\r\n"
      "- date: 2026-01-01\r\n"
      "  field: affects[9]\r\n"
      "  from: x\r\n"
      "  to: y\r\n"
      "\r\n"
      "# trailing comment\r\n";
  spit(dir / "gotchas/g.yaml", text);
  RepairPlan plan;
  const std::string after = written(dir, "gotchas/g.yaml", &plan);
  REQUIRE(plan.repairs.size() == 2);
  CHECK(plan.repairs[1].to == "engines/mooncake");
  const std::string expected =
      "\xEF\xBB\xBF# a comment first\r\n"
      "title: T\r\nseverity: minor\r\nstatus: open\r\nsymptom: s\r\n"
      "affects:\r\n"
      "- vllm   # indentless list\r\n"
      "- 'nixl'\r\n"
      "- {engine: engines/mooncake, versions: \">=0.3\"}\r\n"
      "repairs:\r\n"
      "- date: 2026-01-01\r\n"
      "  field: affects[9]\r\n"
      "  from: x\r\n"
      "  to: y\r\n"
      "- date: 2026-10-04\r\n"
      "  field: \"affects[1]\"\r\n"
      "  from: nixll\r\n"
      "  to: nixl\r\n"
      "  reason: \"" +
      plan.repairs[0].reason +
      "\"\r\n"
      "  confidence: 0.88\r\n"
      "- date: 2026-10-04\r\n"
      "  field: \"affects[2]\"\r\n"
      "  from: engines/mooncache\r\n"
      "  to: engines/mooncake\r\n"
      "  reason: \"" +
      plan.repairs[1].reason +
      "\"\r\n"
      "  confidence: 0.85\r\n"
      "\r\n"
      "# trailing comment\r\n";
  CHECK(after == expected);
  CHECK(plan_repairs(*Corpus::load(dir)).repairs.empty());
}

TEST_CASE("the log is added to an empty, a null or a flow repairs list") {
  const std::map<std::string, std::pair<std::string, std::string>> cases = {
      {"flow-empty",
       {"affects: [mooncache]\nrepairs: []\n",
        "affects: [mooncake]\nrepairs: [{date: 2026-10-04, field: \"affects[0]\", from: "
        "mooncache, to: mooncake, reason: \"@\", confidence: 0.85}]\n"}},
      {"flow-one",
       {"affects: [mooncache]\nrepairs: [{date: 2026-01-01, field: x, from: a, to: b}]\n",
        "affects: [mooncake]\nrepairs: [{date: 2026-01-01, field: x, from: a, to: b}, "
        "{date: 2026-10-04, field: \"affects[0]\", from: mooncache, to: mooncake, reason: "
        "\"@\", confidence: 0.85}]\n"}},
      {"null",
       {"repairs:\naffects: [mooncache]  # no newline at the end",
        "repairs:\n  - {date: 2026-10-04, field: \"affects[0]\", from: mooncache, to: mooncake,"
        "\n     reason: \"@\", confidence: 0.85}\naffects: [mooncake]  # no newline at the end"}},
      {"tilde",
       {"affects: [mooncache]\nrepairs: ~\n",
        "affects: [mooncake]\nrepairs: \n  - {date: 2026-10-04, field: \"affects[0]\", from: "
        "mooncache, to: mooncake,\n     reason: \"@\", confidence: 0.85}\n"}},
      {"absent-no-newline",
       {"affects: [mooncache]",
        "affects: [mooncake]\nrepairs:\n  - {date: 2026-10-04, field: \"affects[0]\", from: "
        "mooncache, to: mooncake,\n     reason: \"@\", confidence: 0.85}\n"}},
      {"block-flow-items",
       {"affects:\n    - mooncache\nrepairs:\n    - {date: 2026-01-01, field: x, from: a, to: "
        "b}\n# end\n",
        "affects:\n    - mooncake\nrepairs:\n    - {date: 2026-01-01, field: x, from: a, to: "
        "b}\n    - {date: 2026-10-04, field: \"affects[0]\", from: mooncache, to: mooncake,\n"
        "       reason: \"@\", confidence: 0.85}\n# end\n"}},
  };
  for (const auto& [name, texts] : cases) {
    INFO(name);
    auto dir = engines_tree("log_" + name);
    spit(dir / "gotchas/g.yaml", kHead + texts.first);
    RepairPlan plan;
    const std::string after = written(dir, "gotchas/g.yaml", &plan);
    REQUIRE(plan.repairs.size() == 1);
    std::string expected = kHead + texts.second;
    const auto at = expected.find('@');
    expected.replace(at, 1, plan.repairs[0].reason);
    CHECK(after == expected);
    CHECK(plan_repairs(*Corpus::load(dir)).repairs.empty());
  }
}

TEST_CASE("a file changed since it was read is refused and left alone") {
  auto dir = engines_tree("stale");
  spit(dir / "gotchas/g.yaml", std::string(kHead) + "affects: [mooncache]\n");
  auto corpus = Corpus::load(dir);
  RepairPlan plan = plan_repairs(*corpus);
  const std::string edited = std::string(kHead) + "affects: [mooncache, vllm]\n";
  spit(dir / "gotchas/g.yaml", edited);
  ApplyResult result = apply_repairs(*corpus, plan, "2026-10-04");
  REQUIRE(result.refused.size() == 1);
  CHECK(result.refused[0].code == "repair.stale");
  CHECK(result.refused[0].file == "gotchas/g.yaml");
  CHECK(result.files_written.empty());
  CHECK_FALSE(plan.repairs[0].applied);
  CHECK(read_file(dir / "gotchas/g.yaml") == edited);
}

TEST_CASE("a scalar that cannot be edited in place is refused") {
  Record r;
  r.id = "gotchas/g";
  r.file = "gotchas/g.yaml";
  r.source_text = std::string(kHead) + "affects: [\"moon\\x63ache\"]\n";
  PlannedRepair p{"gotchas/g", "gotchas/g.yaml",   5,    11,    "affects[0]", "mooncache",
                  "mooncake",  "engines/mooncake", 0.85, false, "typo"};
  std::vector<kb::Diagnostic> problems;
  CHECK_FALSE(repaired_text(r, {p}, "2026-10-04", problems));
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].code == "repair.not-in-place");
  CHECK(problems[0].file == "gotchas/g.yaml");
  CHECK(problems[0].line == 5);
  CHECK(problems[0].column == 11);
  CHECK(problems[0].message == "affects[0] at line 5: escaped scalar; edit it by hand");
  p.column = 12;
  CHECK_FALSE(repaired_text(r, {p}, "2026-10-04", problems));
  REQUIRE(problems.size() == 2);
  CHECK(problems[1].message == "affects[0] at line 5: 'mooncache' is not there");
}

TEST_CASE("a typo'd setting key in a predicate: lint names the key, repair writes the key") {
  auto dir = engines_tree("setting_key");
  spit(dir / "settings/kv-transfer.yaml",
       "title: KV transfer\ntype: enum\nvalues: [pd, none]\n"
       "engines: [{engine: vllm, flags: [--kv-transfer]}]\n");
  spit(dir / "settings/kv-connector.yaml",
       "title: KV connector\ntype: enum\nvalues: [lmcache, nixl]\n");
  const std::string file = "gotchas/g.yaml";
  spit(dir / file, std::string(kHead) + "applies_when:\n  all:\n    - {engine: vllm}\n"
                                        "    - {config: {kv_transfr: pd}}\n");
  auto corpus = Corpus::load(dir);
  bool hinted = false;
  for (const auto& d : corpus->diagnostics()) {
    if (d.code == "ref.dangling" && d.line == 8 && d.column == 17) {
      hinted = d.hint.rfind("did you mean `kv_transfer`?", 0) == 0;
    }
  }
  CHECK(hinted);

  RepairPlan plan;
  const std::string after = written(dir, file, &plan);
  REQUIRE(plan.repairs.size() == 1);
  CHECK(plan.repairs.front().to == "kv_transfer");  // the key, not the slug kv-transfer
  CHECK(plan.repairs.front().target == "settings/kv-transfer");
  CHECK(after.find("    - {config: {kv_transfer: pd}}\n") != std::string::npos);
  auto again = Corpus::load(dir);
  CHECK(count_severity(again->diagnostics(), Severity::error) == 0);
}
