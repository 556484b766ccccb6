// POST /api/v1/check with text that does not parse: a 400 whose message says what is wrong
// in the language the body is written in, JSON or YAML, and where.

#include "server_harness.h"

using namespace kbtest;

namespace {

json malformed(const httplib::Result& res) {
  INFO(res->body);
  REQUIRE(res->status == 400);
  json error = json::parse(res->body)["error"];
  CHECK(error["code"] == "malformed-body");
  return error;
}

}  // namespace

TEST_CASE("POST /api/v1/check: a JSON body that does not parse says so, with nlohmann's reason",
          "[server][check]") {
  TestServer s;
  json e = malformed(post(s, "/api/v1/check", "{\"engines\": [", "application/json"));
  CHECK(e["message"] ==
        "the body is not valid JSON: syntax error while parsing value - unexpected end of input; "
        "expected '[', '{', or a literal at line 1, column 14");
  // Without a Content-Type (the page's form), text that starts like JSON is JSON.
  e = malformed(post(s, "/api/v1/check", "{\n  \"engines\": [{\"engine\": \"vllm\"}\n}", ""));
  CHECK(e["message"] ==
        "the body is not valid JSON: syntax error while parsing array - unexpected '}'; expected "
        "']' at line 3, column 1");
  REQUIRE(e["diagnostics"].size() == 1);
  CHECK(e["diagnostics"][0]["code"] == "yaml.syntax");
  CHECK(s.errors().empty());
}

TEST_CASE("POST /api/v1/check: a YAML body that does not parse says so, with libyaml's reason",
          "[server][check]") {
  TestServer s;
  const std::string text = "engines:\n  - engine: vllm\n   version: 1\n";
  json e = malformed(post(s, "/api/v1/check", text, "application/yaml"));
  CHECK(e["message"] ==
        "the body is not valid YAML: did not find expected '-' indicator (while parsing a block "
        "collection) at line 3, column 4");
  REQUIRE(e["diagnostics"].size() == 1);
  CHECK(e["diagnostics"][0]["code"] == "yaml.syntax");
  CHECK(e["diagnostics"][0]["line"] == 3);
  CHECK(e["diagnostics"][0]["column"] == 4);
  // A reader of YAML named by ?kind= says YAML whatever the Content-Type.
  e = malformed(post(s, "/api/v1/check?kind=kubernetes",
                     "apiVersion: v1\nkind: Pod\nspec:\n  containers: [\n    - name: x\n",
                     "application/json"));
  CHECK(e["message"] ==
        "the body is not valid YAML: did not find expected node content (while parsing a flow "
        "node) at line 5, column 5");
  // The wrapper's "deployment" text is said of itself, not of the (valid JSON) body.
  e = malformed(
      post(s, "/api/v1/check", json{{"deployment", text}, {"kind", "deployment"}}.dump()));
  CHECK(e["message"] ==
        "the deployment text is not valid YAML: did not find expected '-' indicator (while "
        "parsing a block collection) at line 3, column 4");
  CHECK(s.errors().empty());
}

TEST_CASE("POST /api/v1/check: a body sent as JSON must be JSON, though YAML would read it",
          "[server][check]") {
  TestServer s;
  // A trailing comma: YAML's flow mapping takes it, JSON does not.
  const std::string text = "{\"engines\": [{\"engine\": \"vllm\", \"version\": \"0.8.5\"}],}";
  json e = malformed(post(s, "/api/v1/check", text, "application/json"));
  CHECK(e["message"] ==
        "the body is not valid JSON: syntax error while parsing object key - unexpected '}'; "
        "expected string literal at line 1, column 54");
  // Sent without a Content-Type (a form) or as YAML, the same text is read as YAML.
  for (const char* type : {"", "application/yaml"}) {
    auto res = post(s, "/api/v1/check", text, type);
    INFO(type << ": " << res->body);
    CHECK(res->status == 200);
  }
  CHECK(s.errors().empty());
}
