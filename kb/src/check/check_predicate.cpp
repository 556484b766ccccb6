#include "check/check_predicate.h"

#include <algorithm>

#include "check/check_cross_roles.h"
#include "corpus/vocab.h"
#include "kb/text.h"

namespace kb::check {
namespace {

using Op = Predicate::Op;

Truth negate(Truth t) {
  return static_cast<Truth>(2 - static_cast<int>(t));
}

// The best truth any deployed instance gives the engine atom, and that instance.
Truth eval_engine(const Node& n, const ServiceEnv& s, const Instance** which) {
  if (which) *which = nullptr;
  if (n.engine < 0 || static_cast<std::size_t>(n.engine) >= s.by_slot.size()) return Truth::no;
  Truth best = Truth::no;
  for (const Instance& inst : s.by_slot[static_cast<std::size_t>(n.engine)]) {
    Truth t = Truth::yes;
    if (n.bad_range || (n.range && !inst.version))
      t = Truth::maybe;
    else if (n.range && !n.range->contains(*inst.version))
      t = Truth::no;
    if (t > best) {
      best = t;
      if (which) *which = &inst;
      if (t == Truth::yes) break;
    }
  }
  return best;
}

bool holds(const Test& t, const std::string& value) {
  if (!t.setting) return false;
  const SettingDef& def = t.setting->setting;
  if (t.op == "eq" || t.op == "in") {
    return std::any_of(t.values.begin(), t.values.end(),
                       [&](const std::string& v) { return v == value; });
  }
  if (t.op == "ne" || t.op == "not_in") {
    return std::none_of(t.values.begin(), t.values.end(),
                        [&](const std::string& v) { return v == value; });
  }
  return !t.values.empty() && compare_values(def, value, t.op, t.values.front());
}

Truth eval_test(const Test& t, const Env& env, const ServiceEnv& s) {
  Value v = effective(env, s, t.key, t.setting);
  if (v.maybe && !v.one_of.empty()) {
    // One of a few values: the test decides when it holds for all of them, or for none.
    const auto n = std::count_if(v.one_of.begin(), v.one_of.end(),
                                 [&](const std::string& x) { return holds(t, x); });
    if (n == 0) return Truth::no;
    return static_cast<std::size_t>(n) == v.one_of.size() ? Truth::yes : Truth::maybe;
  }
  if (v.maybe) return Truth::maybe;
  if (!v.value) return Truth::no;
  const bool among = t.op == "eq" || t.op == "in";
  if (v.from && !v.from->parts.empty() && (among || t.op == "ne" || t.op == "not_in")) {
    // Several at once: among some values when it or a part is; not among them when
    // neither it nor any part is.
    bool r = holds(t, *v.value);
    for (const std::string& part : v.from->parts)
      r = among ? (r || holds(t, part)) : (r && holds(t, part));
    return r ? Truth::yes : Truth::no;
  }
  return holds(t, *v.value) ? Truth::yes : Truth::no;
}

template <class List>
std::string join(const List& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

std::string test_text(const Test& t) {
  if (t.op == "eq") return t.key + " = " + (t.values.empty() ? "" : t.values.front());
  if (t.op == "in" || t.op == "not_in")
    return t.key + " " + t.op + " [" + join(t.values, ", ") + "]";
  static const std::pair<std::string_view, std::string_view> kSym[] = {
      {"ne", "!="}, {"gt", ">"}, {"gte", ">="}, {"lt", "<"}, {"lte", "<="}};
  std::string sym = t.op;
  for (auto [op, s] : kSym) {
    if (op == t.op) sym = std::string(s);
  }
  return t.key + " " + sym + " " + (t.values.empty() ? "" : t.values.front());
}

std::string side_text(const Side& s) {
  if (s.literal) return s.value;
  return s.role.empty() ? s.key : s.role + "." + s.key;
}

void push_unique(std::vector<Why>& out, Why w) {
  auto same = [&](const Why& x) {
    return x.text == w.text && x.file == w.file && x.pos.line == w.pos.line;
  };
  if (std::none_of(out.begin(), out.end(), same)) out.push_back(std::move(w));
}

const std::string& file_of(const ServiceEnv& s, const std::string& own) {
  return own.empty() ? s.service->file : own;
}

// Where a setting's value came from, as a reason line.
Why value_why(const Env& env, const ServiceEnv& s, const std::string& key, const Value& v) {
  // Which service, when there is more than one to tell apart.
  const std::string who =
      s.service->name.empty() || env.services.size() < 2 ? "" : " on " + s.service->name;
  if (v.from && v.from->runtime && !v.from->one_of.empty()) {
    std::string values;
    for (const std::string& x : v.from->one_of) values += (values.empty() ? "" : " or ") + x;
    return {key + " is " + values + who + ", which the input does not decide (" + v.from->via + ")",
            file_of(s, v.from->file), v.from->pos, v.from->end};
  }
  if (v.from && v.from->runtime) {
    return {key + " is set when the service starts" + who + ", to a value not in the input (" +
                v.from->via + ")",
            file_of(s, v.from->file), v.from->pos, v.from->end};
  }
  if (v.from) {
    std::string text = key + " = " + v.from->value + who;
    if (!v.from->parts.empty()) {
      std::string parts;
      for (const std::string& x : v.from->parts) parts += (parts.empty() ? "" : ", ") + x;
      text += " (its parts: " + parts + ")";
    }
    if (!v.from->via.empty()) text += " (" + v.from->via + ")";
    return {text, file_of(s, v.from->file), v.from->pos, v.from->end};
  }
  if (v.by_default && v.derived) {
    const DeployedEngine& e = *v.by_default->engine;
    return {key + who + " is worked out by " + std::string(text::id_slug(e.id)) +
                " when it starts, from " + v.derived->derived.str() +
                ": the input does not state it (stating it, or --set " + key +
                "=VALUE, would decide it)",
            file_of(s, e.file), e.version_pos.line ? e.version_pos : e.pos, e.end};
  }
  if (v.by_default) {
    const DeployedEngine& e = *v.by_default->engine;
    std::string text = key + " = " + v.value.value_or("?") + who + " (the default of " +
                       std::string(text::id_slug(e.id)) +
                       (e.version.empty() ? "" : " " + e.version) + ")";
    return {text, file_of(s, e.file), e.version_pos.line ? e.version_pos : e.pos, e.end};
  }
  if (!v.unknown.empty()) {
    return {key + who + " " + v.unknown, s.service->file, s.service->pos};
  }
  return {key + " may be set by a default that depends on the version" + who, s.service->file,
          s.service->pos};
}

}  // namespace

Value effective(const Env& env, const ServiceEnv& s, const std::string& key,
                const Record* setting) {
  Value v;
  auto it = s.config.find(key);
  if (it != s.config.end()) {
    v.from = it->second;
    if (it->second->runtime) {
      v.maybe = true;
      v.one_of = it->second->one_of;
    } else {
      v.value = it->second->value;
    }
    return v;
  }
  if (!setting || !env.vocab) return v;
  // What the requests do is not in the deployment: unstated, it is unknown.
  if (setting->setting->scope == setting_scope::kTraffic) {
    v.maybe = true;
    v.unknown =
        "is a property of the requests the deployment does not state; it applies if "
        "your traffic has it";
    return v;
  }
  // A model's traits come from its record. A model the deployment does not name (or
  // names only at run time), one no record matches, or a trait its record does not
  // state: the model may have it. Unknown, never false.
  if (setting->setting->scope == setting_scope::kModel) {
    v.maybe = true;
    if (s.service->model.empty()) {
      v.unknown = "is a trait of the model, which the deployment does not name";
    } else if (s.service->model_record.empty()) {
      v.unknown = "is a trait of the model " + s.service->model +
                  ", which no model record describes (a record under records/models/ "
                  "matching it, or --set " +
                  key + "=VALUE, would decide it)";
    } else {
      v.unknown = "is a trait of the model " + s.service->model + " that " +
                  s.service->model_record + " does not state (stating it there, or --set " + key +
                  "=VALUE, would decide it)";
    }
    return v;
  }
  // A hardware trait another hardware setting's value implies (gb10 is unified memory):
  // with that setting not stated, the trait is unknown, never false.
  if (setting->setting->scope == setting_scope::kHardware) {
    for (const Record* by : env.vocab->implied_by(key)) {
      if (by->setting->scope != setting_scope::kHardware) continue;
      if (s.config.count(by->setting->key.str())) continue;
      v.maybe = true;
      v.unknown = "follows from " + by->setting->key.str() +
                  ", which the deployment does not state (--set " + by->setting->key.str() +
                  "=VALUE would decide it)";
      return v;
    }
  }
  for (const Instance* inst : s.instances) {
    DefaultValue d =
        env.vocab->default_for(*setting, inst->engine->id, inst->version, s.service->role);
    if (d.value) {
      v.value = d.value;
      v.by_default = inst;
      return v;
    }
    if (d.uncertain || d.derived) {
      v.maybe = true;
      v.by_default = inst;
      v.derived = d.derived ? d.from : nullptr;
      return v;
    }
  }
  return v;
}

std::string describe(const Node& n) {
  std::vector<std::string> parts;
  switch (n.op) {
    case Op::engine:
      return "engine " + n.engine_name + (n.range_text.empty() ? "" : " " + n.range_text);
    case Op::config:
      for (const auto& t : n.tests) parts.push_back(test_text(t));
      return "config " + join(parts, ", ");
    case Op::config_set:
      for (const auto& t : n.keys) parts.push_back(t.key);
      return "config " + join(parts, ", ") + " set";
    case Op::role:
      return "role " + join(n.roles, " or ");
    case Op::differs:
      if (n.engine >= 0 || !n.engine_name.empty())
        return "prefill and decode run different " + n.engine_name + " versions";
      for (const auto& t : n.keys) parts.push_back(t.key);
      return "prefill and decode differ in " + join(parts, ", ");
    case Op::compare:
      return side_text(n.compare->left) + " " + n.compare->cmp + " " + side_text(n.compare->right);
    case Op::negate:
      return "not (" + (n.children.empty() ? std::string() : describe(n.children.front())) + ")";
    case Op::any_service:
      return "some service of the deployment has (" +
             (n.children.empty() ? std::string() : describe(n.children.front())) + ")";
    case Op::all:
    case Op::any:
      for (const auto& c : n.children) parts.push_back(describe(c));
      return std::string(n.op == Op::all ? "all of (" : "any of (") + join(parts, "; ") + ")";
  }
  return {};
}

Truth eval(const Node& n, const Env& env, const ServiceEnv& s) {
  switch (n.op) {
    case Op::all: {
      // An empty conjunction only comes from a predicate lint already rejected; it must
      // not make the gotcha apply to every deployment.
      if (n.children.empty()) return Truth::no;
      Truth t = Truth::yes;
      for (const Node& c : n.children) {
        t = std::min(t, eval(c, env, s));
        if (t == Truth::no) break;
      }
      return t;
    }
    case Op::any: {
      Truth t = Truth::no;
      for (const Node& c : n.children) {
        t = std::max(t, eval(c, env, s));
        if (t == Truth::yes) break;
      }
      return t;
    }
    case Op::negate:
      return n.children.size() == 1 ? negate(eval(n.children.front(), env, s)) : Truth::no;
    case Op::any_service: {
      if (n.children.size() != 1) return Truth::no;
      Truth t = Truth::no;
      for (const ServiceEnv& other : env.services) {
        if (!same_graph(other, s)) continue;
        t = std::max(t, eval(n.children.front(), env, other));
        if (t == Truth::yes) break;
      }
      return t;
    }
    case Op::engine:
      return eval_engine(n, s, nullptr);
    case Op::config: {
      if (n.tests.empty()) return Truth::no;
      Truth t = Truth::yes;
      for (const Test& test : n.tests) {
        t = std::min(t, eval_test(test, env, s));
        if (t == Truth::no) break;
      }
      return t;
    }
    case Op::config_set:
      if (n.keys.empty()) return Truth::no;
      for (const auto& k : n.keys) {
        if (!s.config.count(k.key)) return Truth::no;
      }
      return Truth::yes;
    case Op::role:
      return std::find(n.roles.begin(), n.roles.end(), s.service->role) != n.roles.end()
                 ? Truth::yes
                 : Truth::no;
    case Op::differs: {
      if (!n.engine_name.empty()) return differs_engine(n, env, s);
      Truth t = Truth::no;
      for (const Test& k : n.keys) t = std::max(t, differs_key(k, env, s));
      return t;
    }
    case Op::compare:
      return eval_compare(n, env, s);
  }
  return Truth::no;
}

void explain(const Node& n, const Env& env, const ServiceEnv& s, std::vector<Why>& out) {
  switch (n.op) {
    case Op::all:
      for (const Node& c : n.children) explain(c, env, s, out);
      return;
    case Op::any:
      for (const Node& c : n.children) {
        if (eval(c, env, s) != Truth::no) explain(c, env, s, out);
      }
      return;
    case Op::negate:
      push_unique(out, {"not (" + describe(n.children.front()) + ")", s.service->file, {}});
      return;
    case Op::any_service:
      // The facts of each service that makes it hold, with their lines.
      if (n.children.size() != 1) return;
      for (const ServiceEnv& other : env.services) {
        if (!same_graph(other, s) || eval(n.children.front(), env, other) == Truth::no) continue;
        push_unique(out, {"service '" + other.service->name + "' has (" +
                              describe(n.children.front()) + ")",
                          other.service->file, other.service->pos});
        explain(n.children.front(), env, other, out);
      }
      return;
    case Op::engine: {
      const Instance* inst = nullptr;
      eval_engine(n, s, &inst);
      if (!inst) return;
      const DeployedEngine& e = *inst->engine;
      std::string line = "engine " + n.engine_name;
      if (n.bad_range) {
        line += (e.version.empty() ? "" : " " + e.version) + " (the record's range '" +
                n.range_text + "' does not parse)";
      } else if (!n.range) {
        line += e.version.empty() ? "" : " " + e.version;
      } else if (inst->version) {
        line += " " + e.version + " in " + n.range_text;
      } else {
        line += (e.version.empty() ? std::string(" (version not given)")
                                   : " (version '" + e.version + "' does not parse)") +
                " may be in " + n.range_text;
      }
      if (!e.via.empty()) line += " (" + e.via + ")";
      push_unique(out, {line, file_of(s, e.file), e.pos, e.end});
      return;
    }
    case Op::config:
      for (const Test& t : n.tests) {
        Value v = effective(env, s, t.key, t.setting);
        if (!v.value && !v.maybe) continue;
        push_unique(out, value_why(env, s, t.key, v));
      }
      return;
    case Op::config_set:
      for (const auto& k : n.keys) {
        auto it = s.config.find(k.key);
        if (it == s.config.end()) continue;
        Value v;
        v.value = it->second->value;
        v.from = it->second;
        push_unique(out, value_why(env, s, k.key, v));
      }
      return;
    case Op::role: {
      // The fact that gave the role, when one did; else the service itself.
      const Setting* role = s.service->find(service_role::kKey);
      std::string text = "service " +
                         (s.service->name.empty() ? std::string("(the deployment)")
                                                  : "'" + s.service->name + "'") +
                         " has role " + s.service->role;
      if (role && !role->via.empty()) text += " (" + role->via + ")";
      if (role && role->pos.line > 0) {
        push_unique(out, {text, file_of(s, role->file), role->pos, role->end});
      } else {
        push_unique(out, {text, s.service->file, s.service->pos});
      }
      return;
    }
    case Op::differs:
    case Op::compare: {
      push_unique(out, {describe(n), s.service->file, {}});
      // The facts on each side, with their lines.
      std::vector<std::pair<std::string, Test>> sides;
      if (n.op == Op::compare) {
        for (const Side* side : {&n.compare->left, &n.compare->right}) {
          if (side->literal) continue;
          Test t;
          t.key = side->key;
          t.setting = side->setting;
          sides.emplace_back(side->role, t);
        }
      } else {
        for (const auto& k : n.keys) {
          sides.emplace_back(service_role::kPrefill, k);
          sides.emplace_back(service_role::kDecode, k);
        }
      }
      for (const auto& [role, t] : sides) {
        std::vector<const ServiceEnv*> where;
        if (role.empty())
          where.push_back(&s);
        else
          where = with_role(env, role, &s);
        for (const ServiceEnv* x : where) {
          Value v = effective(env, *x, t.key, t.setting);
          if (v.value || v.maybe) push_unique(out, value_why(env, *x, t.key, v));
        }
      }
      if (n.op == Op::differs && !n.engine_name.empty()) {
        for (std::string_view role : {service_role::kPrefill, service_role::kDecode}) {
          for (const ServiceEnv* x : with_role(env, role, &s)) {
            if (n.engine < 0 || static_cast<std::size_t>(n.engine) >= x->by_slot.size()) continue;
            for (const Instance& inst : x->by_slot[static_cast<std::size_t>(n.engine)]) {
              const DeployedEngine& e = *inst.engine;
              push_unique(out, {std::string(role) + " runs " + n.engine_name + " " +
                                    (e.version.empty() ? "(version not given)" : e.version),
                                file_of(*x, e.file), e.version_pos.line ? e.version_pos : e.pos});
            }
          }
        }
      }
      return;
    }
  }
}

}  // namespace kb::check
