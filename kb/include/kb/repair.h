#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/model.h"
#include "kb/resolver.h"

namespace kb {

/// What a repair rewrites: a reference to a record (`mooncache`), or a value of an enum
/// or bool setting in a gotcha's predicate (`prefix_caching: ture`).
enum class RepairKind { reference, value };

/// "reference", "value".
std::string_view to_string(RepairKind k);

/// A scalar `kb repair --write` rewrites: one confident typo fix.
struct PlannedRepair {
  std::string record;  ///< id of the record holding the reference
  std::string file;    ///< relative to the records directory, "gotchas/x.yaml"
  int line = 0;        ///< of the scalar, 1-based
  int column = 0;
  std::string field;  ///< "affects[2]", "applies_when.config.prefix_caching"
  std::string from;   ///< the value as written, "mooncache"
  std::string to;     ///< what replaces it: "mooncake" (or "engines/mooncake" when written in full)
  std::string target;  ///< the id it then resolves to, "engines/mooncake"; a value: its setting's
  double confidence = 0;
  bool applied = false;  ///< set by apply_repairs once the file is written
  std::string reason;
  RepairKind kind = RepairKind::reference;
};

/// A reference that resolves to nothing, or a setting value that does not normalise, and
/// that `kb repair` leaves alone.
struct UnresolvedRef {
  std::string record;
  std::string file;
  int line = 0;
  int column = 0;
  std::string field;
  std::string value;                  ///< as written
  std::vector<Candidate> candidates;  ///< best first
  std::string reason;                 ///< why it is not repaired
  std::string rule;                   ///< the rule that declined, e.g. "extends-id"
  std::string other_namespace_id;     ///< set when the value names a record of another namespace
  RepairKind kind = RepairKind::reference;
};

/// Every reference of a corpus that does not resolve exactly, split into what would be
/// repaired and what would not; record order, then field order.
struct RepairPlan {
  std::vector<PlannedRepair> repairs;
  std::vector<UnresolvedRef> unresolved;
};

/// Resolves every reference slot (`reference_slots`) of every current record that does not
/// resolve exactly, and every value of an enum or bool setting in a gotcha's predicate
/// that does not normalise (`resolve_value`); records of files that are broken now
/// (stale) are skipped.
RepairPlan plan_repairs(const Corpus& corpus, const RepairPolicy& policy = {});

/// What apply_repairs did.
struct ApplyResult {
  std::vector<std::string> files_written;  ///< relative paths
  std::vector<Diagnostic> refused;         ///< files left untouched, and why (code repair.*)
};

/// Applies `plan.repairs` in place, file by file: each scalar's bytes are replaced (quotes
/// kept; an unquoted value keeps its YAML type, `true`), an entry {date: today, field,
/// from, to, reason, confidence} is appended to the record's `repairs:` list (created at
/// the end when absent), every other byte is kept.
/// A file is written atomically, and only if it still holds the bytes the corpus read and
/// the edited text loads with every repaired field holding its new value; otherwise it is
/// refused. Sets `applied` on the repairs written. Throws kb::Error(io) when writing fails.
ApplyResult apply_repairs(const Corpus& corpus, RepairPlan& plan, std::string_view today);

/// The text of `record`'s file after `repairs` (all of that record) on `today`, or nullopt
/// with a `repair.not-in-place` diagnostic appended to `problems` when a scalar is not
/// where and as the record says (or the file no longer parses).
std::optional<std::string> repaired_text(const Record& record,
                                         const std::vector<PlannedRepair>& repairs,
                                         std::string_view today, std::vector<Diagnostic>& problems);

}  // namespace kb
