// Compiling every gotcha's applicability once per snapshot, and running a deployment
// through it.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "check_predicate.h"
#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "text_util.h"

namespace kb {
namespace {

using check::Node;
using check::Truth;

struct Compiled {
  std::string id;
  std::string title;
  std::string severity;
  std::string status;
  std::string evidence;
  Node root;
};

int severity_rank(std::string_view s) {
  auto parsed = parse_gotcha_severity(s);
  return parsed ? static_cast<int>(*parsed) : 4;
}

std::string_view without_namespace(std::string_view id) {
  auto slash = id.find('/');
  return slash == std::string_view::npos ? id : id.substr(slash + 1);
}

// The atoms a deployment must touch (run an engine slot, set a config key) before a
// predicate can differ from its value for an empty deployment: when it touches none of
// them, every atom below keeps its empty value, or a necessary one does.
struct Trigger {
  std::vector<int> slots;
  std::vector<std::string> keys;
  // Config keys are set by many deployments and named by many gotchas: an engine is the
  // more selective trigger.
  std::size_t cost() const { return slots.size() + 8 * keys.size(); }
  void add(const Trigger& o) {
    slots.insert(slots.end(), o.slots.begin(), o.slots.end());
    keys.insert(keys.end(), o.keys.begin(), o.keys.end());
  }
};

Trigger trigger(const Node& n, const check::Env& empty) {
  Trigger t;
  switch (n.op) {
    case Predicate::Op::engine:
      if (n.engine >= 0) t.slots.push_back(n.engine);
      return t;
    case Predicate::Op::config:
      // Every key must be set for the atom to hold: any one of them is necessary.
      if (!n.config.empty()) t.keys.push_back(n.config.front().first);
      return t;
    case Predicate::Op::config_set:
      if (!n.keys.empty()) t.keys.push_back(n.keys.front());
      return t;
    case Predicate::Op::negate:
      return n.children.size() == 1 ? trigger(n.children.front(), empty) : t;
    case Predicate::Op::all:
    case Predicate::Op::any: {
      // all: a child that is `no` when empty keeps the whole `no` until it changes; any:
      // so does a child that is `yes`. Either way that child's trigger is enough.
      const Truth pinned = n.op == Predicate::Op::all ? Truth::no : Truth::yes;
      std::optional<Trigger> best;
      for (const Node& c : n.children) {
        if (check::eval(c, empty) != pinned) continue;
        Trigger ct = trigger(c, empty);
        if (!best || ct.cost() < best->cost()) best = std::move(ct);
      }
      if (best) return *best;
      for (const Node& c : n.children) t.add(trigger(c, empty));
      return t;
    }
  }
  return t;
}

}  // namespace

struct CheckIndex::Impl {
  const Corpus* corpus = nullptr;
  std::unordered_map<std::string, int> slots;  // engine id -> slot
  std::vector<Compiled> gotchas;               // sorted like findings
  // Which gotchas a deployment can hit, by index into `gotchas`: those that hold (or may)
  // for an empty deployment, and the rest by the engine slots and config keys that
  // trigger them. A check evaluates only these instead of every gotcha.
  std::vector<std::uint32_t> always;
  std::vector<std::vector<std::uint32_t>> by_slot;
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_key;

  void index_triggers() {
    check::Env empty;
    by_slot.resize(slots.size());
    for (std::uint32_t i = 0; i < gotchas.size(); ++i) {
      const Node& root = gotchas[i].root;
      if (check::eval(root, empty) != Truth::no) {
        always.push_back(i);
        continue;
      }
      Trigger t = trigger(root, empty);
      std::sort(t.slots.begin(), t.slots.end());
      t.slots.erase(std::unique(t.slots.begin(), t.slots.end()), t.slots.end());
      std::sort(t.keys.begin(), t.keys.end());
      t.keys.erase(std::unique(t.keys.begin(), t.keys.end()), t.keys.end());
      for (int s : t.slots) by_slot[static_cast<std::size_t>(s)].push_back(i);
      for (const auto& k : t.keys) by_key[k].push_back(i);
    }
  }

  int slot(const std::string& engine_id) {
    auto [it, fresh] = slots.emplace(engine_id, static_cast<int>(slots.size()));
    return it->second;
  }

  Node engine_atom(const RefValue& ref) {
    Node n;
    n.op = Predicate::Op::engine;
    auto id = corpus->target(Kind::engine, ref.raw);
    n.engine_name = id ? std::string(without_namespace(*id)) : ref.raw;
    if (id) n.engine = slot(*id);
    n.range_text = std::string(text::trim(ref.versions));
    if (!n.range_text.empty()) {
      auto range = VersionRange::parse(n.range_text);
      if (!range)
        n.bad_range = true;
      else if (!range->is_any())
        n.range = std::move(range);
    }
    return n;
  }

  Node compile(const Predicate& p) {
    if (p.op == Predicate::Op::engine) return engine_atom(p.engine);
    Node n;
    n.op = p.op;
    for (const auto& [k, v] : p.config) n.config.emplace_back(k, check::canonical_value(v));
    n.keys = p.keys;
    for (const Predicate& c : p.children) n.children.push_back(compile(c));
    return n;
  }

  // Without applies_when: any affected engine, within that entry's versions.
  Node implicit(const Record& r) {
    Node n;
    n.op = Predicate::Op::any;
    for (const RefValue& ref : r.affects) n.children.push_back(engine_atom(ref));
    return n;
  }
};

CheckIndex CheckIndex::build(const Corpus& corpus, const EvidenceIndex& evidence) {
  auto impl = std::make_shared<Impl>();
  impl->corpus = &corpus;
  for (const auto& r : corpus.records()) {
    if (r->kind != Kind::gotcha || r->status == "withdrawn") continue;
    Compiled c;
    c.id = r->id;
    c.title = r->title;
    c.severity = r->severity;
    c.status = r->status;
    c.evidence = std::string(to_string(evidence.for_gotcha(r->id).state));
    c.root = r->applies_when ? impl->compile(*r->applies_when) : impl->implicit(*r);
    impl->gotchas.push_back(std::move(c));
  }
  std::stable_sort(impl->gotchas.begin(), impl->gotchas.end(),
                   [](const Compiled& a, const Compiled& b) {
                     int ra = severity_rank(a.severity), rb = severity_rank(b.severity);
                     return ra != rb ? ra < rb : a.id < b.id;
                   });
  impl->index_triggers();
  CheckIndex index;
  index.impl_ = std::move(impl);
  return index;
}

std::size_t CheckIndex::size() const {
  return impl_ ? impl_->gotchas.size() : 0;
}

CheckReport CheckIndex::run(const Deployment& deployment) const {
  CheckReport report;
  report.deployment = deployment;
  if (!impl_) return report;
  const Corpus& corpus = *impl_->corpus;
  check::Env env;
  env.by_slot.resize(impl_->slots.size());
  // `report.deployment` is not resized below, so pointers into it stay valid.
  for (DeployedEngine& e : report.deployment.engines) {
    auto id = corpus.target(Kind::engine, e.name);
    if (!id) {
      auto candidates = corpus.names().candidates(Kind::engine, e.name, 1);
      std::string hint =
          candidates.empty()
              ? "no engine record has this name; gotchas about it cannot match"
              : "did you mean '" + std::string(without_namespace(candidates[0].id)) + "'?";
      report.diagnostics.push_back(
          {Severity::warning, "check.unknown-engine", deployment.file, e.pos.line, e.pos.column,
           "engine '" + e.name + "' is not in the knowledge base", std::move(hint), ""});
      continue;
    }
    e.id = *id;
    auto slot = impl_->slots.find(e.id);
    if (slot == impl_->slots.end()) continue;
    env.by_slot[static_cast<std::size_t>(slot->second)].push_back(
        {&e, e.version.empty() ? std::nullopt : Version::parse(e.version)});
  }
  std::vector<std::uint32_t> candidates = impl_->always;
  auto add = [&candidates](const std::vector<std::uint32_t>& more) {
    candidates.insert(candidates.end(), more.begin(), more.end());
  };
  for (std::size_t slot = 0; slot < env.by_slot.size(); ++slot) {
    if (!env.by_slot[slot].empty()) add(impl_->by_slot[slot]);
  }
  for (const Setting& s : report.deployment.config) {
    env.config.emplace(s.key, std::make_pair(&s, check::canonical_value(s.value)));
    auto it = impl_->by_key.find(s.key);
    if (it != impl_->by_key.end()) add(it->second);
  }
  // In index order, so findings keep the order of `gotchas`.
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (std::uint32_t i : candidates) {
    const Compiled& g = impl_->gotchas[i];
    Truth t = check::eval(g.root, env);
    if (t == Truth::no) continue;
    Finding f;
    f.id = g.id;
    f.title = g.title;
    f.severity = g.severity;
    f.status = g.status;
    f.evidence = g.evidence;
    f.possible = t == Truth::maybe;
    check::explain(g.root, env, f.why, f.pos);
    report.findings.push_back(std::move(f));
  }
  return report;
}

void CheckIndex::apply_ignores(CheckReport& report, const IgnoreList& ignores,
                               std::string_view today) const {
  const std::string date = today.empty() ? text::today_utc() : std::string(today);
  if (!text::valid_date(date)) {
    throw Error(Errc::invalid_argument, "'" + date + "' is not a date (YYYY-MM-DD)");
  }
  auto warn = [&](const IgnoreEntry& e, std::string code, std::string message, std::string hint) {
    report.diagnostics.push_back({Severity::warning, std::move(code), ignores.file, e.pos.line,
                                  e.pos.column, std::move(message), std::move(hint), ""});
  };
  for (const IgnoreEntry& e : ignores.entries) {
    std::optional<std::string> id =
        impl_ ? impl_->corpus->target(Kind::gotcha, e.id) : std::nullopt;
    if (!e.expires.empty() && date >= e.expires) {
      warn(e, "check.ignore-expired",
           "the ignore of '" + e.id + "' expired on " + e.expires + "; it no longer applies",
           "re-check the gotcha, then renew the date or remove the entry");
      continue;
    }
    auto is_it = [&](const Finding& f) { return id && f.id == *id; };
    auto it = std::stable_partition(report.findings.begin(), report.findings.end(),
                                    [&](const Finding& f) { return !is_it(f); });
    bool matched = it != report.findings.end() ||
                   std::any_of(report.ignored.begin(), report.ignored.end(), is_it);
    for (auto moved = it; moved != report.findings.end(); ++moved) {
      moved->ignore_reason = e.reason;
      moved->ignore_expires = e.expires;
      report.ignored.push_back(std::move(*moved));
    }
    report.findings.erase(it, report.findings.end());
    if (matched) continue;
    if (!id) {
      warn(e, "check.ignore-unused", "the ignore of '" + e.id + "' names no gotcha",
           "write the id of a gotcha, such as gotchas/NAME");
    } else {
      warn(e, "check.ignore-unused",
           "the ignore of '" + e.id + "' matched no finding of this deployment",
           "remove it if the gotcha no longer applies");
    }
  }
  std::stable_sort(report.ignored.begin(), report.ignored.end(),
                   [](const Finding& a, const Finding& b) {
                     int ra = severity_rank(a.severity), rb = severity_rank(b.severity);
                     return ra != rb ? ra < rb : a.id < b.id;
                   });
}

std::string_view to_string(GotchaSeverity s) {
  switch (s) {
    case GotchaSeverity::blocker:
      return "blocker";
    case GotchaSeverity::major:
      return "major";
    case GotchaSeverity::minor:
      return "minor";
    case GotchaSeverity::info:
      return "info";
  }
  return "info";
}

std::optional<GotchaSeverity> parse_gotcha_severity(std::string_view s) {
  for (auto g : {GotchaSeverity::blocker, GotchaSeverity::major, GotchaSeverity::minor,
                 GotchaSeverity::info}) {
    if (s == to_string(g)) return g;
  }
  return std::nullopt;
}

bool fails(const CheckReport& report, GotchaSeverity threshold) {
  return std::any_of(report.findings.begin(), report.findings.end(), [&](const Finding& f) {
    return severity_rank(f.severity) <= static_cast<int>(threshold);
  });
}

}  // namespace kb
