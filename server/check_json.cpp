#include "check_json.h"

#include <algorithm>
#include <map>

#include "json.h"
#include "kb/diagnostic_codes.h"

namespace kb::json {

using nlohmann::json;

namespace {

json fix_json(const FixAdvice& a) {
  auto or_null = [](const std::string& v) { return v.empty() ? json(nullptr) : json(v); };
  return {{"engine", a.engine},
          {"running", or_null(a.running)},
          {"affected", or_null(a.affected)},
          {"fixed_in", or_null(a.fixed_in)},
          {"resolution", a.resolution},
          {"cause", or_null(a.cause)},
          {"advice", a.advice}};
}

json finding(const Finding& f, bool ignored, const std::string& base_url) {
  json j = {{"id", f.id},
            {"title", f.title},
            {"severity", f.severity},
            {"status", f.status},
            {"evidence", f.evidence},
            {"why", f.why},
            {"possible", f.possible}};
  if (f.pos.line > 0) j["line"] = f.pos.line;
  json locations = json::array();
  for (const auto& l : f.locations) {
    json x = {{"file", l.file}, {"line", l.pos.line}, {"column", l.pos.column}};
    if (l.end.line > 0) {
      x["end_line"] = l.end.line;
      x["end_column"] = l.end.column;
    }
    locations.push_back(std::move(x));
  }
  j["locations"] = std::move(locations);
  // The first service it hits, as `services` names it (the report leaves it empty for a
  // deployment of one service; JSON readers key on it).
  const std::string& first =
      !f.service.empty() ? f.service : (f.services.empty() ? f.service : f.services.front().name);
  if (!first.empty()) j["service"] = first;
  json services = json::array();
  for (const auto& s : f.services) {
    // A flat deployment's one service has no name: null.
    services.push_back({{"name", s.name.empty() ? json(nullptr) : json(s.name)},
                        {"role", s.role.empty() ? json(nullptr) : json(s.role)}});
  }
  j["services"] = std::move(services);
  j["workaround"] = f.workaround;
  json fixes = json::array();
  for (const auto& a : f.fixes) fixes.push_back(fix_json(a));
  j["fixes"] = std::move(fixes);
  j["tags"] = f.tags;
  if (!base_url.empty()) {
    j["url"] = gotcha_url(base_url, f.id, false);
    j["api_url"] = gotcha_url(base_url, f.id, true);
  }
  if (ignored) {
    j["reason"] = f.ignore_reason;
    j["expires"] = f.ignore_expires.empty() ? json(nullptr) : json(f.ignore_expires);
  }
  return j;
}

json engines_json(const std::vector<DeployedEngine>& list) {
  json engines = json::array();
  for (const auto& e : list) {
    json x = {{"engine", e.name},
              {"version", e.version.empty() ? json(nullptr) : json(e.version)},
              {"id", e.id.empty() ? json(nullptr) : json(e.id)}};
    if (e.pos.line > 0) {
      x["line"] = e.pos.line;
      x["column"] = e.pos.column;
    }
    if (!e.file.empty()) x["file"] = e.file;
    if (!e.via.empty()) x["via"] = e.via;
    engines.push_back(std::move(x));
  }
  return engines;
}

json settings_json(const std::vector<Setting>& list) {
  json config = json::object();
  for (const auto& s : list) config[s.key] = s.value;
  return config;
}

json facts_json(const std::vector<Setting>& list) {
  json facts = json::array();
  for (const auto& s : list) {
    json x = {{"key", s.key}, {"value", s.value}};
    if (!s.setting.empty()) x["setting"] = s.setting;
    if (s.raw_key != s.key || s.raw_value != s.value) {
      x["written"] = {{"key", s.raw_key}, {"value", s.raw_value}};
    }
    if (s.pos.line > 0) {
      x["line"] = s.pos.line;
      x["column"] = s.pos.column;
    }
    if (!s.file.empty()) x["file"] = s.file;
    if (!s.via.empty()) x["via"] = s.via;
    if (s.derived) x["derived"] = true;
    if (s.runtime) {
      x["value"] = nullptr;
      x["runtime"] = true;
    }
    facts.push_back(std::move(x));
  }
  return facts;
}

json deployment(const Deployment& d) {
  json services = json::array();
  for (const auto& s : d.services) {
    json x = {{"name", s.name},
              {"role", s.role},
              {"engines", engines_json(s.engines)},
              {"config", settings_json(s.config)},
              {"facts", facts_json(s.config)}};
    x["model"] = s.model.empty() ? json(nullptr) : json(s.model);
    if (s.model_pos.line > 0) x["model_line"] = s.model_pos.line;
    if (!s.model_record.empty()) x["model_record"] = s.model_record;
    if (!s.file.empty()) x["file"] = s.file;
    if (s.pos.line > 0) x["line"] = s.pos.line;
    if (!s.group.empty()) x["graph"] = s.group;
    services.push_back(std::move(x));
  }
  json unread = json::array();
  for (const auto& u : d.not_understood) {
    json x = {{"text", u.text}, {"why", u.why}, {"file", u.file}};
    if (u.pos.line > 0) {
      x["line"] = u.pos.line;
      x["column"] = u.pos.column;
    }
    unread.push_back(std::move(x));
  }
  return {{"file", d.file},
          {"engines", engines_json(d.engines)},
          {"config", settings_json(d.config)},
          {"services", std::move(services)},
          {"not_understood", std::move(unread)}};
}

json clause_json(const Clause& c) {
  json children = json::array();
  for (const auto& x : c.children) children.push_back(clause_json(x));
  return {
      {"text", c.text}, {"truth", c.truth}, {"facts", c.facts}, {"children", std::move(children)}};
}

}  // namespace

json triage_json(const TriageReport& report, const std::string& base_url) {
  json matches = json::array();
  for (const TriageMatch& m : report.matches) {
    json sigs = json::array();
    for (std::size_t i = 0; i < m.signatures.size(); ++i) {
      const std::string& engine = i < m.engines.size() ? m.engines[i] : std::string();
      sigs.push_back({{"signature", m.signatures[i]},
                      {"engine", engine.empty() ? json(nullptr) : json(engine)}});
    }
    json lines = json::array();
    for (const TriageLine& l : m.lines) lines.push_back({{"line", l.line}, {"text", l.text}});
    json x = {{"id", m.id},         {"title", m.title},           {"severity", m.severity},
              {"status", m.status}, {"workaround", m.workaround}, {"signatures", std::move(sigs)},
              {"count", m.count},   {"lines", std::move(lines)}};
    if (!base_url.empty()) {
      x["url"] = gotcha_url(base_url, m.id, false);
      x["api_url"] = gotcha_url(base_url, m.id, true);
    }
    matches.push_back(std::move(x));
  }
  return {{"matches", std::move(matches)},
          {"lines", report.lines},
          {"bytes", report.bytes},
          {"long_lines", report.long_lines},
          {"signatures", report.signatures}};
}

std::string gotcha_url(const std::string& base_url, std::string_view id, bool api) {
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + (api ? "/api/v1/" : "/") + std::string(id);
}

json findings_json(const CheckReport& report, const std::string& base_url) {
  json findings = json::array();
  json ignored = json::array();
  json diags = json::array();
  std::map<std::string, int> counts;
  for (std::string_view s : kSeverityNames) counts[std::string(s)] = 0;
  for (const auto& f : report.findings) {
    findings.push_back(finding(f, false, base_url));
    ++counts[f.severity];
  }
  for (const auto& f : report.ignored) ignored.push_back(finding(f, true, base_url));
  for (const auto& d : report.diagnostics) diags.push_back(diagnostic(d));
  json c = json::object();
  for (const auto& [k, v] : counts) c[k] = v;
  c["ignored"] = report.ignored.size();
  return {{"findings", std::move(findings)},
          {"ignored", std::move(ignored)},
          {"diagnostics", std::move(diags)},
          {"deployment", deployment(report.deployment)},
          {"counts", std::move(c)}};
}

json deployment_json(const CheckReport& report) {
  json diags = json::array();
  for (const auto& d : report.diagnostics) diags.push_back(diagnostic(d));
  return {{"deployment", deployment(report.deployment)}, {"diagnostics", std::move(diags)}};
}

json explanation_json(const Explanation& e) {
  json services = json::array();
  for (const auto& s : e.services) {
    json one = {{"role", s.role}, {"clauses", clause_json(s.root)}};
    // A flat deployment's one service has no name: left out, as findings leave it out.
    if (!s.service.empty()) one["service"] = s.service;
    services.push_back(std::move(one));
  }
  return {
      {"id", e.id}, {"title", e.title}, {"result", e.result}, {"services", std::move(services)}};
}

Deployment deployment_from_body(std::string_view body, std::vector<Diagnostic>& diags,
                                const std::string& file) {
  // The body's own text keeps version numbers as written (`0.30` stays 0.30, where a
  // JSON number would become 0.3); JSON that YAML cannot read goes through nlohmann.
  // Only a `yaml.syntax` error falls back, and parse_deployment reports that only after
  // its size, UTF-8 and nesting checks passed: nlohmann never sees what they refuse.
  std::vector<Diagnostic> yaml_diags;
  Deployment d = parse_deployment(body, file, yaml_diags);
  bool syntax = std::any_of(yaml_diags.begin(), yaml_diags.end(),
                            [](const Diagnostic& x) { return x.code == diag_code("yaml.syntax"); });
  if (syntax && body.size() <= kMaxDeploymentBytes) {
    json value = json::parse(body, nullptr, false);
    if (!value.is_discarded()) return deployment_from_json(value, diags, file);
  }
  diags.insert(diags.end(), yaml_diags.begin(), yaml_diags.end());
  return d;
}

Deployment deployment_from_json(const json& value, std::vector<Diagnostic>& diags,
                                const std::string& file) {
  if (value.is_object()) {
    auto engines = value.find("engines");
    if (engines != value.end() && engines->is_array()) {
      for (std::size_t i = 0; i < engines->size(); ++i) {
        const json& e = (*engines)[i];
        if (e.is_object() && e.contains("version") && e["version"].is_number_float()) {
          diags.push_back({Severity::warning, diag_code("check.numeric-version"), file, 0, 0,
                           "engines[" + std::to_string(i) +
                               "].version: a JSON number loses "
                               "trailing zeros (0.30 reads as 0.3)",
                           "write the version as a string: \"0.30.0\"", ""});
        }
      }
    }
  }
  return parse_deployment(value.dump(-1, ' ', false, json::error_handler_t::replace), file, diags);
}

}  // namespace kb::json
