// What a predicate says across the services of one serving graph: the services of a
// role, whether prefill and decode differ in a setting or an engine's version, and
// `compare` of values on two sides (check_predicate.cpp evaluates the rest).

#include "check/check_cross_roles.h"

#include <algorithm>

#include "corpus/vocab.h"
#include "kb/text.h"
#include "schema/setting_values.h"

namespace kb::check {
namespace {

// The image reference an engine of unknown version was read from, or that ships it
// besides the command naming it (`...; shipped by image REF`); empty: none.
std::string_view image_ref(std::string_view via) {
  constexpr std::string_view kShipped = "; shipped by image ";
  if (via.starts_with("image ")) {
    via.remove_prefix(6);
  } else if (auto at = via.find(kShipped); at != std::string_view::npos) {
    via.remove_prefix(at + kShipped.size());
  } else {
    return {};
  }
  return via.substr(0, via.find_first_of(" ;"));
}

// Whether two engines of unknown version are one build: from one image reference, written
// the same way (whatever the tag hides), or run by services of one file that names no
// image at all (one installation: a script's prefill and decode `vllm serve` and the NIXL
// their connector loads; a Ray Serve application's prefill and decode configs, which run
// on one Ray cluster's Python environment).
bool same_build(const Instance& a, const ServiceEnv& sa, const Instance& b, const ServiceEnv& sb) {
  const std::string_view ref = image_ref(a.engine->via);
  if (!ref.empty()) return ref == image_ref(b.engine->via);
  const auto imageless = [](const ServiceEnv& s) {
    if (!s.service || s.service->file.empty()) return false;
    const auto& engines = s.service->engines;
    return std::any_of(engines.begin(), engines.end(),
                       [](const DeployedEngine& e) {
                         return e.via.starts_with("command ") || e.via.starts_with("values ");
                       }) &&
           std::none_of(engines.begin(), engines.end(),
                        [](const DeployedEngine& e) { return !image_ref(e.via).empty(); });
  };
  return imageless(sa) && imageless(sb) && sa.service->file == sb.service->file;
}

}  // namespace

// The services of a role; with `near`, only those of its serving graph (services read
// together but not joined do not pair).
std::vector<const ServiceEnv*> with_role(const Env& env, std::string_view role,
                                         const ServiceEnv* near) {
  std::vector<const ServiceEnv*> out;
  for (const auto& s : env.services) {
    if (s.service->role != role) continue;
    if (near && s.service->group != near->service->group) continue;
    out.push_back(&s);
  }
  return out;
}

bool same_graph(const ServiceEnv& a, const ServiceEnv& b) {
  return a.service->group == b.service->group;
}

// prefill vs decode for one setting, within the serving graph of `s`: yes when some pair differs (a
// value against no value counts), maybe when a default is uncertain.
Truth differs_key(const Test& k, const Env& env, const ServiceEnv& s) {
  Truth best = Truth::no;
  for (const ServiceEnv* p : with_role(env, service_role::kPrefill, &s)) {
    for (const ServiceEnv* d : with_role(env, service_role::kDecode)) {
      if (!same_graph(*p, *d)) continue;
      Value a = effective(env, *p, k.key, k.setting);
      Value b = effective(env, *d, k.key, k.setting);
      // A hardware trait neither side states, for the same reason (no GPU named on
      // either): unknown on both, but nothing says the two sides differ.
      if (a.maybe && b.maybe && !a.from && !b.from && !a.unknown.empty() &&
          a.unknown == b.unknown && k.setting &&
          k.setting->setting->scope == setting_scope::kHardware)
        continue;
      // Both sides given one run-time value written the same way in one script
      // (`--attention-backend $BACKEND` on each): whatever it is, it is the same. Not a
      // command substitution, which runs once per process.
      if (a.from && b.from && a.from->runtime && b.from->runtime && !a.from->file.empty() &&
          a.from->file == b.from->file && !a.from->raw_value.empty() &&
          a.from->raw_value == b.from->raw_value &&
          a.from->raw_value.find("$(") == std::string::npos &&
          a.from->raw_value.find('`') == std::string::npos)
        continue;
      // Both sides left to one engine's choice at start-up (the same engine and version):
      // the rule is the same, so the sides differ only through its inputs, which are
      // settings of their own (a GPU, a dtype) that a predicate compares itself.
      if (a.derived && b.derived && a.by_default && b.by_default &&
          a.by_default->engine->id == b.by_default->engine->id &&
          a.by_default->engine->version == b.by_default->engine->version)
        continue;
      if (a.maybe || b.maybe) {
        best = std::max(best, Truth::maybe);
      } else if (a.value != b.value) {
        return Truth::yes;
      }
    }
  }
  return best;
}

Truth differs_engine(const Node& n, const Env& env, const ServiceEnv& s) {
  if (n.engine < 0) return Truth::no;
  const auto slot = static_cast<std::size_t>(n.engine);
  Truth best = Truth::no;
  for (const ServiceEnv* p : with_role(env, service_role::kPrefill, &s)) {
    for (const ServiceEnv* d : with_role(env, service_role::kDecode)) {
      if (!same_graph(*p, *d)) continue;
      if (slot >= p->by_slot.size() || slot >= d->by_slot.size()) continue;
      for (const Instance& a : p->by_slot[slot]) {
        for (const Instance& b : d->by_slot[slot]) {
          if (!a.version || !b.version) {
            if (!a.version && !b.version && same_build(a, *p, b, *d)) continue;
            best = std::max(best, Truth::maybe);
          } else if (!(*a.version == *b.version)) {
            return Truth::yes;
          }
        }
      }
    }
  }
  return best;
}

namespace {

// The values one side of a compare takes: a literal, this service's value, or the values
// of every service of a role. `maybe` is set when one of them is uncertain.
std::vector<std::string> side_values(const Side& side, const Env& env, const ServiceEnv& s,
                                     bool& maybe) {
  if (side.literal) return {side.value};
  std::vector<std::string> out;
  auto add = [&](const ServiceEnv& x) {
    Value v = effective(env, x, side.key, side.setting);
    if (v.maybe) maybe = true;
    if (v.value) out.push_back(*v.value);
  };
  if (side.role.empty()) {
    add(s);
  } else {
    for (const ServiceEnv* x : with_role(env, side.role, &s)) add(*x);
  }
  return out;
}

std::string compare_op(std::string_view cmp) {
  if (cmp == "==") return "eq";
  if (cmp == "!=") return "ne";
  if (cmp == "<") return "lt";
  if (cmp == "<=") return "lte";
  if (cmp == ">") return "gt";
  return "gte";
}

// The settings record that decides how the two sides compare.
SettingDef compare_def(const Node& n) {
  if (n.compare->left.setting) return n.compare->left.setting->setting;
  if (n.compare->right.setting) return n.compare->right.setting->setting;
  SettingDef def;
  def.type = setting_type::kNumber;
  return def;
}

bool compare_pair(const Node& n, const std::string& a, const std::string& b) {
  SettingDef def = compare_def(n);
  const std::string op = compare_op(n.compare->cmp);
  if (!ordered_type(def) && op != "eq" && op != "ne") def.type = setting_type::kNumber;
  return compare_values(def, a, op, b);
}

}  // namespace

Truth eval_compare(const Node& n, const Env& env, const ServiceEnv& s) {
  bool maybe = false;
  auto left = side_values(n.compare->left, env, s, maybe);
  auto right = side_values(n.compare->right, env, s, maybe);
  for (const auto& a : left) {
    for (const auto& b : right) {
      if (compare_pair(n, a, b)) return Truth::yes;
    }
  }
  return maybe ? Truth::maybe : Truth::no;
}

}  // namespace kb::check
