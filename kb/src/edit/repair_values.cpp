// Repairs of typo'd values in predicates (`prefix_caching: ture` -> `true`): found by
// walking each gotcha's applies_when, decided by resolve_value, checked after the edit.

#include <algorithm>

#include "edit/repair_internal.h"

namespace kb {
namespace {

// One value of a config test, with the field a repair names it by:
// `applies_when.config.prefix_caching` (a single value), `....kv_transfer.in[1]`.
struct ValueSlot {
  const ConfigTest* test = nullptr;
  std::size_t index = 0;
  std::string field;
};

void collect(const Predicate& p, std::vector<ValueSlot>& out) {
  for (const auto& c : p.children) collect(c, out);
  if (p.op != Predicate::Op::config) return;
  for (const ConfigTest& t : p.config) {
    const bool list = t.op == "in" || t.op == "not_in";
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      std::string field = t.key.field;
      if (t.op != "eq") field += "." + t.op;
      if (list) field += "[" + std::to_string(i) + "]";
      out.push_back({&t, i, std::move(field)});
    }
  }
}

std::vector<ValueSlot> value_slots(const Record& r) {
  std::vector<ValueSlot> out;
  if (r.applies_when) collect(*r.applies_when, out);
  return out;
}

// The setting a test's key names: exactly, or through the repair of a typo'd key that
// the same run makes (`kv_transfr: disagregated` is repaired whole).
const Record* setting_of(const Corpus& corpus, const RefValue& key, const RepairPolicy& policy) {
  std::optional<std::string> id = corpus.target(Kind::setting, key.raw);
  if (!id) {
    Resolution res = resolve(corpus.names(), Kind::setting, key.raw, policy);
    if (res.repairable) id = res.candidates.front().id;
  }
  const Record* rec = id ? corpus.find(*id) : nullptr;
  return rec != nullptr && rec->kind == Kind::setting ? rec : nullptr;
}

}  // namespace

void plan_value_repairs(const Corpus& corpus, const Record& record, const RepairPolicy& policy,
                        RepairPlan& plan) {
  for (const ValueSlot& slot : value_slots(record)) {
    const Record* setting = setting_of(corpus, slot.test->key, policy);
    if (setting == nullptr) continue;  // the key is reported (and perhaps repaired) as a reference
    const std::string& raw = slot.test->values[slot.index];
    const Pos pos = slot.index < slot.test->value_pos.size() ? slot.test->value_pos[slot.index]
                                                             : slot.test->key.pos;
    Resolution res = resolve_value(setting->id, setting->setting, raw, policy);
    if (res.target || res.rule == "not-enumerated") continue;
    if (res.repairable) {
      const Candidate& best = res.candidates.front();
      plan.repairs.push_back(PlannedRepair{record.id, record.file, pos.line, pos.column, slot.field,
                                           raw, best.matched, setting->id, res.confidence, false,
                                           res.reason, RepairKind::value});
    } else {
      if (res.candidates.size() > 5) res.candidates.resize(5);
      plan.unresolved.push_back(UnresolvedRef{record.id, record.file, pos.line, pos.column,
                                              slot.field, raw, std::move(res.candidates),
                                              res.reason, res.rule, "", RepairKind::value});
    }
  }
}

std::string verify_value_repairs(const Record& after, const std::vector<PlannedRepair>& repairs) {
  const auto slots = value_slots(after);
  for (const auto& r : repairs) {
    if (r.kind != RepairKind::value) continue;
    // A key repaired in the same edit renames the field: `config.kv_transfr` (the key's
    // field) becomes `config.kv_transfer`, and so does every value field under it.
    std::string field = r.field;
    for (const auto& k : repairs) {
      const std::string old_key = "." + k.from;
      if (k.kind != RepairKind::reference || k.field.size() <= old_key.size() ||
          !k.field.ends_with(old_key)) {
        continue;
      }
      const bool under = field.starts_with(k.field) &&
                         (field.size() == k.field.size() || field[k.field.size()] == '.');
      if (under) {
        field = k.field.substr(0, k.field.size() - old_key.size()) + "." + k.to +
                field.substr(k.field.size());
      }
    }
    const bool held = std::any_of(slots.begin(), slots.end(), [&](const ValueSlot& s) {
      return s.field == field && s.test->values[s.index] == r.to;
    });
    if (!held) return "the edited file would not hold '" + r.to + "' in " + r.field;
  }
  return {};
}

}  // namespace kb
