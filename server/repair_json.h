#pragma once

// `kb repair --format json`: the document of planned and declined repairs (README: Repairs).

#include <nlohmann/json.hpp>

#include "kb/repair.h"

namespace kb::json {

/// {"repairs": [{"record","file","line","column","field","from","to","target",
///   "confidence","applied","reason","kind"}],
///  "unresolved": [{"record","file","line","column","field","value",
///   "candidates": [{"id","score","matched"}],"reason","rule","kind","other_namespace_id"?}]}.
/// `kind` is "reference" or "value" (a setting's value in a predicate; its candidates'
/// `id` is the setting, `matched` the spelling).
nlohmann::json repair_report(const RepairPlan& plan);

}  // namespace kb::json
