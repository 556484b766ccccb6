#include "openapi.h"

#include <map>
#include <regex>

#include "http_api.h"
#include "json.h"
#include "kb/text.h"
#include "routes.h"

namespace kb::http {

using nlohmann::json;

namespace {

json schema_ref(const std::string& name) {
  return {{"$ref", "#/components/schemas/" + name}};
}
json str() {
  return {{"type", "string"}};
}
json nullable(json type) {
  return {{"type", json::array({type, "null"})}};
}
json array_of(json items) {
  return {{"type", "array"}, {"items", std::move(items)}};
}
// An object with these properties, the listed ones required; more may come (1.x adds).
json object(json properties, std::vector<std::string> required) {
  json o = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) o["required"] = required;
  return o;
}
json strings(const std::vector<std::string_view>& values) {
  return json(std::vector<std::string>(values.begin(), values.end()));
}

// The values of a list-valued parameter, e.g. severity, from the route table.
std::vector<std::string_view> values_of(std::string_view route, std::string_view param) {
  for (const auto& r : route_table()) {
    if (r.name != route) continue;
    if (const Param* p = declared(&r, param)) return p->values;
  }
  return {};
}

json components() {
  const json severity = {{"type", "string"},
                         {"enum", strings(values_of("/api/v1/gotchas", "severity"))}};
  const json status = {{"type", "string"},
                       {"enum", strings(values_of("/api/v1/gotchas", "status"))}};
  const json version = {{"type", "string"}, {"const", kb::json::kSchemaVersion}};
  json s;
  s["Error"] = object({{"schema_version", version},
                       {"error", object({{"code", str()},
                                         {"message", str()},
                                         {"parameter", str()},
                                         {"did_you_mean", str()},
                                         {"allowed", array_of(str())}},
                                        {"code", "message"})}},
                      {"schema_version", "error"});
  s["Moved"] = object({{"schema_version", version}, {"location", str()}}, {"location"});
  s["Link"] = object({{"id", str()}, {"type", str()}, {"title", str()}, {"url", str()}},
                     {"id", "type", "title", "url"});
  s["GotchaSummary"] =
      object({{"id", str()},
              {"title", str()},
              {"severity", severity},
              {"status", status},
              {"kind", str()},
              {"family", str()},
              {"engines", array_of(str())},
              {"evidence", object({{"state", str()}, {"summary", str()}}, {"state", "summary"})},
              {"updated", str()},
              {"stale", {{"type", "boolean"}}},
              {"url", str()}},
             {"id", "title", "severity", "status", "engines", "evidence", "url"});
  s["Facet"] =
      array_of(object({{"value", str()}, {"count", {{"type", "integer"}}}}, {"value", "count"}));
  s["GotchaList"] =
      object({{"schema_version", version},
              {"snapshot", str()},
              {"total", {{"type", "integer"}}},
              {"limit", {{"type", "integer"}}},
              {"sort", str()},
              {"items", array_of(schema_ref("GotchaSummary"))},
              {"facets", {{"type", "object"}, {"additionalProperties", schema_ref("Facet")}}},
              {"next_page_token", nullable("string")}},
             {"schema_version", "snapshot", "total", "items", "facets", "next_page_token"});
  s["RecordList"] = object({{"schema_version", version},
                            {"snapshot", str()},
                            {"total", {{"type", "integer"}}},
                            {"items", array_of(schema_ref("Link"))},
                            {"next_page_token", nullable("string")}},
                           {"schema_version", "snapshot", "total", "items", "next_page_token"});
  s["Record"] = object(
      {{"schema_version", version},
       {"id", str()},
       {"type", str()},
       {"file", str()},
       {"url", str()},
       {"stale", {{"type", "boolean"}}},
       {"published", {{"type", "string"}, {"format", "date"}}},
       {"modified", {{"type", "string"}, {"format", "date"}}},
       {"aliases", array_of(str())},
       {"references", array_of({{"type", "object"}})},
       {"repairs", array_of({{"type", "object"}})},
       {"referenced_by", array_of(schema_ref("Link"))}},
      {"schema_version", "id", "type", "file", "url", "published", "modified", "referenced_by"});
  s["Search"] = object({{"schema_version", version},
                        {"snapshot", str()},
                        {"query", str()},
                        {"hits", array_of(object({{"id", str()},
                                                  {"type", nullable("string")},
                                                  {"title", str()},
                                                  {"snippet", str()},
                                                  {"snippet_html", str()},
                                                  {"rank", {{"type", "number"}}},
                                                  {"url", str()}},
                                                 {"id", "title", "snippet", "rank", "url"}))}},
                       {"schema_version", "snapshot", "query", "hits"});
  s["Resolve"] = object({{"schema_version", version},
                         {"snapshot", str()},
                         {"query", str()},
                         {"type", str()},
                         {"id", nullable("string")},
                         {"result", array_of(object({{"id", str()},
                                                     {"score", {{"type", "number"}}},
                                                     {"match", {{"type", "boolean"}}},
                                                     {"url", str()}},
                                                    {"id", "score", "match", "url"}))}},
                        {"schema_version", "query", "type", "id", "result"});
  s["Diagnostic"] = object({{"file", str()},
                            {"line", {{"type", "integer"}}},
                            {"column", {{"type", "integer"}}},
                            {"severity", str()},
                            {"code", str()},
                            {"message", str()}},
                           {"severity", "code", "message"});
  s["Diagnostics"] = object({{"schema_version", version},
                             {"snapshot", str()},
                             {"records", {{"type", "integer"}}},
                             {"errors", {{"type", "integer"}}},
                             {"warnings", {{"type", "integer"}}},
                             {"diagnostics", array_of(schema_ref("Diagnostic"))}},
                            {"schema_version", "records", "errors", "warnings", "diagnostics"});
  s["Changes"] = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"since", {{"type", "integer"}}},
       {"cursor", {{"type", "integer"}}},
       {"changes", array_of(object({{"id", str()},
                                    {"type", str()},
                                    {"published", str()},
                                    {"modified", str()},
                                    {"changed_at", str()},
                                    {"changed_at_ms", {{"type", "integer"}}},
                                    {"deleted", {{"type", "boolean"}}},
                                    {"url", nullable("string")}},
                                   {"id", "changed_at", "changed_at_ms", "deleted", "url"}))}},
      {"schema_version", "since", "cursor", "changes"});
  s["Export"] = object({{"schema_version", version},
                        {"snapshot", str()},
                        {"generation", {{"type", "integer"}}},
                        {"exported_at", str()},
                        {"records", array_of({{"type", "object"}, {"required", {"id", "type"}}})},
                        {"diagnostics", {{"type", "object"}}}},
                       {"schema_version", "snapshot", "records"});
  s["CheckResult"] = object(
      {{"findings", array_of(object({{"id", str()}, {"title", str()}, {"severity", severity}},
                                    {"id", "title", "severity"}))},
       {"ignored", array_of({{"type", "object"}})},
       {"diagnostics", array_of(schema_ref("Diagnostic"))},
       {"deployment", {{"type", "object"}}},
       {"counts", {{"type", "object"}}},
       {"fails", {{"type", "boolean"}}}},
      {"findings", "diagnostics", "counts"});
  s["Check"] = {{"allOf", json::array({schema_ref("CheckResult"),
                                       object({{"schema_version", version}, {"snapshot", str()}},
                                              {"schema_version", "snapshot"})})}};
  s["CheckBatch"] = object({{"schema_version", version},
                            {"snapshot", str()},
                            {"count", {{"type", "integer"}}},
                            {"results", array_of({{"type", "object"}, {"required", {"index"}}})}},
                           {"schema_version", "snapshot", "count", "results"});
  s["Triage"] = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"matches",
        array_of(object(
            {{"id", str()},
             {"title", str()},
             {"severity", severity},
             {"status", str()},
             {"workaround", str()},
             {"signatures", array_of(object({{"signature", str()}, {"engine", nullable("string")}},
                                            {"signature", "engine"}))},
             {"count", {{"type", "integer"}}},
             {"lines", array_of(object({{"line", {{"type", "integer"}}}, {"text", str()}},
                                       {"line", "text"}))},
             {"api_url", str()}},
            {"id", "title", "severity", "status", "signatures", "count", "lines"}))},
       {"lines", {{"type", "integer"}}},
       {"bytes", {{"type", "integer"}}},
       {"long_lines", {{"type", "integer"}}},
       {"signatures", {{"type", "integer"}}}},
      {"schema_version", "snapshot", "matches", "lines", "bytes", "signatures"});
  s["Health"] = object({{"schema_version", version},
                        {"status", str()},
                        {"snapshot", str()},
                        {"records", {{"type", "integer"}}},
                        {"reload", {{"type", "object"}}}},
                       {"schema_version", "status", "snapshot", "reload"});
  s["Index"] = object(
      {{"schema_version", version},
       {"version", str()},
       {"routes", array_of(object({{"method", str()}, {"path", str()}}, {"method", "path"}))}},
      {"schema_version", "routes"});
  s["OpenAPI"] =
      object({{"openapi", str()}, {"paths", {{"type", "object"}}}}, {"openapi", "paths"});
  // A JSON Schema (draft 2020-12) of record files, as schemas/ holds it.
  s["JsonSchema"] = {{"type", "object"}};
  s["SchemaList"] = {{"type", "object"}};
  return s;
}

// The response shape of each documented route (by its table name) and the errors it
// may answer besides 400 (strict parameters) and 405.
struct Shape {
  std::string_view route;
  std::string_view method;
  std::string_view schema;  ///< empty: text (Prometheus)
  std::vector<int> errors;
  std::string_view operation;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> kShapes = {
      {"/healthz", "GET", "Health", {503}, "health"},
      {"/metrics", "GET", "", {}, "metrics"},
      {"/api/v1", "GET", "Index", {}, "index"},
      {"/api/v1/openapi.json", "GET", "OpenAPI", {}, "openapi"},
      {"/api/v1/gotchas", "GET", "GotchaList", {}, "listGotchas"},
      {"/api/v1/{type}", "GET", "RecordList", {404}, "listRecords"},
      {"/api/v1/{type}/{slug}", "GET", "Record", {301, 404}, "getRecord"},
      {"/api/v1/search", "GET", "Search", {503}, "search"},
      {"/api/v1/resolve", "GET", "Resolve", {}, "resolve"},
      {"/api/v1/diagnostics", "GET", "Diagnostics", {}, "diagnostics"},
      {"/api/v1/changes", "GET", "Changes", {}, "changes"},
      {"/api/v1/export", "GET", "Export", {}, "export"},
      {"/api/v1/schemas", "GET", "SchemaList", {}, "listSchemas"},
      {"/api/v1/schemas/{namespace}.schema.json", "GET", "JsonSchema", {404}, "getSchema"},
      {"/api/v1/check", "POST", "Check", {413, 415, 422, 503}, "check"},
      {"/api/v1/check/batch", "POST", "CheckBatch", {413, 415, 422, 503}, "checkBatch"},
      {"/api/v1/triage", "POST", "Triage", {413, 415, 422}, "triage"},
  };
  return kShapes;
}

const Shape* shape_of(const Route& r) {
  for (const auto& s : shapes()) {
    if (s.route == r.name && s.method == r.method) return &s;
  }
  return nullptr;
}

json parameter(const Param& p) {
  json schema = {{"type", param_type_name(p.type)}};
  if (!p.values.empty() && p.type == ParamType::string) schema["enum"] = strings(p.values);
  if (!p.fallback.empty()) {
    if (p.type == ParamType::integer)
      schema["default"] = std::stoll(std::string(p.fallback));
    else if (p.type == ParamType::boolean)
      schema["default"] = p.fallback == "true";
    else
      schema["default"] = p.fallback;
  }
  if (p.type == ParamType::integer) schema["minimum"] = 0;
  std::string doc(p.doc);
  if (p.type == ParamType::list) {
    doc += p.values.empty() ? "" : "; each one of " + strings(p.values).dump();
    if (!p.values.empty()) {
      std::string alt;
      for (auto v : p.values) alt += (alt.empty() ? "" : "|") + std::string(v);
      schema["pattern"] = "^ *(" + alt + ")? *(, *(" + alt + ")? *)*$";
    }
  }
  return {{"name", p.name},
          {"in", "query"},
          {"required", p.required},
          {"description", doc},
          {"schema", std::move(schema)}};
}

// Path parameters of a route: `{name}` in its documented path is the n-th capture of its
// pattern; a capture of alternatives `(a|b)` is an enum.
json path_parameters(const Route& r) {
  json out = json::array();
  static const std::regex kName("\\{([a-z]+)\\}");
  static const std::regex kGroup("\\(([^()?]*)\\)");
  std::vector<std::string> groups;
  const std::string pattern(r.pattern);
  for (auto it = std::sregex_iterator(pattern.begin(), pattern.end(), kGroup);
       it != std::sregex_iterator(); ++it)
    groups.push_back((*it)[1].str());
  const std::string name(r.name);
  std::size_t n = 0;
  for (auto it = std::sregex_iterator(name.begin(), name.end(), kName);
       it != std::sregex_iterator(); ++it, ++n) {
    json schema = str();
    if (n < groups.size() && groups[n].find('|') != std::string::npos) {
      json values = json::array();
      std::string g = groups[n];
      for (std::size_t at = 0; at <= g.size();) {
        auto bar = std::min(g.find('|', at), g.size());
        values.push_back(g.substr(at, bar - at));
        at = bar + 1;
      }
      schema["enum"] = values;
    }
    out.push_back(
        {{"name", (*it)[1].str()}, {"in", "path"}, {"required", true}, {"schema", schema}});
  }
  return out;
}

json error_response(const std::string& why) {
  return {{"description", why},
          {"content", {{"application/json", {{"schema", schema_ref("Error")}}}}}};
}

json operation(const Route& r, const Shape& s) {
  json params = path_parameters(r);
  for (const auto& p : r.params) params.push_back(parameter(p));
  json ok;
  if (s.schema.empty()) {
    ok = {{"description", "Prometheus text"}, {"content", {{"text/plain", {{"schema", str()}}}}}};
  } else {
    ok = {{"description", std::string(r.summary)},
          {"content", {{"application/json", {{"schema", schema_ref(std::string(s.schema))}}}}}};
    if (declared(&r, "format")) {
      ok["content"]["text/csv"] = {{"schema", str()}};
      ok["content"]["application/x-ndjson"] = {{"schema", str()}};
    }
  }
  json responses = {{"200", ok},
                    {"400", error_response("a parameter the route does not take, or a bad value")},
                    {"405", error_response("a method the path does not answer")}};
  for (int e : s.errors) {
    if (e == 301) {
      responses["301"] = {{"description", "a former id: the record lives at Location"},
                          {"content", {{"application/json", {{"schema", schema_ref("Moved")}}}}}};
    } else {
      responses[std::to_string(e)] = error_response("see the message");
    }
  }
  if (r.cacheable) responses["304"] = {{"description", "If-None-Match holds the current ETag"}};
  json op = {{"operationId", s.operation},
             {"summary", std::string(r.summary)},
             {"parameters", std::move(params)},
             {"responses", std::move(responses)}};
  if (r.name == "/api/v1/triage") {
    op["requestBody"] = {{"required", true},
                         {"description", "the log's text, or {\"log\": \"...\"}"},
                         {"content",
                          {{"text/plain", {{"schema", str()}}},
                           {"application/json", {{"schema", object({{"log", str()}}, {"log"})}}}}}};
  } else if (r.method == "POST") {
    op["requestBody"] = {{"required", true},
                         {"description",
                          "a deployment (the hand-written format), an artifact's text, or "
                          "{\"deployment\", \"kind\", \"ignore\"}; a batch is "
                          "{\"deployments\": [...]}"},
                         {"content",
                          {{"application/json", {{"schema", {{"type", "object"}}}}},
                           {"application/yaml", {{"schema", str()}}},
                           {"text/plain", {{"schema", str()}}}}}};
  }
  return op;
}

json build() {
  json paths = json::object();
  for (const auto& r : route_table()) {
    const Shape* s = shape_of(r);
    if (!s) continue;  // HTML pages: outside the JSON API
    paths[std::string(r.name)][text::lower(r.method)] = operation(r, *s);
  }
  return {{"openapi", "3.1.0"},
          {"info",
           {{"title", "kb: the gotcha knowledge base"},
            {"version", kb::json::kSchemaVersion},
            {"description",
             "Every JSON answer carries schema_version. List routes also answer with a "
             ".csv, .ndjson or .json suffix on the path (same as ?format=)."}}},
          {"servers", json::array({{{"url", "/"}}})},
          {"paths", std::move(paths)},
          {"components", {{"schemas", components()}}}};
}

}  // namespace

const json& openapi_document() {
  static const json kDocument = build();
  return kDocument;
}

}  // namespace kb::http
