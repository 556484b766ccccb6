// `kb check --format sarif`: SARIF 2.1.0 for GitHub code scanning and other viewers.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <system_error>

#include "check_json.h"
#include "json.h"
#include "kb/text.h"

namespace kb::json {

using nlohmann::json;

namespace {

constexpr const char* kSarifSchema =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

// SARIF levels: a blocker fails the scan, a major is worth a look, the rest inform.
std::string sarif_level(std::string_view severity) {
  if (severity == to_string(GotchaSeverity::blocker)) return "error";
  if (severity == to_string(GotchaSeverity::major)) return "warning";
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

// One spelling per file however the path was typed (`x`, `./x`, `a/../x`, an absolute
// path under the working directory): relative to the working directory, normalised, with
// '/' separators. Fingerprints, URIs and the run's id depend on it.
std::string repo_path(std::string_view path) {
  if (path.empty() || path == "-") return std::string(path);
  namespace fs = std::filesystem;
  fs::path p(path);
  if (p.is_absolute()) {
    std::error_code ec;
    const fs::path cwd = fs::current_path(ec);
    if (!ec) {
      const fs::path rel = p.lexically_normal().lexically_relative(cwd);
      if (!rel.empty() && *rel.begin() != "..") p = rel;
    }
  }
  std::string out = p.lexically_normal().generic_string();
  while (out.starts_with("./")) out.erase(0, 2);
  return out.empty() ? std::string(path) : out;
}

json location(const std::string& raw_file, Pos pos, Pos end = {}) {
  const std::string file = repo_path(raw_file);
  json region = {{"startLine", pos.line > 0 ? pos.line : 1}};
  if (pos.line > 0 && pos.column > 0) region["startColumn"] = pos.column;
  if (pos.line > 0 && end.line >= pos.line && end.column > 0) {
    region["endLine"] = end.line;
    region["endColumn"] = end.column;
  }
  json artifact = {{"uri", file_uri(file)}};
  if (!file.starts_with('/')) artifact["uriBaseId"] = "%SRCROOT%";
  return {{"physicalLocation",
           {{"artifactLocation", std::move(artifact)}, {"region", std::move(region)}}}};
}

std::string message_text(const Finding& f) {
  std::string text = f.title + " [" + f.severity + ", " + f.status + ", " + f.evidence + "]";
  if (!f.service.empty()) text += " on service " + f.service;
  if (f.possible) text += " (possible: a version or value is not known)";
  if (!f.why.empty()) {
    text += ". Matched: ";
    for (std::size_t i = 0; i < f.why.size(); ++i) text += (i ? "; " : "") + f.why[i];
    text += ".";
  }
  if (!f.workaround.empty()) text += " Do: " + f.workaround;
  for (const auto& a : f.fixes) text += " Fix: " + a.advice + ".";
  return text;
}

// Stable across runs and line moves: the gotcha, the service and the file it hit.
std::string fingerprint(const Finding& f, const std::string& raw_file) {
  const std::string file = repo_path(raw_file);
  // A script's services are named after the path as typed (`./x.sh:3`): spell it once.
  const std::string service = !raw_file.empty() && f.service.starts_with(raw_file + ":")
                                  ? file + f.service.substr(raw_file.size())
                                  : f.service;
  std::uint64_t h = 1469598103934665603ull;
  for (const std::string* part : {&f.id, &service, &file}) {
    for (unsigned char c : *part) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

json sarif_json(const CheckReport& report, const std::string& tool_version,
                const std::string& base_url) {
  json rules = json::array();
  std::map<std::string, int> rule_index;
  json results = json::array();
  const std::string& file = report.deployment.file;
  auto add = [&](const Finding& f, bool ignored) {
    auto [it, fresh] = rule_index.emplace(f.id, static_cast<int>(rules.size()));
    if (fresh) {
      json rule = {{"id", f.id},
                   {"name", std::string(text::id_slug(f.id))},
                   {"shortDescription", {{"text", f.title}}},
                   {"fullDescription", {{"text", f.symptom.empty() ? f.title : f.symptom}}},
                   {"defaultConfiguration", {{"level", sarif_level(f.severity)}}},
                   {"properties",
                    {{"severity", f.severity},
                     {"status", f.status},
                     {"evidence", f.evidence},
                     {"tags", f.tags}}}};
      if (!f.workaround.empty()) {
        rule["help"] = {{"text", f.workaround}, {"markdown", f.workaround_markdown}};
      }
      if (!base_url.empty()) rule["helpUri"] = gotcha_url(base_url, f.id, false);
      rules.push_back(std::move(rule));
    }
    const std::string where = f.locations.empty() ? file : f.locations.front().file;
    json r = {{"ruleId", f.id},
              {"ruleIndex", it->second},
              {"level", sarif_level(f.severity)},
              {"kind", "fail"},
              {"message", {{"text", message_text(f)}}},
              {"partialFingerprints", {{"kbFinding/v1", fingerprint(f, where)}}},
              {"properties", {{"why", f.why}, {"severity", f.severity}, {"possible", f.possible}}}};
    if (!f.service.empty()) {
      r["properties"]["service"] = f.service;
      json services = json::array();
      for (const auto& s : f.services) services.push_back({{"name", s.name}, {"role", s.role}});
      r["properties"]["services"] = std::move(services);
    }
    json locs = json::array();
    for (const auto& l : f.locations) {
      const std::string& where = l.file.empty() ? file : l.file;
      if (!where.empty()) locs.push_back(location(where, l.pos, l.end));
    }
    if (locs.empty() && !file.empty()) locs.push_back(location(file, f.pos));
    // GitHub reads one location per result: the first line that made the finding true;
    // the others are related locations.
    if (!locs.empty()) {
      r["locations"] = json::array({locs[0]});
      if (locs.size() > 1) {
        json related = json::array();
        for (std::size_t i = 1; i < locs.size(); ++i) {
          json rl = locs[i];
          rl["id"] = static_cast<int>(i);
          rl["message"] = {{"text", "another line that made the finding true"}};
          related.push_back(std::move(rl));
        }
        r["relatedLocations"] = std::move(related);
      }
    }
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
  // A check that could not read the deployment or the knowledge base whole (exit 2) must
  // not look like a clean scan: code scanning closes every open alert on a run with no
  // results. One result says the check is incomplete, at the first error's place.
  if (!ok) {
    const Diagnostic* first = nullptr;
    std::size_t errors = 0;
    for (const auto& d : report.diagnostics) {
      if (d.severity != Severity::error) continue;
      ++errors;
      if (!first) first = &d;
    }
    const std::string id = "kb/check-incomplete";
    const int index = static_cast<int>(rules.size());
    rules.push_back(
        {{"id", id},
         {"name", "check-incomplete"},
         {"shortDescription", {{"text", "kb could not check the deployment whole"}}},
         {"fullDescription",
          {{"text",
            "kb check failed closed (exit 2): an input or the knowledge base could not be read "
            "whole, so no gotcha is ruled out. Fix the errors and run the check again."}}},
         {"defaultConfiguration", {{"level", "error"}}}});
    const std::string where = first && !first->file.empty() ? first->file : file;
    json r = {
        {"ruleId", id},
        {"ruleIndex", index},
        {"level", "error"},
        {"kind", "fail"},
        {"message",
         {{"text", "The check could not run whole (" + std::to_string(errors) +
                       (errors == 1 ? " error" : " errors") + "), so no gotcha is ruled out: " +
                       first->message + (first->hint.empty() ? "" : " (" + first->hint + ")")}}},
        {"properties", {{"code", first->code}, {"errors", errors}}}};
    Finding key;
    key.id = id;
    r["partialFingerprints"] = {{"kbFinding/v1", fingerprint(key, where)}};
    if (!where.empty())
      r["locations"] = json::array({location(where, Pos{first->line, first->column})});
    results.push_back(std::move(r));
  }
  // The deployment's files as given, each spelled one way.
  std::string run_id;
  for (std::size_t at = 0; at <= file.size();) {
    std::size_t comma = file.find(", ", at);
    if (comma == std::string::npos) comma = file.size();
    run_id += (run_id.empty() ? "" : ", ") + repo_path(file.substr(at, comma - at));
    at = comma + 2;
  }
  json driver = {{"name", "kb"},
                 {"version", tool_version},
                 {"semanticVersion", tool_version},
                 {"rules", std::move(rules)}};
  // The kb server the report links to (--base-url): its home page says what kb is and
  // lists every gotcha. Without one there is no page to name.
  if (!base_url.empty()) driver["informationUri"] = base_url;
  json run = {{"tool", {{"driver", std::move(driver)}}},
              {"automationDetails", {{"id", "kb-check/" + run_id + "/"}}},
              {"invocations",
               json::array({{{"executionSuccessful", ok}, {"toolExecutionNotifications", notes}}})},
              {"results", std::move(results)},
              {"properties", {{"schema_version", kSchemaVersion}}}};
  json artifacts = json::array();
  std::map<std::string, bool> seen;
  for (const auto& s : report.deployment.services) {
    if (!s.file.empty() && !seen[s.file]) {
      seen[s.file] = true;
      artifacts.push_back({{"location", {{"uri", file_uri(repo_path(s.file))}}}});
    }
  }
  if (artifacts.empty() && !file.empty())
    artifacts.push_back({{"location", {{"uri", file_uri(repo_path(file))}}}});
  if (!artifacts.empty()) run["artifacts"] = std::move(artifacts);
  return {{"$schema", kSarifSchema}, {"version", "2.1.0"}, {"runs", json::array({run})}};
}

}  // namespace kb::json
