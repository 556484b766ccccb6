#include "evidence_json.h"

namespace kb::json {
namespace {

nlohmann::json date_or_null(const std::string& date) {
  return date.empty() ? nlohmann::json(nullptr) : nlohmann::json(date);
}

// Linked groups (a vector) or controls (SharedGroups): the same array.
template <class Groups>
nlohmann::json groups(const Groups& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : list) out.push_back(evidence_group(g));
  return out;
}

}  // namespace

nlohmann::json evidence_group(const EvidenceGroup& g) {
  nlohmann::json engines = nlohmann::json::array();
  for (const auto& [engine, version] : g.engines) {
    nlohmann::json e = {{"engine", engine}};
    if (!version.empty()) e["version"] = version;
    engines.push_back(std::move(e));
  }
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [key, value] : g.config) config[key] = value;
  return {{"oracle", g.oracle},
          {"subject", g.subject},
          {"summary", g.summary()},
          {"passed", g.passed},
          {"failed", g.failed},
          {"errors", g.errors},
          {"skipped", g.skipped},
          {"runs", g.runs},
          {"newest_date", date_or_null(g.newest_date)},
          {"results", g.results},
          {"engines", std::move(engines)},
          {"config", std::move(config)}};
}

nlohmann::json evidence_summary(const EvidenceSummary& s) {
  nlohmann::json by_oracle = nlohmann::json::array();
  for (const auto& t : s.by_oracle) {
    by_oracle.push_back({{"oracle", t.oracle},
                         {"passed", t.passed},
                         {"failed", t.failed},
                         {"errors", t.errors},
                         {"runs", t.runs}});
  }
  return {{"state", std::string(to_string(s.state))},
          {"summary", summary_line(s)},
          {"passed", s.passed},
          {"failed", s.failed},
          {"errors", s.errors},
          {"runs", s.runs},
          {"newest_date", date_or_null(s.newest_date)},
          {"by_oracle", std::move(by_oracle)},
          {"groups", groups(s.groups)},
          {"controls", groups(s.controls)},
          {"controls_omitted", s.controls_omitted}};
}

}  // namespace kb::json
