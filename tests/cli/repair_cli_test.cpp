#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

const std::string kSeedFile = "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.yaml";

fs::path fixture(const fs::path& dir, const std::string& name) {
  fs::path out = dir / "records";
  fs::copy(fs::path(KB_TEST_DATA) / "repair" / name, out, fs::copy_options::recursive);
  return out;
}

std::string records_arg(const fs::path& rec) {
  return " --records '" + rec.string() + "'";
}

}  // namespace

TEST_CASE("kb repair is a dry run by default and lists the seed 002 repair", "[cli][repair]") {
  auto dir = scratch("repair_dry");
  auto rec = fixture(dir, "seed002");
  const std::string before = slurp(rec / kSeedFile);
  auto r = kb(dir, "repair" + records_arg(rec));
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out ==
        kSeedFile +
            ":8:23: affects[2]: mooncache -> mooncake (0.85, would apply)\n"
            "    2 edits from `mooncake` (engines/mooncake): score 0.85 >= 0.80, runner-up "
            "engines/lmcache 0.70 is no typo match (too-many-edits)\n"
            "1 repair (run with --write to apply), 0 unresolved\n");
  CHECK(slurp(rec / kSeedFile) == before);
}

TEST_CASE("kb repair --format json has the contract's shape", "[cli][repair]") {
  auto dir = scratch("repair_json");
  auto rec = fixture(dir, "rules");
  auto r = kb(dir, "repair --format json" + records_arg(rec));
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  REQUIRE(j["repairs"].size() == 4);
  const json& first = j["repairs"][0];
  CHECK(first["record"] == "gotchas/every-kind-of-reference");
  CHECK(first["file"] == "gotchas/every-kind-of-reference.yaml");
  CHECK(first["line"] == 12);
  CHECK(first["field"] == "affects[5]");
  CHECK(first["from"] == "sglnag");
  CHECK(first["to"] == "sglang");
  CHECK(first["confidence"] == 0.9);
  CHECK(first["applied"] == false);
  CHECK(first["reason"] ==
        "1 edit from `sglang` (engines/sglang): score 0.90 >= 0.80, no other candidate");
  REQUIRE(j["unresolved"].size() == 8);
  const json& ascend = j["unresolved"][0];
  CHECK(ascend["line"] == 14);
  CHECK(ascend["field"] == "affects[7]");
  CHECK(ascend["value"] == "vllm-ascend");
  CHECK(ascend["candidates"] ==
        json::parse(R"([{"id": "engines/vllm", "score": 0.62, "matched": "vllm"}])"));
  CHECK(ascend["rule"] == "extends-id");
  CHECK(j["unresolved"][7]["other_namespace_id"] == "oracles/monolithic-equivalence");
}

TEST_CASE("kb repair --write applies, then a second run finds nothing", "[cli][repair]") {
  auto dir = scratch("repair_write");
  auto rec = fixture(dir, "seed002");
  auto r = kb(dir, "repair --write --today 2026-10-04 --format json" + records_arg(rec));
  CHECK(r.code == 0);
  json j = json::parse(r.out);
  REQUIRE(j["repairs"].size() == 1);
  CHECK(j["repairs"][0]["applied"] == true);
  const std::string after = slurp(rec / kSeedFile);
  CHECK(after.find("affects: [vllm, nixl, mooncake, nvidia-dynamo]  # as the seed wrote it\n") !=
        std::string::npos);
  CHECK(after.find(
            "  - {date: 2026-10-04, field: \"affects[2]\", from: mooncache, to: mooncake,\n") !=
        std::string::npos);

  auto again = kb(dir, "repair --write" + records_arg(rec));
  CHECK(again.code == 0);
  CHECK(again.out == "0 repairs (0 applied), 0 unresolved\n");
  CHECK(slurp(rec / kSeedFile) == after);
  CHECK(kb(dir, "lint" + records_arg(rec)).code == 0);
}

TEST_CASE("kb repair thresholds are settings", "[cli][repair]") {
  auto dir = scratch("repair_thresholds");
  auto rec = fixture(dir, "seed002");
  auto r = kb(dir, "repair --format json --min-confidence 0.9" + records_arg(rec));
  CHECK(r.code == 1);
  json j = json::parse(r.out);
  CHECK(j["repairs"].empty());
  REQUIRE(j["unresolved"].size() == 1);
  CHECK(j["unresolved"][0]["rule"] == "low-confidence");
  CHECK(j["unresolved"][0]["candidates"][0]["id"] == "engines/mooncake");
}

TEST_CASE("kb repair rejects bad usage with exit 2", "[cli][repair]") {
  auto dir = scratch("repair_usage");
  auto rec = fixture(dir, "seed002");
  CHECK(kb(dir, "repair --format xml" + records_arg(rec)).code == 2);
  CHECK(kb(dir, "repair --today 2026-1-1" + records_arg(rec)).code == 2);
  CHECK(kb(dir, "repair --min-confidence 1.5" + records_arg(rec)).code == 2);
  CHECK(kb(dir, "repair --records '" + (dir / "missing").string() + "'").code == 2);
}

TEST_CASE("kb repair --write fixes a typo'd predicate value and nothing else", "[cli][repair]") {
  auto dir = scratch("repair_values");
  auto rec = fixture(dir, "values");
  const std::string file = "gotchas/typo-values.yaml";
  const std::string before = slurp(rec / file);
  const std::string ambiguous = slurp(rec / "gotchas/ambiguous-value.yaml");

  auto dry = kb(dir, "repair --format json" + records_arg(rec));
  CHECK(dry.code == 1);  // the ambiguous value stays unresolved
  json plan = json::parse(dry.out);
  REQUIRE(plan["repairs"].size() == 2);
  CHECK(plan["repairs"][0]["kind"] == "value");
  CHECK(plan["repairs"][0]["from"] == "ture");
  CHECK(plan["repairs"][0]["to"] == "true");
  CHECK(plan["repairs"][0]["line"] == 9);
  CHECK(plan["repairs"][0]["column"] == 33);
  REQUIRE(plan["unresolved"].size() == 1);
  CHECK(plan["unresolved"][0]["kind"] == "value");
  CHECK(plan["unresolved"][0]["rule"] == "ambiguous");
  CHECK(plan["unresolved"][0]["candidates"] ==
        json::parse(R"([{"id": "settings/write-mode", "score": 0.89, "matched": "append"},
                        {"id": "settings/write-mode", "score": 0.84, "matched": "amend"}])"));
  CHECK(slurp(rec / file) == before);

  auto r = kb(dir, "repair --write --today 2026-10-04" + records_arg(rec));
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  // Only the two scalars changed, and the log was appended; comments and quotes stay.
  const std::string after = slurp(rec / file);
  const std::string log = after.substr(after.find("repairs:\n"));
  std::string edited = before;
  edited.replace(edited.find("ture}}"), 4, "true");
  edited.replace(edited.find("\"disagregated\""), 14, "\"disaggregated\"");
  CHECK(after == edited + log);
  CHECK(log.find("from: ture, to: \"true\",\n") != std::string::npos);
  CHECK(slurp(rec / "gotchas/ambiguous-value.yaml") == ambiguous);

  auto again = kb(dir, "repair --write" + records_arg(rec));
  CHECK(again.out.find("0 repairs (0 applied), 1 unresolved\n") != std::string::npos);
  CHECK(slurp(rec / file) == after);

  auto lint = kb(dir, "lint --format json" + records_arg(rec));
  CHECK(lint.code == 1);
  json j = json::parse(lint.out);
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["code"] == "predicate.bad-value");
  CHECK(j["diagnostics"][0]["file"] == "gotchas/ambiguous-value.yaml");
  CHECK(j["diagnostics"][0]["line"] == 5);
}
