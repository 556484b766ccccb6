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

// Members are emplaced one by one: nlohmann's initializer lists copy every value through
// a json_ref first, and a gotcha's record JSON holds a dozen of these groups.
nlohmann::json evidence_group(const EvidenceGroup& g) {
  nlohmann::json engines = nlohmann::json::array();
  for (const auto& [engine, version] : g.engines) {
    nlohmann::json e = nlohmann::json::object();
    e.emplace("engine", engine);
    if (!version.empty()) e.emplace("version", version);
    engines.push_back(std::move(e));
  }
  nlohmann::json config = nlohmann::json::object();
  for (const auto& [key, value] : g.config) config[key] = value;
  nlohmann::json j = nlohmann::json::object();
  j.emplace("oracle", g.oracle);
  j.emplace("subject", g.subject);
  j.emplace("summary", g.summary());
  j.emplace("passed", g.passed);
  j.emplace("failed", g.failed);
  j.emplace("errors", g.errors);
  j.emplace("skipped", g.skipped);
  j.emplace("runs", g.runs);
  j.emplace("newest_date", date_or_null(g.newest_date));
  j.emplace("results", g.results);
  j.emplace("engines", std::move(engines));
  j.emplace("config", std::move(config));
  return j;
}

nlohmann::json evidence_summary(const EvidenceSummary& s) {
  nlohmann::json by_oracle = nlohmann::json::array();
  for (const auto& t : s.by_oracle) {
    nlohmann::json o = nlohmann::json::object();
    o.emplace("oracle", t.oracle);
    o.emplace("passed", t.passed);
    o.emplace("failed", t.failed);
    o.emplace("errors", t.errors);
    o.emplace("runs", t.runs);
    by_oracle.push_back(std::move(o));
  }
  nlohmann::json j = nlohmann::json::object();
  j.emplace("state", std::string(to_string(s.state)));
  j.emplace("summary", summary_line(s));
  j.emplace("passed", s.passed);
  j.emplace("failed", s.failed);
  j.emplace("errors", s.errors);
  j.emplace("runs", s.runs);
  j.emplace("newest_date", date_or_null(s.newest_date));
  j.emplace("by_oracle", std::move(by_oracle));
  j.emplace("groups", groups(s.groups));
  j.emplace("controls", groups(s.controls));
  j.emplace("controls_omitted", s.controls_omitted);
  return j;
}

}  // namespace kb::json
