#pragma once

// Between the repair planner and writer (repair.cpp) and the repairs of setting values in
// predicates (repair_values.cpp).

#include <string>
#include <vector>

#include "kb/corpus.h"
#include "kb/repair.h"

namespace kb {

/// Adds to `plan` a repair or an unresolved entry for every value in `record`'s
/// applies_when that its setting (enum or bool) does not accept.
void plan_value_repairs(const Corpus& corpus, const Record& record, const RepairPolicy& policy,
                        RepairPlan& plan);

/// Why `after` (the record reloaded from the edited text) does not hold every value repair
/// of `repairs` where it was planned, or empty when it does. Reference repairs of the same
/// record rename a key a value repair's field may name.
std::string verify_value_repairs(const Record& after, const std::vector<PlannedRepair>& repairs);

}  // namespace kb
