#include "check_json.h"

#include <algorithm>
#include <map>

#include "json.h"

namespace kb::json {

using nlohmann::json;

namespace {

constexpr const char* kSarifSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

json finding(const Finding& f, bool ignored) {
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
    locations.push_back({{"file", l.file}, {"line", l.pos.line}, {"column", l.pos.column}});
  }
  j["locations"] = std::move(locations);
  if (!f.service.empty()) j["service"] = f.service;
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
    if (e.pos.line > 0) x["line"] = e.pos.line;
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
    if (s.pos.line > 0) x["line"] = s.pos.line;
    if (!s.file.empty()) x["file"] = s.file;
    if (!s.via.empty()) x["via"] = s.via;
    if (s.derived) x["derived"] = true;
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
    if (!s.file.empty()) x["file"] = s.file;
    if (s.pos.line > 0) x["line"] = s.pos.line;
    services.push_back(std::move(x));
  }
  json unread = json::array();
  for (const auto& u : d.not_understood) {
    json x = {{"text", u.text}, {"why", u.why}, {"file", u.file}};
    if (u.pos.line > 0) x["line"] = u.pos.line;
    unread.push_back(std::move(x));
  }
  return {{"file", d.file},
          {"engines", engines_json(d.engines)},
          {"config", settings_json(d.config)},
          {"services", std::move(services)},
          {"not_understood", std::move(unread)}};
}

// SARIF levels: a blocker fails the scan, a major is worth a look, the rest inform.
std::string sarif_level(std::string_view severity) {
  if (severity == "blocker") return "error";
  if (severity == "major") return "warning";
  return "note";
}

std::string sarif_level(Severity s) {
  return s == Severity::error ? "error" : s == Severity::warning ? "warning" : "note";
}

// A relative URI reference for a file path: unreserved characters and '/' stay.
std::string file_uri(std::string_view path) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out.push_back(static_cast<char>(c));
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

json location(const std::string& file, Pos pos) {
  json region = {{"startLine", pos.line > 0 ? pos.line : 1}};
  if (pos.line > 0 && pos.column > 0) region["startColumn"] = pos.column;
  return {{"physicalLocation",
           {{"artifactLocation", {{"uri", file_uri(file)}}}, {"region", std::move(region)}}}};
}

std::string message_text(const Finding& f) {
  std::string text = f.title + " [" + f.severity + ", " + f.status + ", " + f.evidence + "]";
  if (f.possible) text += " (possible: a version is not known)";
  if (!f.why.empty()) {
    text += ". Matched: ";
    for (std::size_t i = 0; i < f.why.size(); ++i) text += (i ? "; " : "") + f.why[i];
    text += ".";
  }
  return text;
}

}  // namespace

json findings_json(const CheckReport& report) {
  json findings = json::array();
  json ignored = json::array();
  json diags = json::array();
  std::map<std::string, int> counts = {{"blocker", 0}, {"major", 0}, {"minor", 0}, {"info", 0}};
  for (const auto& f : report.findings) {
    findings.push_back(finding(f, false));
    ++counts[f.severity];
  }
  for (const auto& f : report.ignored) ignored.push_back(finding(f, true));
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

json sarif_json(const CheckReport& report, const std::string& tool_version) {
  json rules = json::array();
  std::map<std::string, int> rule_index;
  json results = json::array();
  const std::string& file = report.deployment.file;
  auto add = [&](const Finding& f, bool ignored) {
    auto [it, fresh] = rule_index.emplace(f.id, static_cast<int>(rules.size()));
    if (fresh) {
      rules.push_back(
          {{"id", f.id},
           {"shortDescription", {{"text", f.title}}},
           {"defaultConfiguration", {{"level", sarif_level(f.severity)}}},
           {"properties",
            {{"severity", f.severity}, {"status", f.status}, {"evidence", f.evidence}}}});
    }
    json r = {{"ruleId", f.id},
              {"ruleIndex", it->second},
              {"level", sarif_level(f.severity)},
              {"kind", "fail"},
              {"message", {{"text", message_text(f)}}},
              {"properties", {{"why", f.why}, {"severity", f.severity}, {"possible", f.possible}}}};
    json locs = json::array();
    for (const auto& l : f.locations) locs.push_back(location(l.file.empty() ? file : l.file, l.pos));
    if (locs.empty() && !file.empty()) locs.push_back(location(file, f.pos));
    if (!locs.empty()) r["locations"] = std::move(locs);
    if (ignored) {
      r["suppressions"] = json::array(
          {{{"kind", "external"}, {"status", "accepted"}, {"justification", f.ignore_reason}}});
    }
    results.push_back(std::move(r));
  };
  for (const auto& f : report.findings) add(f, false);
  for (const auto& f : report.ignored) add(f, true);

  json notes = json::array();
  bool ok = true;
  for (const auto& d : report.diagnostics) {
    ok = ok && d.severity != Severity::error;
    json n = {{"level", sarif_level(d.severity)},
              {"message", {{"text", d.message + (d.hint.empty() ? "" : " (" + d.hint + ")")}}},
              {"descriptor", {{"id", d.code}}}};
    if (!d.file.empty()) n["locations"] = json::array({location(d.file, Pos{d.line, d.column})});
    notes.push_back(std::move(n));
  }
  json run = {
      {"tool",
       {{"driver", {{"name", "kb"}, {"version", tool_version}, {"rules", std::move(rules)}}}}},
      {"invocations",
       json::array({{{"executionSuccessful", ok}, {"toolExecutionNotifications", notes}}})},
      {"results", std::move(results)}};
  if (!file.empty()) run["artifacts"] = json::array({{{"location", {{"uri", file_uri(file)}}}}});
  return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
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
                            [](const Diagnostic& x) { return x.code == "yaml.syntax"; });
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
          diags.push_back({Severity::warning, "check.numeric-version", file, 0, 0,
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
