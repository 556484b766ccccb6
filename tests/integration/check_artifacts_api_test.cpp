// POST /api/v1/check with deployment artifacts: manifests, scripts, package lists, by
// content, ?kind= or Content-Type, and the ignore list in the body or the query.

#include <fstream>
#include <sstream>

#include "server_harness.h"

using namespace kbtest;

namespace {

const fs::path kDeploy = fs::path(KB_TEST_DATA) / "deploy";

std::string text_of(const std::string& name) {
  std::ifstream in(kDeploy / name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

kb::http::ServeConfig deploy_records() {
  kb::http::ServeConfig cfg;
  cfg.records = kDeploy / "records";
  return cfg;
}

std::vector<std::string> ids(const json& list) {
  std::vector<std::string> out;
  for (const auto& f : list) out.push_back(f.at("id").get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("POST /api/v1/check reads manifests and scripts", "[server][deploy]") {
  TestServer s(deploy_records());
  auto yaml = post(s, "/api/v1/check", text_of("dynamo-disagg.yaml"), "application/yaml");
  INFO(yaml->body);
  REQUIRE(yaml->status == 200);
  json j = json::parse(yaml->body);
  CHECK(ids(j["findings"]) == std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold",
                                                       "gotchas/dynamo-prefill-worker"});
  CHECK(j["findings"][1]["service"] == "VllmPrefillWorker");
  CHECK(j["findings"][1]["locations"][0]["file"] == "request");
  CHECK(j["deployment"]["services"].size() == 3);

  auto shell = post(s, "/api/v1/check", text_of("sglang-pd.sh"), "text/x-shellscript");
  REQUIRE(shell->status == 200);
  CHECK(ids(json::parse(shell->body)["findings"]) ==
        std::vector<std::string>{"gotchas/sglang-hetero-tp-gqa-heads-zero",
                                 "gotchas/sglang-pd-kv-dtype-mismatch"});

  // A one-line image reference is ambiguous text: ?kind= names it.
  auto image = post(s, "/api/v1/check?kind=image", "vllm/vllm-openai:v0.26.0\n", "text/plain");
  REQUIRE(image->status == 200);
  CHECK(ids(json::parse(image->body)["findings"]) ==
        std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold"});

  // The hand-written format still answers as before.
  auto flat = post(
      s, "/api/v1/check",
      R"({"engines": [{"engine": "vllm", "version": "0.26.0"}], "config": {"prefix_caching": false}})");
  REQUIRE(flat->status == 200);
  CHECK(json::parse(flat->body)["findings"] == json::array());
}

TEST_CASE("POST /api/v1/check: the ignore list, in the body or the query", "[server][deploy]") {
  TestServer s(deploy_records());
  json body = {
      {"deployment", text_of("sglang-pd.sh")},
      {"kind", "shell"},
      {"ignore",
       {"gotchas/sglang-pd-kv-dtype-mismatch",
        {{"id", "sglang-hetero-tp-gqa-heads-zero"}, {"reason", "decode TP is 2 in production"}}}}};
  auto res = post(s, "/api/v1/check", body.dump());
  INFO(res->body);
  REQUIRE(res->status == 200);
  json j = json::parse(res->body);
  CHECK(j["findings"] == json::array());
  REQUIRE(j["ignored"].size() == 2);
  CHECK(j["ignored"][0]["id"] == "gotchas/sglang-hetero-tp-gqa-heads-zero");
  CHECK(j["ignored"][0]["reason"] == "decode TP is 2 in production");
  CHECK(j["ignored"][1]["reason"] == "listed in the request");
  CHECK(j["counts"]["ignored"] == 2);

  auto query = post(s, "/api/v1/check?ignore=gotchas/sglang-pd-kv-dtype-mismatch",
                    text_of("sglang-pd.sh"), "text/x-shellscript");
  REQUIRE(query->status == 200);
  json q = json::parse(query->body);
  CHECK(ids(q["findings"]) == std::vector<std::string>{"gotchas/sglang-hetero-tp-gqa-heads-zero"});
  CHECK(q["ignored"][0]["reason"] == "listed in ?ignore=");

  // A deployment object inside the wrapper is the hand-written format.
  json wrapped = {{"deployment", {{"engines", {{{"engine", "vllm"}, {"version", "0.26.0"}}}}}},
                  {"ignore", {"gotchas/apc-warm-hit-differs-from-cold"}}};
  auto w = post(s, "/api/v1/check", wrapped.dump());
  REQUIRE(w->status == 200);
  CHECK(json::parse(w->body)["ignored"][0]["id"] == "gotchas/apc-warm-hit-differs-from-cold");
}

TEST_CASE("POST /api/v1/check: bad artifacts are 4xx, never 5xx", "[server][deploy]") {
  TestServer s(deploy_records());
  auto unknown_kind = post(s, "/api/v1/check?kind=helm", "x", "text/plain");
  CHECK(unknown_kind->status == 400);
  auto type = post(s, "/api/v1/check", "<html/>", "text/html");
  CHECK(type->status == 415);
  auto unidentified =
      post(s, "/api/v1/check", text_of("compose-unidentified.yaml"), "application/yaml");
  CHECK(unidentified->status == 422);
  json u = json::parse(unidentified->body);
  CHECK(u["error"]["diagnostics"][0]["code"] == "deploy.unidentified-engine");
  auto nothing = post(s, "/api/v1/check", "just some words\n", "text/plain");
  CHECK(nothing->status == 422);
  CHECK(json::parse(nothing->body)["error"]["diagnostics"][0]["code"] == "deploy.unknown-kind");
  auto bad_ignore = post(s, "/api/v1/check", R"({"deployment": "vllm serve m", "ignore": [3]})");
  CHECK(bad_ignore->status == 422);
  auto broken = post(s, "/api/v1/check?kind=kubernetes", "apiVersion: v1\nkind: Pod\nspec: [\n",
                     "application/yaml");
  CHECK(broken->status == 400);
  CHECK(s.errors().empty());
}
