// Planning repairs over a corpus and writing them: verify, then replace atomically.

#include "kb/repair.h"

#include <algorithm>
#include <map>

#include "edit/repair_internal.h"
#include "kb/atomic_write.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/file_read.h"
#include "resolve/resolver_internal.h"

namespace kb {

std::string_view to_string(RepairKind k) {
  return k == RepairKind::value ? "value" : "reference";
}

namespace {

// Why the edited text must not be written, or empty when it is sound: it loads without
// errors, every repaired field now holds its new value, and the log grew by one entry per
// repair.
std::string verify(const Record& before, const std::string& text,
                   const std::vector<PlannedRepair>& repairs, const LoadOptions& options) {
  FileResult reloaded = load_record_text(before.file, text, options);
  if (!reloaded.record) {
    std::string first;
    for (const auto& d : reloaded.diagnostics) {
      if (d.severity == Severity::error) {
        first = d.code + " at line " + std::to_string(d.line) + ": " + d.message;
        break;
      }
    }
    return "the edited file would not load (" + first + ")";
  }
  const Record& after = *reloaded.record;
  const auto slots = reference_slots(after);
  for (const auto& r : repairs) {
    if (r.kind != RepairKind::reference) continue;
    // A reference that is a mapping key (a setting in a predicate's config) names its own
    // field: `config.kv_transfr` becomes `config.kv_transfer`.
    std::string field = r.field;
    const std::string old_key = "." + r.from;
    if (field.size() > old_key.size() && field.ends_with(old_key)) {
      field = field.substr(0, field.size() - old_key.size()) + "." + r.to;
    }
    const auto it = std::find_if(slots.begin(), slots.end(), [&](const RefSlot& s) {
      return s.ref->field == r.field || s.ref->field == field;
    });
    if (it == slots.end() || it->ref->raw != r.to) {
      return "the edited file would not hold '" + r.to + "' in " + r.field;
    }
  }
  if (std::string why = verify_value_repairs(after, repairs); !why.empty()) return why;
  if (after.repairs.size() != before.repairs.size() + repairs.size()) {
    return "the edited file's repairs: log would not grow by " + std::to_string(repairs.size());
  }
  return {};
}

}  // namespace

RepairPlan plan_repairs(const Corpus& corpus, const RepairPolicy& policy) {
  RepairPlan plan;
  for (const auto& record : corpus.records()) {
    if (corpus.is_stale(record->id)) continue;
    for (const RefSlot& slot : reference_slots(*record)) {
      const RefValue& ref = *slot.ref;
      if (trim_view(ref.raw).empty()) continue;
      Resolution res = resolve(corpus.names(), slot.target, ref.raw, policy);
      if (res.target) continue;
      if (res.repairable) {
        const Candidate& best = res.candidates.front();
        plan.repairs.push_back(PlannedRepair{record->id, record->file, ref.pos.line, ref.pos.column,
                                             ref.field, ref.raw,
                                             repair_text_for(corpus, slot.target, ref.raw, best.id),
                                             best.id, res.confidence, false, res.reason});
      } else {
        if (res.candidates.size() > 5) res.candidates.resize(5);
        plan.unresolved.push_back(UnresolvedRef{
            record->id, record->file, ref.pos.line, ref.pos.column, ref.field, ref.raw,
            std::move(res.candidates), res.reason, res.rule, res.other_namespace_id});
      }
    }
    if (record->kind == Kind::gotcha) plan_value_repairs(corpus, *record, policy, plan);
  }
  return plan;
}

ApplyResult apply_repairs(const Corpus& corpus, RepairPlan& plan, std::string_view today) {
  std::map<std::string, std::vector<PlannedRepair*>> by_record;
  for (auto& r : plan.repairs) by_record[r.record].push_back(&r);

  ApplyResult result;
  for (auto& [id, pending] : by_record) {
    const Record* record = corpus.find(id);
    const std::string file = pending.front()->file;
    auto refuse = [&, &id = id](const std::string& code, const std::string& message) {
      result.refused.push_back(Diagnostic{Severity::error, code, file, 0, 0, message,
                                          "run `kb repair` again after fixing the file", id});
    };
    if (record == nullptr) {
      refuse(diag_code("repair.stale"), "record " + id + " is not in the corpus");
      continue;
    }
    const std::filesystem::path path = corpus.dir() / record->file.view();
    const std::size_t limit = corpus.options().max_file_bytes;
    const FileRead now = read_file(path, record_file_policy(limit));
    if (now.failure) {
      refuse(diag_code("repair.stale"),
             "cannot read the file again (" + read_failure_text(now, limit) + "); nothing written");
      continue;
    }
    if (now.bytes != record->source_text) {
      refuse(diag_code("repair.stale"), "the file changed since it was read; nothing written");
      continue;
    }
    std::vector<PlannedRepair> repairs;
    for (const auto* r : pending) repairs.push_back(*r);
    std::vector<Diagnostic> problems;
    auto text = repaired_text(*record, repairs, today, problems);
    if (!text) {
      for (Diagnostic& d : problems) {
        d.message = "cannot edit in place: " + d.message + "; nothing written";
        result.refused.push_back(std::move(d));
      }
      continue;
    }
    if (std::string why = verify(*record, *text, repairs, corpus.options()); !why.empty()) {
      refuse(diag_code("repair.unsound"), why + "; nothing written");
      continue;
    }
    // An editor may save between the read above and the write: the write goes ahead only
    // if the file in place is still the one read, and never over a save.
    if (replace_if_unchanged(path, *text, record->source_text) == ReplaceResult::changed) {
      refuse(diag_code("repair.stale"),
             "the file was saved while it was being repaired; nothing written");
      continue;
    }
    for (auto* r : pending) r->applied = true;
    result.files_written.push_back(record->file);
  }
  return result;
}

}  // namespace kb
