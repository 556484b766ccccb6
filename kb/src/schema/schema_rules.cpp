// Rules of one record the field table cannot state: an oracle runner's parameters depend
// on its kind (the runner table `kb oracle run` reads), and a result cannot list more
// failures than it counts.

#include "schema/schema_rules.h"

#include <charconv>
#include <cstdint>

#include "core/similarity.h"
#include "kb/diagnostic_codes.h"
#include "schema/runner_table.h"

namespace kb::schema {
namespace {

void runner_params(const yaml::Node& root, Validator& check) {
  const yaml::Node* runner = root.find("runner");
  if (runner == nullptr || !runner->is_map()) return;
  const yaml::Node* kind_node = runner->find("kind");
  const yaml::Node* params = runner->find("params");
  if (kind_node == nullptr || params == nullptr || !params->is_map()) return;
  const oracle::KindInfo* kind = oracle::find_kind(kind_node->value);
  if (kind == nullptr) return;  // the table's enum already said so
  for (const auto& [k, val] : params->entries) {
    const std::string field = "runner.params." + k.value;
    const oracle::ParamInfo* p = oracle::find_param(*kind, k.value);
    if (p == nullptr) {
      const std::vector<std::string> choices = oracle::param_names(*kind);
      std::string names;
      for (const auto& n : choices) names += (names.empty() ? "" : ", ") + n;
      const auto guess = did_you_mean(k.value, choices);
      check.error(
          diag_code("runner.unknown-param"), k.pos,
          field + ": " + std::string(kind->name) + " has no parameter '" + k.value + "'",
          (guess ? "did you mean '" + *guess + "'? " : std::string()) + "its parameters: " + names);
      continue;
    }
    if (!val.is_scalar()) continue;  // the table's scalar_map already said so
    if (std::string problem = oracle::check_value(*p, val.value); !problem.empty()) {
      check.error(diag_code("runner.bad-param"), val.pos, field + ": " + problem);
    }
  }
  const yaml::Node* isolation = params->find("isolation");
  auto given = [&](std::string_view name) -> const std::string* {
    const yaml::Node* v = params->find(name);
    return v && v->is_scalar() ? &v->value : nullptr;
  };
  if (std::string problem = oracle::check_params(given); !problem.empty() && isolation) {
    check.error(diag_code("runner.bad-param"), isolation->pos,
                "runner.params.isolation: " + problem,
                "e.g. {isolation: cache_salt, salt_field: cache_salt}");
  }
}

void failure_count(const yaml::Node& root, Validator& check) {
  const yaml::Node* f = root.find("failures");
  const yaml::Node* failed = root.find("failed");
  if (f == nullptr || !f->is_seq() || failed == nullptr || !failed->is_scalar()) return;
  std::int64_t n = 0;
  const std::string& s = failed->value;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return;  // the table said what is wrong
  if (static_cast<std::int64_t>(f->items.size()) <= n) return;
  check.error(diag_code("schema.inconsistent"), f->pos,
              "failures: " + std::to_string(f->items.size()) + " entries but failed is " + s,
              "each entry describes one of the `failed` comparisons");
}

}  // namespace

void check_rules(const yaml::Node& root, Kind k, Validator& check) {
  if (k == Kind::oracle) runner_params(root, check);
  if (k == Kind::result) failure_count(root, check);
}

}  // namespace kb::schema
