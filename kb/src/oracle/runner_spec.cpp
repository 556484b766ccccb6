// The runner kinds, their parameters and defaults, and reading an oracle record's
// `runner:` (already checked by lint) into a RunnerSpec.

#include <cctype>
#include <charconv>

#include "core/similarity.h"
#include "kb/error.h"
#include "kb/oracle.h"
#include "schema/runner_table.h"

namespace kb::oracle {
namespace {

bool is_none(std::string_view v) {
  return v.empty() || v == "none";
}

int to_int(std::string_view v) {
  int out = 0;
  std::from_chars(v.data(), v.data() + v.size(), out);
  return out;
}

// Stores a value check_value() accepted.
void apply(RunnerSpec& spec, const ParamInfo& p, std::string_view v) {
  const std::string_view n = p.name;
  if (n == "max_tokens")
    spec.max_tokens = to_int(v);
  else if (n == "trials")
    spec.trials = to_int(v);
  else if (n == "warm_runs")
    spec.warm_runs = to_int(v);
  else if (n == "token_ids_field")
    spec.token_ids_field = is_none(v) ? "" : std::string(v);
  else if (n == "salt_field")
    spec.salt_field = is_none(v) ? "" : std::string(v);
  else if (n == "determinism_check")
    spec.determinism_check = v == "true";
  else if (n == "isolation") {
    spec.isolation = v == "cache_salt" ? Isolation::cache_salt
                     : v == "nonce"    ? Isolation::nonce
                                       : Isolation::none;
  }
}

// The RunnerKind the table's kind names.
RunnerKind kind_of(const KindInfo& info) {
  for (RunnerKind k : {RunnerKind::monolithic_equivalence, RunnerKind::cold_vs_warm}) {
    if (to_string(k) == info.name) return k;
  }
  throw Error(Errc::internal, "runner kind '" + std::string(info.name) + "' has no runner");
}

RunnerSpec defaults(RunnerKind kind) {
  RunnerSpec s;
  s.kind = kind;
  // A nonce works on every server; the record can ask for the server's own field.
  s.isolation = kind == RunnerKind::cold_vs_warm ? Isolation::nonce : Isolation::none;
  return s;
}

}  // namespace

std::string_view to_string(RunnerKind k) {
  return k == RunnerKind::cold_vs_warm ? "cold-vs-warm" : "monolithic-equivalence";
}

std::string_view to_string(Isolation i) {
  switch (i) {
    case Isolation::cache_salt:
      return "cache_salt";
    case Isolation::nonce:
      return "nonce";
    case Isolation::none:
      break;
  }
  return "none";
}

std::string RunnerSpec::describe() const {
  std::string s = std::string(to_string(kind)) + ": max_tokens=" + std::to_string(max_tokens) +
                  ", trials=" + std::to_string(trials);
  if (kind == RunnerKind::cold_vs_warm) s += ", warm_runs=" + std::to_string(warm_runs);
  s += ", isolation=" + std::string(to_string(isolation));
  if (isolation == Isolation::cache_salt) s += ", salt_field=" + salt_field;
  s += ", token_ids_field=" + (token_ids_field.empty() ? std::string("none") : token_ids_field);
  s += std::string(", determinism_check=") + (determinism_check ? "true" : "false");
  return s;
}

RunnerSpec runner_spec(const Record& oracle) {
  if (!oracle.runner) {
    throw Error(Errc::invalid_argument,
                oracle.id + " has no runner: kb cannot run it (add `runner: {kind: " +
                    kind_names().front() + "}` to its record, or run it by hand and use " +
                    "`kb results import`)");
  }
  const KindInfo* kind = find_kind(oracle.runner->kind);
  if (kind == nullptr) {
    throw Error(Errc::invalid_argument,
                oracle.id + ": unknown runner kind '" + oracle.runner->kind + "' (run `kb lint`)");
  }
  RunnerSpec spec = defaults(kind_of(*kind));
  try {
    for (const auto& [name, value] : oracle.runner->params) set_param(spec, name, value);
    check_spec(spec);
  } catch (const Error& e) {
    throw Error(Errc::invalid_argument, oracle.id + ": " + e.what() + " (run `kb lint`)");
  }
  return spec;
}

void check_spec(const RunnerSpec& spec) {
  const std::string isolation(to_string(spec.isolation));
  const std::string salt_field = spec.salt_field.empty() ? "none" : spec.salt_field;
  auto param = [&](std::string_view name) -> const std::string* {
    if (name == "isolation") return &isolation;
    if (name == "salt_field") return &salt_field;
    return nullptr;
  };
  if (std::string problem = check_params(param); !problem.empty())
    throw Error(Errc::invalid_argument, problem);
}

void set_param(RunnerSpec& spec, std::string_view name, std::string_view value) {
  const KindInfo* kind = find_kind(to_string(spec.kind));
  const ParamInfo* p = kind != nullptr ? find_param(*kind, name) : nullptr;
  if (p == nullptr) {
    std::string msg = "runner " + std::string(to_string(spec.kind)) + " has no parameter '" +
                      std::string(name) + "'";
    auto names = kind != nullptr ? param_names(*kind) : std::vector<std::string>{};
    if (auto guess = did_you_mean(name, names)) msg += "; did you mean '" + *guess + "'?";
    throw Error(Errc::invalid_argument, msg);
  }
  if (std::string problem = check_value(*p, value); !problem.empty()) {
    throw Error(Errc::invalid_argument, std::string(name) + ": " + problem);
  }
  apply(spec, *p, value);
}

}  // namespace kb::oracle
