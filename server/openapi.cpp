#include "openapi.h"

#include <algorithm>
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
json integer() {
  return {{"type", "integer"}};
}
json number() {
  return {{"type", "number"}};
}
json boolean() {
  return {{"type", "boolean"}};
}
json nullable(json type) {
  return {{"type", json::array({type, "null"})}};
}
json array_of(json items) {
  return {{"type", "array"}, {"items", std::move(items)}};
}
// `schema` with a description.
json described(json schema, std::string_view text) {
  schema["description"] = text;
  return schema;
}
// An object with these properties, the listed ones required; more may come (1.x adds), so
// additionalProperties stays open (absent).
json object(json properties, std::vector<std::string> required) {
  json o = {{"type", "object"}, {"properties", std::move(properties)}};
  if (!required.empty()) o["required"] = required;
  return o;
}
// A mapping of names to values of `values`, e.g. a service's config.
json map_of(json values) {
  return {{"type", "object"}, {"additionalProperties", std::move(values)}};
}
// An object whose shape is free-form (a predicate, a JSON Schema).
json any_object(std::string_view text) {
  return {{"type", "object"}, {"additionalProperties", true}, {"description", text}};
}
json strings(const std::vector<std::string_view>& values) {
  return json(std::vector<std::string>(values.begin(), values.end()));
}
template <std::size_t N>
json strings(const std::string_view (&values)[N]) {
  return strings(std::vector<std::string_view>(std::begin(values), std::end(values)));
}
json one_of_values(json values) {
  return {{"type", "string"}, {"enum", std::move(values)}};
}
// `base` with `more`'s properties and required fields added.
json merged(json base, const json& more) {
  for (const auto& [k, v] : more["properties"].items()) base["properties"][k] = v;
  if (more.contains("required")) {
    for (const auto& r : more["required"]) {
      json& required = base["required"];
      if (!required.is_array() || std::find(required.begin(), required.end(), r) == required.end())
        required.push_back(r);
    }
  }
  return base;
}

// The values of a list-valued parameter, e.g. severity, from the route table.
std::vector<std::string_view> values_of(std::string_view route, std::string_view param) {
  for (const auto& r : route_table()) {
    if (r.name != route) continue;
    if (const Param* p = declared(&r, param)) return p->values;
  }
  return {};
}

const std::vector<std::pair<std::string, std::string>>& record_kinds() {
  // The record type (`type`) and the schema of each namespace's records.
  static const std::vector<std::pair<std::string, std::string>> kKinds = {
      {"gotcha", "Gotcha"}, {"engine", "Engine"},   {"oracle", "Oracle"},
      {"result", "Result"}, {"setting", "Setting"}, {"model", "Model"}};
  return kKinds;
}

// The record schemas (record files as JSON, json.cpp): `Gotcha`, `Engine`, ... as GET
// /api/v1/{type}/{slug} answers them, `ExportedGotcha`, ... as /api/v1/export lists them.
void record_schemas(json& s, const json& version, const json& severity, const json& status) {
  const json ref = schema_ref("Reference");
  const json refs = array_of(ref);
  const json cites = array_of(schema_ref("Citation"));
  const json date = {{"type", "string"}, {"format", "date"}};
  // Every record, whatever its type.
  const json common =
      object({{"id", described(str(), "namespace/slug, e.g. gotchas/apc-warm-hit-differs")},
              {"type", str()},
              {"file", described(str(), "the record's file, relative to the records directory")},
              {"title", str()},
              {"notes", described(str(), "Markdown")},
              {"aliases", described(array_of(str()), "former ids and other names")},
              {"references", cites},
              {"repairs", array_of(object({{"date", str()},
                                           {"field", str()},
                                           {"from", str()},
                                           {"to", str()},
                                           {"reason", str()},
                                           {"confidence", number()}},
                                          {"date", "field", "from", "to"}))},
              {"stale", described(boolean(),
                                  "the record's file failed to load; this is its last good "
                                  "version")},
              {"published", described(date, "when the record first said what it says")},
              {"modified", described(date, "when its content (or its evidence) last changed")}},
             {"id", "type", "file", "aliases", "references", "repairs"});
  // What a record's own answer adds.
  const json detail = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"url", described(str(), "this record's API path")},
       {"referenced_by",
        described(array_of(schema_ref("Link")), "records that name this one, with the fields")}},
      {"schema_version", "url", "stale", "published", "modified", "referenced_by"});
  // What an exported record adds.
  const json exported =
      object({{"content_hash", str()}}, {"stale", "content_hash", "published", "modified"});

  const json fix = object(
      {{"engine", ref},
       {"issues", cites},
       {"prs", cites},
       {"fixed_in", described(nullable("string"), "the first fixed version; null: not fixed")},
       {"resolution", one_of_values(strings(fix_resolution::kAll))},
       {"note", str()},
       {"cause", described(str(), "the cause this chain is about; absent: the whole gotcha")},
       {"affected", described(str(), "the version range this chain covers")}},
      {"engine", "issues", "prs", "fixed_in", "resolution"});
  const json detection = object(
      {{"lying_signals", array_of(str())},
       {"oracles", refs},
       {"silent", nullable("boolean")},
       {"canary", str()},
       {"signatures",
        array_of(object(
            {{"literal", str()}, {"regex", str()}, {"engine", ref}, {"versions", str()}}, {}))}},
      {"lying_signals", "oracles", "silent"});
  std::map<std::string, json> own;
  own["gotcha"] = object(
      {{"type", {{"type", "string"}, {"const", "gotcha"}}},
       {"severity", severity},
       {"status", status},
       {"kind", described(str(), "the category, e.g. correctness")},
       {"family", str()},
       {"created", str()},
       {"updated", str()},
       {"as_of", str()},
       {"confidence", str()},
       {"tags", array_of(str())},
       {"affects", described(refs, "the engines it affects")},
       {"applies_when", any_object("the predicate a deployment is checked against")},
       {"symptom", described(str(), "Markdown")},
       {"root_cause", described(str(), "Markdown")},
       {"workaround", described(str(), "Markdown")},
       {"related", refs},
       {"oracles", refs},
       {"fixes", described(array_of(fix),
                           "the fix chain: per engine (and cause), where and how "
                           "it was fixed")},
       {"detection", detection},
       {"impact",
        array_of(object({{"metric", str()}, {"change", str()}, {"note", str()}}, {"metric"}))},
       {"evidence", schema_ref("EvidenceSummary")}},
      {"type", "severity", "status", "tags", "affects", "related", "oracles", "fixes", "impact",
       "evidence"});
  const json engines_list = array_of(ref);
  own["engine"] = object(
      {{"type", {{"type", "string"}, {"const", "engine"}}},
       {"name", str()},
       {"repo", str()},
       {"url", described(str(),
                         "the project's home page (in a record's own answer: its API "
                         "path)")},
       {"description", str()},
       {"kind", str()},
       {"relations",
        array_of(object({{"type", one_of_values(strings(relation_type::kAll))}, {"engine", ref}},
                        {"type", "engine"}))},
       {"packages",
        array_of(object({{"name", str()}, {"ecosystem", str()}}, {"name", "ecosystem"}))},
       {"images",
        array_of(object({{"image", str()}, {"engines", engines_list}}, {"image", "engines"}))},
       {"entrypoints", array_of(object({{"command", str()},
                                        {"module", str()},
                                        {"role", str()},
                                        {"engines", engines_list},
                                        {"wraps", str()},
                                        {"value_options", array_of(str())},
                                        {"serves", boolean()},
                                        {"implies", map_of(str())},
                                        {"versions", str()}},
                                       {}))},
       {"shell_functions",
        array_of(object(
            {{"name", str()}, {"sets", str()}, {"argument", described(integer(), "1-based")}},
            {"name", "sets", "argument"}))},
       {"resources",
        array_of(object(
            {{"kind", str()},
             {"group", str()},
             {"engines", engines_list},
             {"container", str()},
             {"args_env", array_of(str())},
             {"model", array_of(str())},
             {"pods", array_of(object(
                          {{"path", str()}, {"role", str()}, {"when", str()}, {"role_from", str()}},
                          {"path"}))},
             {"pools", array_of(str())},
             {"pool_keys", array_of(str())}},
            {"kind"}))},
       {"charts", array_of(object({{"values", str()},
                                   {"engines", engines_list},
                                   {"name", str()},
                                   {"image", array_of(str())},
                                   {"model", array_of(str())},
                                   {"args", array_of(str())},
                                   {"command", array_of(str())},
                                   {"env", array_of(str())},
                                   {"env_vars", array_of(str())},
                                   {"engine_args", array_of(str())},
                                   {"keys_of", ref},
                                   {"settings", array_of(str())},
                                   {"role", str()},
                                   {"inherit", str()}},
                                  {"values"}))},
       {"probe", array_of(object({{"path", str()}, {"version", str()}, {"expect", map_of(str())}},
                                 {"path"}))},
       {"releases", array_of(object({{"version", str()}, {"bundles", refs}, {"date", str()}},
                                    {"version", "bundles"}))}},
      {"type", "relations", "packages", "images", "entrypoints", "shell_functions", "resources",
       "charts", "probe", "releases"});
  own["oracle"] =
      object({{"type", {{"type", "string"}, {"const", "oracle"}}},
              {"method", described(str(), "Markdown")},
              {"pass_criterion", str()},
              {"runner", object({{"kind", str()}, {"params", map_of(str())}}, {"kind", "params"})}},
             {"type"});
  own["result"] = object(
      {{"type", {{"type", "string"}, {"const", "result"}}},
       {"oracle", ref},
       {"date", str()},
       {"subject", object({{"engines", refs}, {"config", map_of(str())}, {"model", str()}},
                          {"engines", "config"})},
       {"passed", integer()},
       {"failed", integer()},
       {"errors", integer()},
       {"skipped", integer()},
       {"evidence_for", refs},
       {"source", schema_ref("Citation")},
       {"failures", array_of(object({{"prompt", integer()},
                                     {"position", integer()},
                                     {"compared", str()},
                                     {"expected", str()},
                                     {"got", str()},
                                     {"trial", integer()},
                                     {"run", integer()}},
                                    {"prompt", "position", "compared", "expected", "got"}))},
       {"incomplete", boolean()}},
      {"type", "oracle", "subject", "passed", "failed", "evidence_for", "failures", "incomplete"});
  const json spelling = object({{"flag", str()},
                                {"name", str()},
                                {"key", str()},
                                {"field", str()},
                                {"value", str()},
                                {"invert", boolean()},
                                {"takes_value", boolean()},
                                {"several", str()}},
                               {});
  own["setting"] = object(
      {{"type", {{"type", "string"}, {"const", "setting"}}},
       {"key", described(str(), "the canonical key, e.g. prefix_caching")},
       {"value_type", one_of_values(strings(setting_type::kAll))},
       {"scope", str()},
       {"description", str()},
       {"synonyms", array_of(str())},
       {"values", array_of(object({{"value", str()},
                                   {"synonyms", array_of(str())},
                                   {"description", str()},
                                   {"engines", refs},
                                   {"implies", map_of(str())},
                                   {"runs_shipped_engines", boolean()},
                                   {"in_names", array_of(str())},
                                   {"routed_by", array_of(str())}},
                                  {"value", "synonyms"}))},
       {"derive",
        array_of(object({{"value", str()}, {"roles", array_of(str())}, {"shared", array_of(str())}},
                        {"value", "roles"}))},
       {"file_of", ref},
       {"engines", array_of(object({{"engine", ref},
                                    {"flags", array_of(spelling)},
                                    {"env", array_of(spelling)},
                                    {"json", array_of(spelling)},
                                    {"keys", array_of(spelling)},
                                    {"versions", str()},
                                    {"defaults", array_of(object({{"value", str()},
                                                                  {"derived", str()},
                                                                  {"versions", str()},
                                                                  {"roles", array_of(str())}},
                                                                 {}))}},
                                   {"engine", "flags", "env", "json", "keys", "defaults"}))}},
      {"type", "key", "value_type", "scope", "synonyms", "values", "engines"});
  own["model"] = object({{"type", {{"type", "string"}, {"const", "model"}}},
                         {"match", described(array_of(str()), "model id globs")},
                         {"traits", map_of(str())}},
                        {"type", "match", "traits"});
  // What references a record, by type, in its own answer.
  std::map<std::string, json> back;
  back["gotcha"] = object({{"related_by", array_of(schema_ref("Link"))}}, {"related_by"});
  back["engine"] =
      object({{"gotchas", described(array_of(schema_ref("GotchaSummary")), "gotchas naming it")}},
             {"gotchas"});
  back["oracle"] = object({{"results", array_of(schema_ref("Link"))}}, {"results"});

  json records = json::array(), exports = json::array();
  json mapping = json::object(), export_mapping = json::object();
  for (const auto& [type, name] : record_kinds()) {
    json one = merged(common, own[type]);
    json whole = merged(one, detail);
    if (back.count(type)) whole = merged(whole, back[type]);
    whole["description"] = "a " + type + " record, resolved, with what references it";
    s[name] = whole;
    json out = merged(one, exported);
    out["description"] = "a " + type + " record as /api/v1/export lists it";
    s["Exported" + name] = out;
    records.push_back(schema_ref(name));
    exports.push_back(schema_ref("Exported" + name));
    mapping[type] = "#/components/schemas/" + name;
    export_mapping[type] = "#/components/schemas/Exported" + name;
  }
  s["Record"] = {{"oneOf", records},
                 {"discriminator", {{"propertyName", "type"}, {"mapping", mapping}}}};
  s["ExportedRecord"] = {
      {"oneOf", exports},
      {"discriminator", {{"propertyName", "type"}, {"mapping", export_mapping}}}};
}

json components() {
  const json severity = {{"type", "string"},
                         {"enum", strings(values_of("/api/v1/gotchas", "severity"))}};
  const json status = {{"type", "string"},
                       {"enum", strings(values_of("/api/v1/gotchas", "status"))}};
  const json evidence_state = {{"type", "string"},
                               {"enum", strings(values_of("/api/v1/gotchas", "reproduced"))}};
  const json version = {{"type", "string"}, {"const", kb::json::kSchemaVersion}};
  const json date = {{"type", "string"}, {"format", "date"}};
  const json time = {{"type", "string"}, {"format", "date-time"}};
  json s;
  s["Error"] = object(
      {{"schema_version", version},
       {"error",
        object(
            {{"code", described(str(), "stable, e.g. invalid-argument, not-found")},
             {"message", str()},
             {"parameter", str()},
             {"did_you_mean", str()},
             {"allowed", array_of(str())},
             {"candidates",
              described(array_of(object(
                            {{"id", str()}, {"score", number()}, {"url", str()}, {"title", str()}},
                            {"id", "score", "url"})),
                        "a missing record's closest ids")},
             {"diagnostics", array_of(schema_ref("Diagnostic"))}},
            {"code", "message"})}},
      {"schema_version", "error"});
  s["Moved"] =
      object({{"schema_version", version}, {"location", str()}}, {"schema_version", "location"});
  s["Link"] = object({{"id", str()},
                      {"type", str()},
                      {"title", str()},
                      {"url", str()},
                      {"fields", described(array_of(str()), "the fields naming the record")}},
                     {"id", "type", "title", "url"});
  s["Reference"] = described(
      object({{"raw", described(str(), "as the record writes it")},
              {"field", described(str(), "where, e.g. affects[0]")},
              {"id", described(nullable("string"), "the record it resolves to; null: none")},
              {"name", str()},
              {"version", str()},
              {"versions", str()}},
             {"raw", "field", "id"}),
      "a reference to another record, resolved");
  s["Citation"] = object({{"type", str()},
                          {"repo", str()},
                          {"number", integer()},
                          {"ref", str()},
                          {"title", str()},
                          {"state", str()},
                          {"as_of", str()},
                          {"date", str()},
                          {"note", str()},
                          {"url", str()}},
                         {"type"});
  s["EvidenceGroup"] =
      object({{"oracle", str()},
              {"subject", str()},
              {"summary", str()},
              {"passed", integer()},
              {"failed", integer()},
              {"errors", integer()},
              {"skipped", integer()},
              {"runs", integer()},
              {"newest_date", nullable("string")},
              {"results", array_of(str())},
              {"engines", array_of(object({{"engine", str()}, {"version", str()}}, {"engine"}))},
              {"config", map_of(str())}},
             {"oracle", "subject", "summary", "passed", "failed", "errors", "skipped", "runs",
              "newest_date", "results", "engines", "config"});
  s["EvidenceSummary"] =
      object({{"state", evidence_state},
              {"summary", str()},
              {"passed", integer()},
              {"failed", integer()},
              {"errors", integer()},
              {"runs", integer()},
              {"newest_date", nullable("string")},
              {"by_oracle", array_of(object({{"oracle", str()},
                                             {"passed", integer()},
                                             {"failed", integer()},
                                             {"errors", integer()},
                                             {"runs", integer()}},
                                            {"oracle", "passed", "failed", "errors", "runs"}))},
              {"groups", array_of(schema_ref("EvidenceGroup"))},
              {"controls", array_of(schema_ref("EvidenceGroup"))},
              {"controls_omitted", integer()}},
             {"state", "summary", "passed", "failed", "errors", "runs", "newest_date", "by_oracle",
              "groups", "controls", "controls_omitted"});
  s["GotchaSummary"] = object(
      {{"id", str()},
       {"title", str()},
       {"severity", severity},
       {"status", status},
       {"kind", str()},
       {"family", str()},
       {"engines", described(array_of(str()), "engine ids")},
       {"evidence", object({{"state", evidence_state}, {"summary", str()}}, {"state", "summary"})},
       {"updated", str()},
       {"stale", boolean()},
       {"url", str()}},
      {"id", "title", "severity", "status", "engines", "evidence", "url"});
  s["Facet"] = array_of(object({{"value", str()}, {"count", integer()}}, {"value", "count"}));
  s["GotchaList"] = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"total", integer()},
       {"limit", integer()},
       {"sort", str()},
       {"items", array_of(schema_ref("GotchaSummary"))},
       {"facets", described(map_of(schema_ref("Facet")),
                            "per filter (engine, severity, ...), its values and their counts")},
       {"next_page_token", described(nullable("string"), "null: the last page")}},
      {"schema_version", "snapshot", "total", "limit", "sort", "items", "facets",
       "next_page_token"});
  s["RecordListItem"] =
      merged(s["Link"], object({{"gotchas", described(integer(), "engines: the gotchas naming it")},
                                {"date", described(str(), "results: the run's date")},
                                {"passed", integer()},
                                {"failed", integer()}},
                               {}));
  s["RecordList"] = object({{"schema_version", version},
                            {"snapshot", str()},
                            {"total", integer()},
                            {"items", array_of(schema_ref("RecordListItem"))},
                            {"next_page_token", nullable("string")}},
                           {"schema_version", "snapshot", "total", "items", "next_page_token"});
  record_schemas(s, version, severity, status);
  s["Search"] = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"query", str()},
       {"hits",
        array_of(object({{"id", str()},
                         {"type", nullable("string")},
                         {"title", str()},
                         {"snippet", str()},
                         {"snippet_html", described(str(), "matches in <mark>")},
                         {"rank", described(number(), "lower is better")},
                         {"url", str()}},
                        {"id", "type", "title", "snippet", "snippet_html", "rank", "url"}))},
       {"suggestion", described(str(), "the query with a typo of a name corrected")},
       {"corrected", described(boolean(), "the hits are the suggestion's: the query found none")}},
      {"schema_version", "snapshot", "query", "hits"});
  s["Resolve"] = object({{"schema_version", version},
                         {"snapshot", str()},
                         {"query", str()},
                         {"type", str()},
                         {"id", nullable("string")},
                         {"result", array_of(object({{"id", str()},
                                                     {"score", number()},
                                                     {"match", boolean()},
                                                     {"url", str()},
                                                     {"name", str()}},
                                                    {"id", "score", "match", "url"}))},
                         {"rule", str()},
                         {"how", str()},
                         {"reason", str()},
                         {"other_namespace_id", str()}},
                        {"schema_version", "snapshot", "query", "type", "id", "result", "rule"});
  s["Diagnostic"] = object({{"file", str()},
                            {"line", integer()},
                            {"column", integer()},
                            {"severity", one_of_values(json::array({"error", "warning", "note"}))},
                            {"code", described(str(), "e.g. yaml.syntax, check.unknown-setting")},
                            {"message", str()},
                            {"hint", str()},
                            {"record", str()}},
                           {"file", "line", "column", "severity", "code", "message"});
  const json lint = object({{"records", integer()},
                            {"errors", integer()},
                            {"warnings", integer()},
                            {"diagnostics", array_of(schema_ref("Diagnostic"))}},
                           {"records", "errors", "warnings", "diagnostics"});
  s["Diagnostics"] =
      merged(lint, object({{"schema_version", version},
                           {"snapshot", str()},
                           {"notes", described(integer(), "diagnostics of severity note")}},
                          {"schema_version", "snapshot", "notes"}));
  s["Changes"] =
      object({{"schema_version", version},
              {"snapshot", str()},
              {"since", integer()},
              {"cursor", described(integer(), "unix milliseconds: the next request's since")},
              {"changes",
               array_of(object({{"id", str()},
                                {"type", str()},
                                {"published", date},
                                {"modified", date},
                                {"dated", described(boolean(), "the record gives its own date")},
                                {"changed_at", time},
                                {"changed_at_ms", integer()},
                                {"content_hash", str()},
                                {"deleted", boolean()},
                                {"url", described(nullable("string"), "null: deleted")}},
                               {"id", "changed_at", "changed_at_ms", "deleted", "url"}))}},
             {"schema_version", "snapshot", "since", "cursor", "changes"});
  s["Export"] =
      object({{"schema_version", version},
              {"snapshot", str()},
              {"generation", integer()},
              {"exported_at", time},
              {"records", array_of(schema_ref("ExportedRecord"))},
              {"diagnostics", lint}},
             {"schema_version", "snapshot", "generation", "exported_at", "records", "diagnostics"});

  // POST /api/v1/check.
  const json value = {{"type", json::array({"string", "number", "boolean"})}};
  const json input_engine =
      object({{"engine", described(str(), "an engine id or any name resolving to one")},
              {"version", described({{"type", json::array({"string", "number"})}},
                                    "write it as a string: a JSON number loses trailing zeros")}},
             {"engine"});
  s["DeploymentInput"] = described(
      object({{"engines", array_of(input_engine)},
              {"config", described(map_of(value), "setting keys (or any spelling) and values")},
              {"model", str()},
              {"hardware", map_of(value)},
              {"services", array_of(object({{"name", str()},
                                            {"role", str()},
                                            {"engines", array_of(input_engine)},
                                            {"config", map_of(value)},
                                            {"model", str()}},
                                           {}))}},
             {}),
      "the hand-written deployment format");
  s["CheckRequest"] = described(
      object({{"deployment",
               {{"oneOf",
                 json::array({schema_ref("DeploymentInput"),
                              described(str(), "an artifact's text, read as `kind` says")})}}},
              {"kind", one_of_values(strings(values_of("/api/v1/check", "kind")))},
              {"ignore",
               array_of({{"oneOf",
                          json::array({described(str(), "a gotcha id"),
                                       object({{"id", str()}, {"reason", str()}, {"expires", date}},
                                              {"id"})})}})}},
             {"deployment"}),
      "a deployment or an artifact's text, with how to read it and the gotchas to ignore");
  const json located_engine = object({{"engine", str()},
                                      {"version", nullable("string")},
                                      {"id", nullable("string")},
                                      {"line", integer()},
                                      {"column", integer()},
                                      {"file", str()},
                                      {"via", str()}},
                                     {"engine", "version", "id"});
  const json config_map = map_of({{"type", json::array({"string", "null"})}});
  const json fact =
      object({{"key", str()},
              {"value", nullable("string")},
              {"setting", str()},
              {"written", object({{"key", str()}, {"value", str()}}, {"key", "value"})},
              {"line", integer()},
              {"column", integer()},
              {"file", str()},
              {"via", str()},
              {"derived", boolean()},
              {"runtime", boolean()}},
             {"key", "value"});
  s["Deployment"] = described(
      object(
          {{"file", str()},
           {"engines", array_of(located_engine)},
           {"config", config_map},
           {"services",
            array_of(object({{"name", described(str(), "\"\" for a flat deployment")},
                             {"role", str()},
                             {"engines", array_of(located_engine)},
                             {"config", config_map},
                             {"facts", array_of(fact)},
                             {"model", nullable("string")},
                             {"model_line", integer()},
                             {"model_record", described(str(),
                                                        "the models/ record its traits come from; "
                                                        "absent: its traits are unknown")},
                             {"file", str()},
                             {"line", integer()},
                             {"graph", str()}},
                            {"name", "role", "engines", "config", "facts", "model"}))},
           {"not_understood", array_of(object({{"text", str()},
                                               {"why", str()},
                                               {"file", str()},
                                               {"line", integer()},
                                               {"column", integer()}},
                                              {"text", "why", "file"}))}},
          {"file", "engines", "config", "services", "not_understood"}),
      "the deployment as kb read it");
  s["FixAdvice"] = object(
      {{"engine", str()},
       {"running", described(nullable("string"), "the version the service runs; null: unknown")},
       {"affected", described(nullable("string"), "the affected range; null: every version")},
       {"fixed_in", described(nullable("string"), "the first fixed version; null: not fixed")},
       {"resolution", one_of_values(strings(fix_resolution::kAll))},
       {"cause", described(nullable("string"), "the cause; null: the whole gotcha")},
       {"advice", described(str(), "e.g. upgrade vllm from 0.26.0 to 0.28.0 or later")}},
      {"engine", "running", "affected", "fixed_in", "resolution", "cause", "advice"});
  s["Finding"] = object(
      {{"id", str()},
       {"title", str()},
       {"severity", severity},
       {"status", status},
       {"evidence", evidence_state},
       {"why", described(array_of(str()), "the predicate parts that held")},
       {"possible",
        described(boolean(), "it holds only if a version that was not given is in range")},
       {"line", integer()},
       {"locations", array_of(object({{"file", str()},
                                      {"line", integer()},
                                      {"column", integer()},
                                      {"end_line", integer()},
                                      {"end_column", integer()}},
                                     {"file", "line", "column"}))},
       {"service", described(str(), "the first service it hits; absent: a flat deployment")},
       {"services", array_of(object({{"name", described(nullable("string"),
                                                        "null: a flat deployment's one service")},
                                     {"role", nullable("string")}},
                                    {"name", "role"}))},
       {"workaround", described(str(), "the workaround's first paragraph, plain text")},
       {"fixes", array_of(schema_ref("FixAdvice"))},
       {"tags", array_of(str())},
       {"url", str()},
       {"api_url", str()},
       {"reason", described(str(), "ignored findings: why")},
       {"expires", described(nullable("string"), "ignored findings: until when")}},
      {"id", "title", "severity", "status", "evidence", "why", "possible", "locations", "services",
       "workaround", "fixes", "tags"});
  const json check_result = object(
      {{"findings", array_of(schema_ref("Finding"))},
       {"ignored", array_of(schema_ref("Finding"))},
       {"diagnostics", array_of(schema_ref("Diagnostic"))},
       {"deployment", schema_ref("Deployment")},
       {"counts", object({{"blocker", integer()},
                          {"major", integer()},
                          {"minor", integer()},
                          {"info", integer()},
                          {"ignored", integer()}},
                         {"blocker", "major", "minor", "info", "ignored"})},
       {"fails", described(boolean(), "with fail_on: a finding is at or above that severity")}},
      {"findings", "ignored", "diagnostics", "deployment", "counts"});
  s["Check"] = merged(check_result, object({{"schema_version", version}, {"snapshot", str()}},
                                           {"schema_version", "snapshot"}));
  s["CheckBatchItem"] = {
      {"anyOf",
       json::array({merged(check_result, object({{"index", integer()}}, {"index"})),
                    object({{"index", integer()},
                            {"error", object({{"code", str()},
                                              {"message", str()},
                                              {"diagnostics", array_of(schema_ref("Diagnostic"))}},
                                             {"code", "message"})}},
                           {"index", "error"})})}};
  s["CheckBatch"] = object({{"schema_version", version},
                            {"snapshot", str()},
                            {"count", integer()},
                            {"results", array_of(schema_ref("CheckBatchItem"))}},
                           {"schema_version", "snapshot", "count", "results"});
  s["Triage"] = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"matches",
        array_of(object(
            {{"id", str()},
             {"title", str()},
             {"severity", severity},
             {"status", status},
             {"workaround", str()},
             {"signatures", array_of(object({{"signature", str()}, {"engine", nullable("string")}},
                                            {"signature", "engine"}))},
             {"count", integer()},
             {"lines", array_of(object({{"line", integer()}, {"text", str()}}, {"line", "text"}))},
             {"url", str()},
             {"api_url", str()}},
            {"id", "title", "severity", "status", "workaround", "signatures", "count", "lines",
             "api_url"}))},
       {"lines", integer()},
       {"bytes", integer()},
       {"long_lines", integer()},
       {"signatures", integer()}},
      {"schema_version", "snapshot", "matches", "lines", "bytes", "long_lines", "signatures"});
  s["Health"] = object(
      {{"schema_version", version},
       {"status", one_of_values(json::array({"ok", "stuck"}))},
       {"snapshot", str()},
       {"generation", integer()},
       {"records", integer()},
       {"loaded_at", time},
       {"age_seconds", number()},
       {"read_only", boolean()},
       {"watching", one_of_values(json::array({"none", "inotify", "polling"}))},
       {"search", object({{"ranking", one_of_values(json::array({"memory", "building", "none"}))}},
                         {"ranking"})},
       {"reload",
        object({{"state", str()},
                {"since", time},
                {"running_seconds", number()},
                {"last_success", time},
                {"last_error", nullable("string")},
                {"failures", integer()}},
               {"state", "since", "running_seconds", "last_success", "last_error", "failures"})}},
      {"schema_version", "status", "snapshot", "generation", "records", "loaded_at", "age_seconds",
       "read_only", "watching", "search", "reload"});
  s["Index"] = object(
      {{"schema_version", version},
       {"snapshot", str()},
       {"version", str()},
       {"routes", array_of(object({{"method", str()}, {"path", str()}}, {"method", "path"}))}},
      {"schema_version", "snapshot", "version", "routes"});
  s["OpenAPI"] = merged(
      object({{"openapi", str()}, {"paths", any_object("the paths")}}, {"openapi", "paths"}),
      object(
          {{"info", any_object("title, version")}, {"components", any_object("schemas, headers")}},
          {"info", "components"}));
  // A JSON Schema (draft 2020-12) of record files, as schemas/ holds it.
  s["JsonSchema"] = any_object("a JSON Schema (draft 2020-12) of one namespace's record files");
  s["SchemaList"] =
      object({{"schema_version", version},
              {"schemas", array_of(object({{"namespace", str()}, {"file", str()}, {"url", str()}},
                                          {"namespace", "file", "url"}))},
              {"vocabulary",
               described(str(), "the URL of vocabulary.schema.json, which the schemas refer to")}},
             {"schema_version", "schemas", "vocabulary"});
  return s;
}

// The response shape of each documented route (by its table name), its tag, and the
// errors it may answer besides 400 (strict parameters) and 405.
struct Shape {
  std::string_view route;
  std::string_view method;
  std::string_view schema;  ///< empty: text (Prometheus)
  std::vector<int> errors;
  std::string_view operation;
  std::string_view tag;
  std::string_view description;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> kShapes = {
      {"/healthz",
       "GET",
       "Health",
       {503},
       "health",
       "service",
       "200 while the server serves a snapshot; 503 when a reload has been running too long "
       "(the body then carries the same fields in `error`)."},
      {"/metrics",
       "GET",
       "",
       {},
       "metrics",
       "service",
       "Counters and histograms in the Prometheus text format."},
      {"/api/v1",
       "GET",
       "Index",
       {},
       "index",
       "service",
       "Every route the server answers, API and pages, for discovery."},
      {"/api/v1/openapi.json", "GET", "OpenAPI", {}, "openapi", "service", "This document."},
      {"/api/v1/gotchas",
       "GET",
       "GotchaList",
       {},
       "listGotchas",
       "records",
       "Gotcha summaries, filtered and sorted, a page at a time (`next_page_token`), with the "
       "count of each filter's values (`facets`)."},
      {"/api/v1/{type}",
       "GET",
       "RecordList",
       {404},
       "listRecords",
       "records",
       "The records of one type by id, a page at a time (`next_page_token`)."},
      {"/api/v1/{type}/{slug}",
       "GET",
       "Record",
       {301, 404},
       "getRecord",
       "records",
       "One record with its references resolved, what references it and, for gotchas, the "
       "evidence. A former id answers 301 to where the record lives now; an unknown one 404 "
       "with candidates."},
      {"/api/v1/search",
       "GET",
       "Search",
       {503},
       "search",
       "records",
       "Full-text search over every record; a query that finds nothing because of a typo of "
       "a name is corrected (`suggestion`, `corrected`)."},
      {"/api/v1/resolve",
       "GET",
       "Resolve",
       {},
       "resolve",
       "records",
       "What a name (an id, alias, display name or near miss) resolves to in one namespace."},
      {"/api/v1/diagnostics",
       "GET",
       "Diagnostics",
       {},
       "diagnostics",
       "records",
       "The lint diagnostics of the records being served."},
      {"/api/v1/changes",
       "GET",
       "Changes",
       {},
       "changes",
       "records",
       "Records modified since a time (day by day), and deletions the server saw; poll with "
       "the previous `cursor`."},
      {"/api/v1/export",
       "GET",
       "Export",
       {},
       "export",
       "records",
       "Every record at once, with the lint report."},
      {"/api/v1/schemas",
       "GET",
       "SchemaList",
       {},
       "listSchemas",
       "schemas",
       "The JSON Schema of each namespace's record files."},
      {"/api/v1/schemas/{namespace}.schema.json",
       "GET",
       "JsonSchema",
       {404},
       "getSchema",
       "schemas",
       "One namespace's JSON Schema (draft 2020-12), for editors and validators."},
      {"/api/v1/check",
       "POST",
       "Check",
       {413, 415, 422, 503},
       "check",
       "check",
       "The gotchas that hit one deployment: findings with why, where, the workaround and "
       "per-engine fix advice. 422 when the deployment cannot be checked whole (the error "
       "carries the partial result)."},
      {"/api/v1/check/batch",
       "POST",
       "CheckBatch",
       {413, 415, 422, 503},
       "checkBatch",
       "check",
       "Several deployments at once; each result is a check result or an error, with its "
       "index."},
      {"/api/v1/triage",
       "POST",
       "Triage",
       {413, 415, 422},
       "triage",
       "check",
       "The gotchas whose detection signatures match lines of a log."},
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
    const std::string param = (*it)[1].str();
    out.push_back(
        {{"name", param},
         {"in", "path"},
         {"required", true},
         {"description", param == "slug" ? "the record's slug, or a former one" : "the namespace"},
         {"schema", schema}});
  }
  return out;
}

json header_ref(const std::string& name) {
  return {{"$ref", "#/components/headers/" + name}};
}

// The response headers of `r`'s answers with `status` (http_router.cpp): the schema
// version on every API answer, ETag and no-cache on a cacheable route's 200 and 304,
// no-store on every other answer, Location on 301, Retry-After on 503, Allow on 405.
json headers_of(const Route& r, int status) {
  json h = json::object();
  if (r.name.starts_with("/api/")) h["KB-Schema-Version"] = header_ref("KB-Schema-Version");
  const bool validated = r.cacheable && (status == 200 || status == 304);
  if (validated) h["ETag"] = header_ref("ETag");
  h["Cache-Control"] = header_ref(validated ? "Cache-Control-Validated" : "Cache-Control");
  if (status == 301) h["Location"] = header_ref("Location");
  if (status == 503) h["Retry-After"] = header_ref("Retry-After");
  if (status == 405) h["Allow"] = header_ref("Allow");
  return h;
}

std::string error_text(int status) {
  switch (status) {
    case 400:
      return "a parameter the route does not take, a bad value, or a malformed body";
    case 404:
      return "no such record, type or namespace";
    case 405:
      return "a method the path does not answer (Allow lists those it does)";
    case 413:
      return "the body, or the work or answer it asks for, is too large";
    case 415:
      return "a Content-Type the route does not read";
    case 422:
      return "the body is not a deployment or log, or cannot be checked whole";
    case 503:
      return "overloaded, out of time, or a reload is stuck: retry after Retry-After";
    default:
      return "see the message";
  }
}

json error_response(const Route& r, int status) {
  return {{"description", error_text(status)},
          {"headers", headers_of(r, status)},
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
      ok["content"]["text/csv"] = {{"schema", described(str(), "RFC 4180, a header row")}};
      ok["content"]["application/x-ndjson"] = {
          {"schema", described(str(), "a JSON object a line")}};
    }
  }
  ok["headers"] = headers_of(r, 200);
  json responses = {{"200", ok}, {"400", error_response(r, 400)}, {"405", error_response(r, 405)}};
  for (int e : s.errors) {
    if (e == 301) {
      responses["301"] = {{"description", "a former id: the record lives at Location"},
                          {"headers", headers_of(r, 301)},
                          {"content", {{"application/json", {{"schema", schema_ref("Moved")}}}}}};
    } else {
      responses[std::to_string(e)] = error_response(r, e);
    }
  }
  if (r.cacheable)
    responses["304"] = {{"description", "If-None-Match holds the current ETag"},
                        {"headers", headers_of(r, 304)}};
  json op = {{"operationId", s.operation},        {"tags", json::array({s.tag})},
             {"summary", std::string(r.summary)}, {"description", std::string(s.description)},
             {"parameters", std::move(params)},   {"responses", std::move(responses)}};
  if (r.name == "/api/v1/triage") {
    op["requestBody"] = {
        {"required", true},
        {"description", "the log's text, or {\"log\": \"...\"}"},
        {"content",
         {{"text/plain", {{"schema", described(str(), "the log")}}},
          {"application/json",
           {{"schema", object({{"log", described(str(), "the log's text")}}, {"log"})}}}}}};
  } else if (r.name == "/api/v1/check/batch") {
    op["requestBody"] = {
        {"required", true},
        {"description", "{\"deployments\": [...]} or a JSON array of deployments"},
        {"content",
         {{"application/json",
           {{"schema",
             {{"anyOf",
               json::array({object({{"deployments", array_of(schema_ref("DeploymentInput"))}},
                                   {"deployments"}),
                            array_of(schema_ref("DeploymentInput"))})}}}}}}}};
  } else if (r.method == "POST") {
    const json text = described(str(),
                                "a deployment (JSON or YAML) or an artifact's text: a "
                                "manifest, compose file, script, package list, image "
                                "references; `kind` says how to read it");
    op["requestBody"] = {
        {"required", true},
        {"description",
         "a deployment (the hand-written format), an artifact's text, or {\"deployment\", "
         "\"kind\", \"ignore\"}"},
        {"content",
         {{"application/json",
           {{"schema",
             {{"anyOf",
               json::array({schema_ref("CheckRequest"), schema_ref("DeploymentInput")})}}}}},
          {"application/yaml", {{"schema", text}}},
          {"text/plain", {{"schema", text}}}}}};
  }
  return op;
}

json headers() {
  const auto header = [](std::string_view text, json schema) {
    return json{{"description", text}, {"schema", std::move(schema)}};
  };
  json h;
  h["KB-Schema-Version"] = header("the schema version of JSON answers (schema_version)",
                                  {{"type", "string"}, {"const", kb::json::kSchemaVersion}});
  h["ETag"] = header("the snapshot the answer comes from; send it as If-None-Match", str());
  h["Cache-Control"] = header("no-store", {{"type", "string"}, {"const", "no-store"}});
  h["Cache-Control-Validated"] = header("no-cache: revalidate with If-None-Match",
                                        {{"type", "string"}, {"const", "no-cache"}});
  h["Location"] = header("where the record lives now", str());
  h["Retry-After"] = header("seconds", integer());
  h["Allow"] = header("the methods the path answers", str());
  return h;
}

json build() {
  json paths = json::object();
  for (const auto& r : route_table()) {
    const Shape* s = shape_of(r);
    if (!s) continue;  // HTML pages: outside the JSON API
    paths[std::string(r.name)][text::lower(r.method)] = operation(r, *s);
  }
  return {
      {"openapi", "3.1.0"},
      {"info",
       {
           {"title", "kb: the gotcha knowledge base"},
           {"version", kb::json::kSchemaVersion},
           {"summary", "LLM-serving gotchas, and which of them hit a deployment"},
           {"contact", {{"name", "kb maintainers"}}},
           {"description",
            "Every JSON answer carries schema_version (and the KB-Schema-Version header). List "
            "routes also answer with a .csv, .ndjson or .json suffix on the path (same as "
            "?format=). Answers add fields within 1.x: objects are open."},
       }},
      {"servers", json::array({{{"url", "/"}, {"description", "the server this came from"}}})},
      {"security", json::array()},
      {"tags",
       json::array({{{"name", "records"}, {"description", "gotchas, engines and other records"}},
                    {{"name", "check"},
                     {"description", "deployments and logs checked against the gotchas"}},
                    {{"name", "schemas"}, {"description", "JSON Schemas of record files"}},
                    {{"name", "service"}, {"description", "health, metrics and discovery"}}})},
      {"paths", std::move(paths)},
      {"components", {{"schemas", components()}, {"headers", headers()}}}};
}

}  // namespace

const json& openapi_document() {
  static const json kDocument = build();
  return kDocument;
}

}  // namespace kb::http
