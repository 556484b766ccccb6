// Repairs of typo'd values in predicates: resolve_value's policy, and kb repair --write on
// the fixture tree tests/data/repair/values.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include "kb/corpus.h"
#include "kb/repair.h"
#include "kb/resolver.h"

using namespace kb;

namespace {

SettingDef bool_setting() {
  SettingDef d;
  d.key = "prefix_caching";
  d.type = "bool";
  return d;
}

SettingDef enum_setting(std::vector<std::pair<std::string, std::vector<std::string>>> values) {
  SettingDef d;
  d.key = "k";
  d.type = "enum";
  for (auto& [v, synonyms] : values) {
    SettingValue sv;
    sv.value = v;
    sv.synonyms = synonyms;
    d.values.push_back(sv);
  }
  return d;
}

const SettingDef kKvTransfer =
    enum_setting({{"pd", {"disaggregated", "disagg"}}, {"none", {"monolithic", "aggregated"}}});

std::string errors_of(const Corpus& c) {
  std::string out;
  for (const auto& d : c.diagnostics()) {
    if (d.severity == Severity::error) {
      out += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.code +
             " | " + d.hint + "\n";
    }
  }
  return out;
}

const std::string kAmbiguous =
    "gotchas/ambiguous-value.yaml:5:37 predicate.bad-value | did you mean 'append'? (not "
    "applied: ambiguous: `append` (0.89) and `amend` (0.84) are within the 0.10 margin)\n";

}  // namespace

TEST_CASE("a typo'd bool or enum value is repaired to the one spelling it is near", "[repair]") {
  Resolution r = resolve_value("settings/prefix-caching", bool_setting(), "ture");
  CHECK(r.repairable);
  REQUIRE(!r.candidates.empty());
  CHECK(r.candidates[0].id == "settings/prefix-caching");
  CHECK(r.candidates[0].matched == "true");
  CHECK(r.reason ==
        "1 edit from `true` (settings/prefix-caching): score 0.84 >= 0.80, runner-up `false` "
        "0.34 is no typo match (too-many-edits)");
  CHECK(resolve_value("s", bool_setting(), "Flase").candidates[0].matched == "false");
  CHECK(resolve_value("s", bool_setting(), "Flase").repairable);
  // Two spellings of one value are no rivals: `enabeld` is near `enabled` and `enable`.
  Resolution enabled = resolve_value("s", bool_setting(), "enabeld");
  CHECK(enabled.repairable);
  CHECK(enabled.candidates[0].matched == "enabled");
  // A synonym is written as the synonym, not as the value it means.
  Resolution disagg = resolve_value("settings/kv-transfer", kKvTransfer, "disagregated");
  CHECK(disagg.repairable);
  CHECK(disagg.candidates[0].matched == "disaggregated");
}

TEST_CASE("a value that normalises is exact, the rest are declined with the rule that says why",
          "[repair]") {
  Resolution yes = resolve_value("s", bool_setting(), "Yes");
  REQUIRE(yes.target);
  CHECK(*yes.target == "true");
  CHECK(yes.rule == "exact");
  CHECK(*resolve_value("s", kKvTransfer, "Disagg").target == "pd");

  struct Case {
    SettingDef def;
    std::string raw;
    std::string rule;
    std::string reason;
  };
  const SettingDef modes = enum_setting({{"append", {}}, {"amend", {}}});
  SettingDef integer;
  integer.type = "integer";
  for (const Case& c : {
           Case{bool_setting(), "ys", "too-short",
                "`ys` has 2 characters, fewer than 4: too short to repair safely"},
           Case{kKvTransfer, "pdd", "too-short",
                "`pdd` has 3 characters, fewer than 4: too short to repair safely"},
           Case{modes, "apend", "ambiguous",
                "ambiguous: `append` (0.89) and `amend` (0.84) are within the 0.10 margin"},
           Case{bool_setting(), "sometimes", "too-many-edits", ""},
           Case{kKvTransfer, "disaggregated-v2", "extends-id", ""},
           Case{integer, "lots", "not-enumerated",
                "only values of enum and bool settings are repaired; s is integer"},
       }) {
    Resolution r = resolve_value("s", c.def, c.raw);
    INFO(c.raw << ": " << r.rule << ": " << r.reason);
    CHECK_FALSE(r.repairable);
    CHECK_FALSE(r.target);
    CHECK(r.rule == c.rule);
    if (!c.reason.empty()) CHECK(r.reason == c.reason);
  }
}

TEST_CASE("kb repair --write fixes the typo'd values in place and logs them", "[repair]") {
  kb::test::TempTree tree(std::string(KB_TEST_DATA) + "/repair/values");
  const std::string file = "gotchas/typo-values.yaml";
  const std::string before = tree.read(file);
  auto corpus = Corpus::load(tree.dir);
  CHECK(errors_of(*corpus) ==
        kAmbiguous +
            "gotchas/typo-values.yaml:9:33 predicate.bad-value | did you mean 'true'? (0.84, `kb "
            "repair --write` would apply it)\n"
            "gotchas/typo-values.yaml:11:22 predicate.bad-value | did you mean 'disaggregated'? "
            "(0.94, `kb repair --write` would apply it)\n");

  RepairPlan plan = plan_repairs(*corpus);
  REQUIRE(plan.repairs.size() == 2);
  CHECK(plan.repairs[0].kind == RepairKind::value);
  CHECK(plan.repairs[0].field == "applies_when.all[1].config.prefix_caching");
  CHECK(plan.repairs[0].from == "ture");
  CHECK(plan.repairs[0].to == "true");
  CHECK(plan.repairs[0].target == "settings/prefix-caching");
  CHECK(plan.repairs[0].line == 9);
  CHECK(plan.repairs[0].column == 33);
  CHECK(plan.repairs[1].field == "applies_when.all[2].config.kv_transfer");
  REQUIRE(plan.unresolved.size() == 1);
  CHECK(plan.unresolved[0].kind == RepairKind::value);
  CHECK(plan.unresolved[0].rule == "ambiguous");
  CHECK(plan.unresolved[0].value == "apend");

  ApplyResult result = apply_repairs(*corpus, plan, "2026-10-04");
  CHECK(result.refused.empty());
  CHECK(result.files_written == std::vector<std::string>{file});
  std::string expected = before;
  expected.replace(expected.find("ture}}"), 4, "true");
  expected.replace(expected.find("\"disagregated\""), 14, "\"disaggregated\"");
  expected +=
      "repairs:\n"
      "  - {date: 2026-10-04, field: \"applies_when.all[1].config.prefix_caching\", from: ture, "
      "to: \"true\",\n"
      "     reason: \"" +
      plan.repairs[0].reason +
      "\", confidence: 0.84}\n"
      "  - {date: 2026-10-04, field: \"applies_when.all[2].config.kv_transfer\", from: "
      "disagregated, to: disaggregated,\n"
      "     reason: \"" +
      plan.repairs[1].reason + "\", confidence: 0.94}\n";
  CHECK(tree.read(file) == expected);

  auto again = Corpus::load(tree.dir);
  CHECK(errors_of(*again) == kAmbiguous);
  RepairPlan second = plan_repairs(*again);
  CHECK(second.repairs.empty());
  CHECK(second.unresolved.size() == 1);
  const Record* rec = again->find("gotchas/typo-values");
  REQUIRE(rec != nullptr);
  REQUIRE(rec->repairs.size() == 2);
  CHECK(rec->repairs[0].to == "true");
}

TEST_CASE("a typo'd key and its typo'd value are repaired in one run", "[repair]") {
  kb::test::TempTree tree(std::string(KB_TEST_DATA) + "/repair/values");
  tree.write("gotchas/ambiguous-value.yaml",
             "title: T\nseverity: minor\nstatus: open\nsymptom: s\n"
             "applies_when: {config: {kv_transfr: {in: [none, disagregated]}}}\n");
  auto corpus = Corpus::load(tree.dir);
  RepairPlan plan = plan_repairs(*corpus);
  std::vector<std::string> fields;
  for (const auto& r : plan.repairs) {
    if (r.file == "gotchas/ambiguous-value.yaml") fields.push_back(r.field + " " + r.to);
  }
  CHECK(fields == std::vector<std::string>{"applies_when.config.kv_transfr kv_transfer",
                                           "applies_when.config.kv_transfr.in[1] disaggregated"});
  ApplyResult result = apply_repairs(*corpus, plan, "2026-10-04");
  CHECK(result.refused.empty());
  CHECK(tree.read("gotchas/ambiguous-value.yaml")
            .find("applies_when: {config: {kv_transfer: {in: [none, disaggregated]}}}\n") !=
        std::string::npos);
  auto again = Corpus::load(tree.dir);
  CHECK(errors_of(*again).empty());
}
