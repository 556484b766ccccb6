#include "check_predicate.h"

#include <algorithm>

#include "text_util.h"

namespace kb::check {
namespace {

using Op = Predicate::Op;

Truth negate(Truth t) {
  return static_cast<Truth>(2 - static_cast<int>(t));
}

// The best truth any deployed instance gives the engine atom, and that instance.
Truth eval_engine(const Node& n, const Env& env, const Instance** which) {
  if (which) *which = nullptr;
  if (n.engine < 0 || static_cast<std::size_t>(n.engine) >= env.by_slot.size()) return Truth::no;
  Truth best = Truth::no;
  for (const Instance& inst : env.by_slot[static_cast<std::size_t>(n.engine)]) {
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

const std::pair<const Setting*, std::string>* setting(const Env& env, const std::string& key) {
  auto it = env.config.find(key);
  return it == env.config.end() ? nullptr : &it->second;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

// A compact rendering of a predicate, for the `why` of a negation that held.
std::string describe(const Node& n) {
  std::vector<std::string> parts;
  switch (n.op) {
    case Op::engine:
      return "engine " + n.engine_name + (n.range_text.empty() ? "" : " " + n.range_text);
    case Op::config:
      for (const auto& [k, v] : n.config) parts.push_back(k + " = " + v);
      return "config " + join(parts, ", ");
    case Op::config_set:
      return "config " + join(n.keys, ", ") + " set";
    case Op::negate:
      return "not (" + (n.children.empty() ? std::string() : describe(n.children.front())) + ")";
    case Op::all:
    case Op::any:
      for (const auto& c : n.children) parts.push_back(describe(c));
      return std::string(n.op == Op::all ? "all of (" : "any of (") + join(parts, "; ") + ")";
  }
  return {};
}

void note_pos(Pos& pos, Pos at) {
  if (pos.line == 0) pos = at;
}

void push_unique(std::vector<std::string>& why, std::string line) {
  if (std::find(why.begin(), why.end(), line) == why.end()) why.push_back(std::move(line));
}

}  // namespace

std::string canonical_value(std::string_view v) {
  std::string lowered = text::lower(v);
  if (lowered == "true" || lowered == "false") return lowered;
  return std::string(v);
}

Truth eval(const Node& n, const Env& env) {
  switch (n.op) {
    case Op::all: {
      // An empty conjunction only comes from a predicate lint already rejected; it must
      // not make the gotcha apply to every deployment.
      if (n.children.empty()) return Truth::no;
      Truth t = Truth::yes;
      for (const Node& c : n.children) {
        t = std::min(t, eval(c, env));
        if (t == Truth::no) break;
      }
      return t;
    }
    case Op::any: {
      Truth t = Truth::no;
      for (const Node& c : n.children) {
        t = std::max(t, eval(c, env));
        if (t == Truth::yes) break;
      }
      return t;
    }
    case Op::negate:
      return n.children.size() == 1 ? negate(eval(n.children.front(), env)) : Truth::no;
    case Op::engine:
      return eval_engine(n, env, nullptr);
    case Op::config:
      if (n.config.empty()) return Truth::no;
      for (const auto& [key, value] : n.config) {
        const auto* s = setting(env, key);
        if (!s || s->second != value) return Truth::no;
      }
      return Truth::yes;
    case Op::config_set:
      if (n.keys.empty()) return Truth::no;
      for (const auto& key : n.keys) {
        if (!setting(env, key)) return Truth::no;
      }
      return Truth::yes;
  }
  return Truth::no;
}

void explain(const Node& n, const Env& env, std::vector<std::string>& why, Pos& pos) {
  switch (n.op) {
    case Op::all:
      for (const Node& c : n.children) explain(c, env, why, pos);
      return;
    case Op::any:
      for (const Node& c : n.children) {
        if (eval(c, env) != Truth::no) explain(c, env, why, pos);
      }
      return;
    case Op::negate:
      push_unique(why, "not (" + describe(n.children.front()) + ")");
      return;
    case Op::engine: {
      const Instance* inst = nullptr;
      eval_engine(n, env, &inst);
      if (!inst) return;
      const DeployedEngine& e = *inst->engine;
      note_pos(pos, e.pos);
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
      push_unique(why, std::move(line));
      return;
    }
    case Op::config:
      for (const auto& [key, value] : n.config) {
        const auto* s = setting(env, key);
        if (!s) continue;
        note_pos(pos, s->first->pos);
        push_unique(why, "config " + key + " = " + s->first->value);
      }
      return;
    case Op::config_set:
      for (const auto& key : n.keys) {
        const auto* s = setting(env, key);
        if (!s) continue;
        note_pos(pos, s->first->pos);
        push_unique(why, "config " + key + " is set");
      }
      return;
  }
}

}  // namespace kb::check
