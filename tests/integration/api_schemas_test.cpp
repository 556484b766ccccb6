// GET /api/v1/schemas and /api/v1/schemas/<namespace>.schema.json: the record JSON Schemas,
// the same bytes as the repository's schemas/ once parsed.

#include <fstream>
#include <sstream>

#include "server_harness.h"

using namespace kbtest;

namespace {

json repo_schema(const std::string& ns) {
  std::ifstream in(std::string(KB_SOURCE_DIR) + "/schemas/" + ns + ".schema.json");
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

}  // namespace

TEST_CASE("GET /api/v1/schemas lists one schema per namespace", "[server][schema]") {
  TestServer s;
  const json body = get_json(s, "/api/v1/schemas");
  REQUIRE(body["schemas"].size() == 6);
  CHECK(body["schemas"][0] == json({{"namespace", "gotchas"},
                                    {"file", "gotchas.schema.json"},
                                    {"url", "/api/v1/schemas/gotchas.schema.json"}}));
  for (const auto& item : body["schemas"]) {
    INFO(item.dump());
    CHECK(get_json(s, item["url"].get<std::string>()) == repo_schema(item["namespace"]));
  }
}

TEST_CASE("GET /api/v1/schemas/<namespace>.schema.json is 404 for another name", "[server][schema]") {
  TestServer s;
  CHECK(get_json(s, "/api/v1/schemas/gotchas.schema.json")["$schema"] ==
        "https://json-schema.org/draft/2020-12/schema");
  CHECK(get_json(s, "/api/v1/schemas/gotcha.schema.json", 404)["error"]["code"] == "not-found");
  CHECK(get_json(s, "/api/v1/schemas/widgets.schema.json", 404)["error"]["code"] == "not-found");
}
