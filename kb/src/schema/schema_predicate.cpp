// The grammar of applies_when, in one place: checking a predicate as written
// (Validator::predicate) and reading a checked one into a Predicate (read_predicate).

#include <algorithm>

#include "core/similarity.h"
#include "core/text_util.h"
#include "kb/diagnostic_codes.h"
#include "kb/version.h"
#include "schema/schema_extract.h"
#include "schema/schema_validate.h"

namespace kb::schema {
namespace {

using yaml::CoreType;
using Node = yaml::Node;

const std::vector<std::string> kOps = {"all",      "any",        "not",     "engine",
                                       "config",   "config_set", "role",    "model",
                                       "hardware", "differs",    "compare", "any_service"};
constexpr int kMaxDepth = 32;

bool contains(const std::vector<std::string_view>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string list_of(const std::vector<std::string_view>& v) {
  std::string out;
  for (auto s : v) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

// `decode.tensor_parallel_size` -> ("decode", "tensor_parallel_size"); no role -> ("", s).
// A setting's key has no '.', so what stands before the first one is a role; which roles
// there are is the role record's to say, and the corpus lint checks it against them.
std::pair<std::string, std::string> split_operand(const std::string& s) {
  auto dot = s.find('.');
  if (dot != std::string::npos && dot > 0) return {s.substr(0, dot), s.substr(dot + 1)};
  return {"", s};
}

bool literal_scalar(const Node& v) {
  auto ct = yaml::core_type(v);
  return ct == CoreType::integer || ct == CoreType::floating || ct == CoreType::boolean;
}

}  // namespace

void Validator::predicate(const Node& v, const std::string& path, int depth) {
  if (!v.is_map() || v.entries.empty()) {
    error(diag_code("predicate.invalid"), v.pos,
          path +
              ": expected a mapping with one of all, any, not, engine, config, config_set, "
              "role, model, hardware, differs, compare, any_service",
          "e.g. {config: {prefix_caching: true}}");
    return;
  }
  if (depth > kMaxDepth) {
    error(diag_code("predicate.invalid"), v.pos, path + ": nested too deeply");
    return;
  }
  if (v.find("engine")) {
    static const Struct kEngineAtom = {"engine-atom",
                                       "",
                                       {Field{"engine",
                                              ValueType::reference,
                                              false,
                                              true,
                                              Kind::engine,
                                              {},
                                              nullptr,
                                              {},
                                              "",
                                              "vllm"},
                                        Field{"versions",
                                              ValueType::version_range,
                                              false,
                                              false,
                                              std::nullopt,
                                              {},
                                              nullptr,
                                              {},
                                              "",
                                              ""}},
                                       {}};
    object(v, kEngineAtom, path);
    return;
  }
  if (v.entries.size() != 1) {
    error(
        diag_code("predicate.invalid"), v.pos,
        path + ": a predicate has exactly one operator, found " + std::to_string(v.entries.size()),
        "combine several with `all: [...]`");
    return;
  }
  const auto& [k, val] = v.entries.front();
  const std::string op = k.is_scalar() ? k.value : std::string();
  const std::string here = path + "." + op;
  if (op == "all" || op == "any") {
    if (!val.is_seq() || val.items.empty()) {
      error(diag_code("predicate.invalid"), val.pos,
            here + ": expected a non-empty list of predicates");
      return;
    }
    for (std::size_t i = 0; i < val.items.size(); ++i) {
      predicate(val.items[i], here + "[" + std::to_string(i) + "]", depth + 1);
    }
  } else if (op == "not" || op == "any_service") {
    predicate(val, here, depth + 1);
  } else if (op == "config" || op == "model" || op == "hardware") {
    config_tests(val, here);
  } else if (op == "config_set") {
    if (!val.is_seq() || val.items.empty()) {
      error(diag_code("predicate.invalid"), val.pos,
            here + ": expected a non-empty list of settings", "e.g. {config_set: [kv_transfer]}");
      return;
    }
    for (std::size_t i = 0; i < val.items.size(); ++i) {
      const Node& item = val.items[i];
      if (!item.is_scalar() || blank(item)) {
        error(diag_code("predicate.invalid"), item.pos,
              here + "[" + std::to_string(i) + "]: expected a setting");
      }
    }
  } else if (op == "role") {
    if (val.is_seq()) {
      if (val.items.empty())
        error(diag_code("predicate.invalid"), val.pos, here + ": empty list of roles");
      for (std::size_t i = 0; i < val.items.size(); ++i) {
        role_value(val.items[i], here + "[" + std::to_string(i) + "]");
      }
    } else {
      role_value(val, here);
    }
  } else if (op == "differs") {
    if (val.is_map()) {
      static const Struct kDiffersEngine = {"differs-engine",
                                            "",
                                            {Field{"engine",
                                                   ValueType::reference,
                                                   false,
                                                   true,
                                                   Kind::engine,
                                                   {},
                                                   nullptr,
                                                   {},
                                                   "",
                                                   "vllm"}},
                                            {}};
      object(val, kDiffersEngine, here);
    } else if (val.is_seq()) {
      if (val.items.empty())
        error(diag_code("predicate.invalid"), val.pos, here + ": empty list of settings");
      for (const Node& item : val.items) {
        if (!item.is_scalar() || blank(item))
          error(diag_code("predicate.invalid"), item.pos, here + ": expected a setting");
      }
    } else if (!val.is_scalar() || blank(val)) {
      error(diag_code("predicate.invalid"), val.pos,
            here + ": expected a setting, a list of settings or {engine: E}");
    }
  } else if (op == "compare") {
    if (!val.is_seq() || val.items.size() != 3) {
      error(diag_code("predicate.invalid"), val.pos, here + ": expected [A, OP, B]",
            "e.g. {compare: [decode.tensor_parallel_size, \">\", num_kv_heads]}");
      return;
    }
    const Node& cmp = val.items[1];
    if (!cmp.is_scalar() || !contains(compare_operators(), cmp.value)) {
      error(diag_code("predicate.invalid"), cmp.pos,
            here + "[1]: expected one of " + list_of(compare_operators()), "quote it: \">\"");
    }
    operand(val.items[0], here + "[0]");
    operand(val.items[2], here + "[2]");
  } else {
    auto guess = did_you_mean(op, kOps);
    error(diag_code("predicate.unknown-operator"), k.pos, path + ": unknown operator '" + op + "'",
          guess ? "did you mean '" + *guess + "'?"
                : "one of all, any, not, engine, config, config_set, role, model, hardware, "
                  "differs, compare");
  }
}

// A role as written; whether the role record declares it is the corpus lint's to say.
void Validator::role_value(const Node& v, const std::string& path) {
  if (!v.is_scalar() || blank(v)) {
    error(diag_code("predicate.invalid"), v.pos, path + ": expected a role",
          "a value of settings/role, e.g. decode");
  }
}

void Validator::operand(const Node& v, const std::string& path) {
  if (v.is_map()) {
    const Node* lit = v.find("value");
    if (v.entries.size() != 1 || !lit || !lit->is_scalar()) {
      error(diag_code("predicate.invalid"), v.pos, path + ": a literal is written {value: X}");
    }
    return;
  }
  if (!v.is_scalar() || blank(v)) {
    error(diag_code("predicate.invalid"), v.pos,
          path + ": expected a setting, ROLE.setting or a literal");
  }
}

void Validator::config_tests(const Node& v, const std::string& path) {
  if (!v.is_map() || v.entries.empty()) {
    error(diag_code("predicate.invalid"), v.pos,
          path + ": expected a non-empty mapping of settings to values",
          "e.g. {config: {prefix_caching: true}}");
    return;
  }
  for (const auto& [k, val] : v.entries) {
    const std::string here = path + "." + (k.is_scalar() ? k.value : std::string("?"));
    if (!k.is_scalar() || blank(k)) {
      error(diag_code("schema.invalid-key"), k.pos, path + ": keys must be settings");
      continue;
    }
    if (val.is_null()) {
      error(diag_code("predicate.invalid"), val.pos, here + ": expected a value",
            "to test that a setting is set at all, use {config_set: [" + k.value + "]}");
      continue;
    }
    if (val.is_seq()) {
      error(diag_code("predicate.invalid"), val.pos, here + ": expected a value, found a list",
            "to match one of several values write {in: [A, B]}");
      continue;
    }
    if (val.is_scalar()) continue;
    // {OP: VALUE}
    if (val.entries.size() != 1 || !val.entries.front().first.is_scalar()) {
      error(diag_code("predicate.invalid"), val.pos,
            here + ": expected one comparison such as {in: [A, B]}");
      continue;
    }
    const auto& [opk, opv] = val.entries.front();
    if (!contains(config_operators(), opk.value)) {
      auto guess = did_you_mean(opk.value, {config_operators().begin(), config_operators().end()});
      error(diag_code("predicate.unknown-operator"), opk.pos,
            here + ": unknown comparison '" + opk.value + "'",
            guess ? "did you mean '" + *guess + "'?" : "one of " + list_of(config_operators()));
      continue;
    }
    if (opk.value == "in" || opk.value == "not_in") {
      if (!opv.is_seq() || opv.items.empty()) {
        error(diag_code("predicate.invalid"), opv.pos,
              here + "." + opk.value + ": expected a non-empty list");
        continue;
      }
      for (const Node& item : opv.items) {
        if (!item.is_scalar())
          error(diag_code("predicate.invalid"), item.pos,
                here + "." + opk.value + ": expected values");
      }
    } else if (!opv.is_scalar()) {
      error(diag_code("predicate.invalid"), opv.pos,
            here + "." + opk.value + ": expected a single value");
    }
  }
}

namespace {

RefValue ref_of(const Node& v, const std::string& field) {
  RefValue r;
  r.raw = v.is_scalar() ? v.value : std::string();
  r.field = field;
  r.pos = v.pos;
  return r;
}

Operand read_operand(const Node& v, const std::string& path) {
  Operand o;
  o.pos = v.pos;
  if (v.is_map()) {
    const Node* lit = v.find("value");
    o.is_literal = true;
    o.literal = lit && lit->is_scalar() ? lit->value : std::string();
    return o;
  }
  if (literal_scalar(v)) {
    o.is_literal = true;
    o.literal = v.value;
    return o;
  }
  auto [role, key] = split_operand(v.value);
  o.role = role;
  o.key = ref_of(v, path);
  o.key.raw = key;
  return o;
}

void read_tests(const Node& v, const std::string& path, Vec<ConfigTest>& out) {
  for (const auto& [k, val] : v.entries) {
    ConfigTest t;
    t.key = ref_of(k, path + "." + k.value);
    if (val.is_scalar()) {
      t.values.push_back(val.value);
      t.value_pos.push_back(val.pos);
    } else if (val.is_map() && !val.entries.empty()) {
      const auto& [opk, opv] = val.entries.front();
      t.op = opk.value;
      if (opv.is_seq()) {
        for (const Node& item : opv.items) {
          t.values.push_back(item.value);
          t.value_pos.push_back(item.pos);
        }
      } else {
        t.values.push_back(opv.value);
        t.value_pos.push_back(opv.pos);
      }
    }
    out.push_back(std::move(t));
  }
}

}  // namespace

Predicate read_predicate(const Node& v, const std::string& path) {
  Predicate p;
  p.pos = v.pos;
  if (const Node* e = v.find("engine")) {
    p.op = Predicate::Op::engine;
    p.engine = ref_of(*e, path);
    if (const Node* r = v.find("versions"); r && r->is_scalar()) {
      p.engine->versions = r->value;
      p.engine->versions_pos = r->pos;
    }
    return p;
  }
  if (v.entries.empty()) return p;
  const auto& [k, val] = v.entries.front();
  const std::string op = k.value;
  const std::string here = path + "." + op;
  if (op == "all" || op == "any") {
    p.op = op == "all" ? Predicate::Op::all : Predicate::Op::any;
    for (std::size_t i = 0; i < val.items.size(); ++i) {
      p.children.push_back(read_predicate(val.items[i], here + "[" + std::to_string(i) + "]"));
    }
  } else if (op == "not") {
    p.op = Predicate::Op::negate;
    p.children.push_back(read_predicate(val, here));
  } else if (op == "any_service") {
    p.op = Predicate::Op::any_service;
    p.children.push_back(read_predicate(val, here));
  } else if (op == "config" || op == "model" || op == "hardware") {
    p.op = Predicate::Op::config;
    p.scope = op == "config" ? "" : op;
    read_tests(val, here, p.config);
  } else if (op == "config_set") {
    p.op = Predicate::Op::config_set;
    for (std::size_t i = 0; i < val.items.size(); ++i) {
      p.keys.push_back(ref_of(val.items[i], here + "[" + std::to_string(i) + "]"));
    }
  } else if (op == "role") {
    p.op = Predicate::Op::role;
    if (val.is_seq()) {
      for (const Node& item : val.items) {
        p.roles.push_back(item.value);
        p.role_pos.push_back(item.pos);
      }
    } else {
      p.roles.push_back(val.value);
      p.role_pos.push_back(val.pos);
    }
  } else if (op == "differs") {
    p.op = Predicate::Op::differs;
    if (val.is_map()) {
      if (const Node* e = val.find("engine")) p.engine = ref_of(*e, here + ".engine");
    } else if (val.is_seq()) {
      for (std::size_t i = 0; i < val.items.size(); ++i) {
        p.keys.push_back(ref_of(val.items[i], here + "[" + std::to_string(i) + "]"));
      }
    } else {
      p.keys.push_back(ref_of(val, here));
    }
  } else if (op == "compare") {
    p.op = Predicate::Op::compare;
    p.compare.emplace();
    if (val.items.size() == 3) {
      p.compare->left = read_operand(val.items[0], here + "[0]");
      p.compare->cmp = val.items[1].value;
      p.compare->right = read_operand(val.items[2], here + "[2]");
    }
  }
  return p;
}

}  // namespace kb::schema
