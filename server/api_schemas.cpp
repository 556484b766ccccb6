// GET /api/v1/schemas and /api/v1/schemas/<namespace>.schema.json: the JSON Schemas of
// record files, generated from the schema table (server/schema_json.*), so an editor's
// YAML language server can point at a running kb.

#include "http_api.h"
#include "http_status.h"
#include "schema_json.h"

namespace kb::http {

void list_schemas(const Ctx& c) {
  nlohmann::json list = nlohmann::json::array();
  for (Kind k : kAllKinds) {
    list.push_back({{"namespace", kind_namespace(k)},
                    {"file", kb::json::schema_file_name(k)},
                    {"url", "/api/v1/schemas/" + kb::json::schema_file_name(k)}});
  }
  send_json(c.res, {{"schemas", std::move(list)},
                    {"vocabulary", std::string("/api/v1/schemas/") + kb::json::kVocabularyFile}});
}

void get_schema(const Ctx& c) {
  // The names the record schemas refer to (`vocabulary.schema.json` beside them): this
  // knowledge base's.
  if (c.match(1) == "vocabulary") {
    send_body(c.res, kb::json::vocabulary_schema(c.snap.corpus()).dump(), "application/json");
    return;
  }
  const auto kind = parse_kind(c.match(1));
  if (!kind || kind_namespace(*kind) != c.match(1)) {
    throw ApiError(Problem::not_found, problem_code(Problem::not_found),
                   "no schema for namespace '" + c.match(1) +
                       "' (gotchas, engines, oracles, results, settings, models)");
  }
  // A JSON Schema as the repository holds it: no schema_version keyword (validators in
  // strict mode refuse unknown keywords).
  send_body(c.res, kb::json::json_schema(*kind, true).dump(), "application/json");
}

}  // namespace kb::http
