#include "repair_json.h"

#include <cmath>

namespace kb::json {
namespace {

// Scores are shown rounded, as in the text output and the repairs: log.
double rounded(double score) {
  return std::round(score * 100.0) / 100.0;
}

}  // namespace

nlohmann::json repair_report(const RepairPlan& plan) {
  nlohmann::json repairs = nlohmann::json::array();
  for (const auto& r : plan.repairs) {
    repairs.push_back({{"record", r.record},
                       {"file", r.file},
                       {"line", r.line},
                       {"column", r.column},
                       {"field", r.field},
                       {"from", r.from},
                       {"to", r.to},
                       {"target", r.target},
                       {"confidence", rounded(r.confidence)},
                       {"applied", r.applied},
                       {"reason", r.reason},
                       {"kind", to_string(r.kind)}});
  }
  nlohmann::json unresolved = nlohmann::json::array();
  for (const auto& u : plan.unresolved) {
    nlohmann::json candidates = nlohmann::json::array();
    for (const auto& c : u.candidates) {
      candidates.push_back({{"id", c.id}, {"score", rounded(c.score)}, {"matched", c.matched}});
    }
    nlohmann::json item = {{"record", u.record},
                           {"file", u.file},
                           {"line", u.line},
                           {"column", u.column},
                           {"field", u.field},
                           {"value", u.value},
                           {"candidates", std::move(candidates)},
                           {"reason", u.reason},
                           {"rule", u.rule},
                           {"kind", to_string(u.kind)}};
    if (!u.other_namespace_id.empty()) item["other_namespace_id"] = u.other_namespace_id;
    unresolved.push_back(std::move(item));
  }
  return {{"repairs", std::move(repairs)}, {"unresolved", std::move(unresolved)}};
}

}  // namespace kb::json
