// Compiling every gotcha's applicability once per snapshot: from scratch, or, after a
// live edit that changed no name, by sharing the previous index's compiled gotchas and
// recompiling only the records that changed.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/check_index_impl.h"
#include "core/text_util.h"
#include "deploy/reader.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"

namespace kb {
namespace {

using check::Node;
using check::Truth;

// The atoms a deployment must touch (run an engine slot, set a config key) before a
// predicate can differ from its value for an empty deployment: when it touches none of
// them, every atom below keeps its empty value, or a necessary one does. Atoms about roles
// and comparisons across services are not indexed: a predicate that rests on them alone
// is evaluated for every deployment.
struct Trigger {
  std::vector<int> slots;
  std::vector<std::string> keys;
  bool always = false;
  // Config keys are set by many deployments and named by many gotchas: an engine is the
  // more selective trigger.
  std::size_t cost() const { return always ? SIZE_MAX : slots.size() + 8 * keys.size(); }
  void add(const Trigger& o) {
    always |= o.always;
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
      // Every test must hold: any one of them is necessary. It holds when its key is set,
      // or when an engine that defaults it runs.
      if (!n.tests.empty()) {
        t.keys.push_back(n.tests.front().key);
        t.slots = n.tests.front().default_slots.to_vector();
      }
      return t;
    case Predicate::Op::config_set:
      if (!n.keys.empty()) t.keys.push_back(n.keys.front().key);
      return t;
    case Predicate::Op::role:
    case Predicate::Op::differs:
    case Predicate::Op::compare:
    case Predicate::Op::any_service:  // about other services: not this one's engines
      t.always = true;
      return t;
    case Predicate::Op::negate:
      if (n.children.size() != 1) return t;
      return trigger(n.children.front(), empty);
    case Predicate::Op::all:
    case Predicate::Op::any: {
      // all: a child that is `no` when empty keeps the whole `no` until it changes; any:
      // so does a child that is `yes`. Either way that child's trigger is enough.
      const Truth pinned = n.op == Predicate::Op::all ? Truth::no : Truth::yes;
      std::optional<Trigger> best;
      for (const Node& c : n.children) {
        if (check::eval(c, empty, empty.services.front()) != pinned) continue;
        Trigger ct = trigger(c, empty);
        if (!best || ct.cost() < best->cost()) best = std::move(ct);
      }
      if (best) return *best;
      for (const Node& c : n.children) {
        t.add(trigger(c, empty));
      }
      return t;
    }
  }
  return t;
}

bool live_gotcha(const Record& r) {
  return r.kind == Kind::gotcha && r.status != GotchaStatus::withdrawn;
}

// Compiles gotchas against one corpus. Engine slots come from `base` (shared with the
// index it was taken from); an engine seen for the first time gets a new slot in a
// private copy, so the base index is never changed.
class Compiler {
 public:
  Compiler(const Corpus& corpus, const Vocabulary& vocab, std::shared_ptr<const SlotMap> base)
      : corpus_(corpus), vocab_(vocab), base_(std::move(base)) {
    if (!base_) own_ = std::make_shared<SlotMap>();
  }

  std::shared_ptr<const CompiledGotcha> gotcha(const Record& r) {
    auto c = std::make_shared<CompiledGotcha>();
    c->record = &r;
    c->rank = severity_rank(r.severity);
    c->root = r.applies_when ? compile(*r.applies_when) : implicit(r);
    const Service nothing;
    check::Env empty;
    empty.services.push_back({&nothing, {}, {}, {}});
    c->always = check::eval(c->root, empty, empty.services.front()) != Truth::no;
    if (!c->always) {
      Trigger t = trigger(c->root, empty);
      c->always = t.always;
      std::sort(t.slots.begin(), t.slots.end());
      t.slots.erase(std::unique(t.slots.begin(), t.slots.end()), t.slots.end());
      std::sort(t.keys.begin(), t.keys.end());
      t.keys.erase(std::unique(t.keys.begin(), t.keys.end()), t.keys.end());
      if (!c->always) c->trigger = {std::move(t.slots), std::move(t.keys)};
    }
    return c;
  }

  std::shared_ptr<const SlotMap> slots() const {
    if (own_) return own_;
    return base_;
  }

 private:
  int slot(const std::string& engine_id) {
    const SlotMap& now = own_ ? *own_ : *base_;
    auto it = now.find(engine_id);
    if (it != now.end()) return it->second;
    if (!own_) own_ = std::make_shared<SlotMap>(*base_);
    return own_->emplace(engine_id, static_cast<int>(own_->size())).first->second;
  }

  Node engine_atom(const RefValue& ref) {
    Node n;
    n.op = Predicate::Op::engine;
    auto id = corpus_.target(Kind::engine, ref.raw);
    n.engine_name = id ? std::string(text::id_slug(*id)) : ref.raw.str();
    if (id) n.engine = slot(*id);
    n.range_text = std::string(text::trim(ref.versions));
    if (!n.range_text.empty()) {
      auto [it, fresh] = ranges_.try_emplace(n.range_text);
      if (fresh) {
        auto range = VersionRange::parse(n.range_text);
        it->second.bad = !range;
        if (range && !range->is_any())
          it->second.range = std::make_shared<const VersionRange>(*range);
      }
      n.bad_range = it->second.bad;
      n.range = it->second.range;
    }
    return n;
  }

  // A range text parsed once per compile: what its nodes share.
  struct ParsedRange {
    bool bad = false;
    std::shared_ptr<const VersionRange> range;
  };

  // A setting named in a predicate: its canonical key and record (the key as written
  // when it names no setting; lint reports that).
  check::Test test(const RefValue& key) {
    check::Test t;
    t.setting = vocab_.setting(key.raw);
    t.key = t.setting ? t.setting->setting->key : key.raw;
    if (t.setting) {
      for (const auto& id : vocab_.engines_with_default(*t.setting))
        t.default_slots.push_back(slot(id));
    }
    return t;
  }

  check::Side side(const Operand& o) {
    check::Side s;
    s.literal = o.is_literal;
    s.value = o.literal;
    s.role = o.role;
    if (!o.is_literal) {
      check::Test t = test(o.key);
      s.key = t.key;
      s.setting = t.setting;
    }
    return s;
  }

  Node compile(const Predicate& p) {
    if (p.op == Predicate::Op::engine) return engine_atom(p.engine_ref());
    Node n;
    n.op = p.op;
    // Sized exactly: an index holds a node per predicate node of every gotcha.
    n.tests.reserve(p.config.size());
    n.keys.reserve(p.keys.size());
    n.children.reserve(p.children.size());
    for (const ConfigTest& ct : p.config) {
      check::Test t = test(ct.key);
      t.op = ct.op;
      for (const auto& v : ct.values) {
        auto value = t.setting ? normalize_value(t.setting->setting, v).value : std::nullopt;
        t.values.push_back(value ? *value : std::string(text::trim(v)));
      }
      n.tests.push_back(std::move(t));
    }
    for (const RefValue& k : p.keys) n.keys.push_back(test(k));
    n.roles = p.roles;
    if (p.op == Predicate::Op::differs && !p.engine_ref().raw.empty()) {
      Node e = engine_atom(*p.engine);
      n.engine = e.engine;
      n.engine_name = e.engine_name;
    }
    if (p.op == Predicate::Op::compare) {
      check::Compare& c = n.compare.emplace();
      c.left = side(p.compare->left);
      c.right = side(p.compare->right);
      c.cmp = p.compare->cmp;
    }
    for (const Predicate& c : p.children) n.children.push_back(compile(c));
    return n;
  }

  // Without applies_when: any affected engine, within that entry's versions.
  Node implicit(const Record& r) {
    Node n;
    n.op = Predicate::Op::any;
    n.children.reserve(r.affects.size());
    for (const RefValue& ref : r.affects) n.children.push_back(engine_atom(ref));
    return n;
  }

  const Corpus& corpus_;
  const Vocabulary& vocab_;
  std::shared_ptr<const SlotMap> base_;
  std::shared_ptr<SlotMap> own_;
  std::unordered_map<std::string, ParsedRange> ranges_;
};

std::shared_ptr<const CheckTables> make_tables(const CheckIndex::Impl& impl) {
  auto t = std::make_shared<CheckTables>();
  const auto& compiled = impl.compiled;
  for (std::uint32_t i = 0; i < compiled.size(); ++i) {
    if (compiled[i]) t->order.push_back(i);
  }
  std::sort(t->order.begin(), t->order.end(), [&compiled](std::uint32_t a, std::uint32_t b) {
    const CompiledGotcha& x = *compiled[a];
    const CompiledGotcha& y = *compiled[b];
    if (x.rank != y.rank) return x.rank < y.rank;
    return x.record->id != y.record->id ? x.record->id < y.record->id : a < b;
  });
  t->by_slot.resize(impl.slots->size());
  for (std::uint32_t pos = 0; pos < t->order.size(); ++pos) {
    const CompiledGotcha& c = *compiled[t->order[pos]];
    if (c.always) {
      t->always.push_back(pos);
      continue;
    }
    for (int s : c.trigger.slots) t->by_slot[static_cast<std::size_t>(s)].push_back(pos);
    for (const auto& k : c.trigger.keys) t->by_key[k].push_back(pos);
  }
  return t;
}

// Whether `a` and `b` take the same place in the tables: both absent, or the same
// severity and trigger.
bool same_place(const CompiledGotcha* a, const CompiledGotcha* b) {
  if (!a || !b) return a == b;
  return a->rank == b->rank && a->always == b->always && a->trigger == b->trigger;
}

// Whether `prev` can lend its compiled gotchas to an index of `corpus`: every reference
// resolves as it did (the name index is the same object) and record i has the same id.
bool can_share(const CheckIndex::Impl& prev, const Corpus& corpus) {
  const auto& before = prev.corpus->records();
  const auto& now = corpus.records();
  if (&prev.corpus->names() != &corpus.names() || before.size() != now.size()) return false;
  for (std::size_t i = 0; i < now.size(); ++i) {
    if (before[i] != now[i] && before[i]->id != now[i]->id) return false;
  }
  return true;
}

}  // namespace

CheckIndex CheckIndex::build(const Corpus& corpus, const EvidenceIndex& evidence,
                             const CheckIndex* previous) {
  auto impl = std::make_shared<Impl>();
  impl->corpus = &corpus;
  impl->evidence = evidence;
  impl->vocab = Vocabulary::build(corpus);
  const Impl* prev = previous ? previous->impl_.get() : nullptr;
  if (prev && !can_share(*prev, corpus)) prev = nullptr;
  Compiler compiler(corpus, *impl->vocab, prev ? prev->slots : nullptr);
  const auto& recs = corpus.records();
  impl->compiled.resize(recs.size());
  bool same_tables = prev != nullptr;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const Record& r = *recs[i];
    if (prev && prev->corpus->records()[i].get() == &r) {
      impl->compiled[i] = prev->compiled[i];
      continue;
    }
    if (live_gotcha(r)) impl->compiled[i] = compiler.gotcha(r);
    if (same_tables) same_tables = same_place(prev->compiled[i].get(), impl->compiled[i].get());
  }
  impl->slots = compiler.slots();
  // A slot added here is in no gotcha's trigger when the tables are shared, so the
  // shorter `by_slot` of the shared tables still names every triggered gotcha.
  impl->tables = same_tables ? prev->tables : make_tables(*impl);
  CheckIndex index;
  index.impl_ = std::move(impl);
  return index;
}

std::size_t CheckIndex::size() const {
  return impl_ ? impl_->tables->order.size() : 0;
}

Deployment CheckIndex::read(const std::vector<DeployInput>& inputs, const ReadOptions& options,
                            std::vector<Diagnostic>& diags) const {
  if (!impl_) {
    Deployment d;
    for (const auto& in : inputs) d.file += (d.file.empty() ? "" : ", ") + in.file;
    return d;
  }
  return deploy::read_inputs(*impl_->corpus, *impl_->vocab, inputs, options, diags);
}

}  // namespace kb
