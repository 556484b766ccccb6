// `kb check --endpoint`: a running server (the toy, answering like vLLM or SGLang) is
// identified through the engine records' probe routes and checked like any artifact;
// a server kb cannot reach or identify fails closed.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_support.h"
#include "toy_process.h"

using namespace kb_test;
using nlohmann::json;

namespace {

const char* kSeed000 = "gotchas/pd-cache-hit-silently-differs-from-cold-run";

std::string records() {
  return " --records '" + (fs::path(KB_TEST_DATA) / "check" / "records").string() + "'";
}

std::vector<std::string> ids(const json& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f["id"]);
  return out;
}

json parse(const Run& r) {
  INFO(r.err);
  json j = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

}  // namespace

TEST_CASE("kb check --endpoint: a vLLM server on its default prefix caching hits seed 000",
          "[cli][check][endpoint]") {
  ToyProcess toy({"--version", "0.26.0", "--model", "Qwen/Qwen3-8B"});
  auto dir = scratch("endpoint_vllm");
  Run r = kb(dir, "check --endpoint " + toy.url() + records() + " --format json");
  CHECK(r.code == 1);
  json j = parse(r);
  REQUIRE(ids(j["findings"]) == std::vector<std::string>{kSeed000});
  CHECK(j["findings"][0]["why"] ==
        json::array({"engine vllm 0.26.0 (GET /version: version)",
                     "prefix_caching = true (the default of vllm 0.26.0)"}));
  const json& svc = j["deployment"]["services"][0];
  CHECK(svc["name"] == toy.url());
  CHECK(svc["model"] == "Qwen/Qwen3-8B");
  CHECK(svc["engines"][0]["id"] == "engines/vllm");
  CHECK(svc["engines"][0]["version"] == "0.26.0");
  // Provenance: the finding points into what the endpoint said.
  CHECK(j["findings"][0]["locations"][0]["file"] == toy.url());
}

TEST_CASE("kb check --endpoint: settings come from /metrics info labels, roles from the flag",
          "[cli][check][endpoint]") {
  ToyProcess toy({"--version", "0.26.0", "--metrics",
                  "# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
                  "vllm:cache_config_info{block_size=\"16\",enable_prefix_caching=\"False\"} 1.0\n"
                  "vllm:num_requests_running{model_name=\"m\"} 0.0"});
  auto dir = scratch("endpoint_metrics");
  Run r = kb(dir, "check --endpoint decode=" + toy.url() + records() + " --format json");
  CHECK(r.code == 0);
  json j = parse(r);
  CHECK(j["findings"] == json::array());
  const json& svc = j["deployment"]["services"][0];
  CHECK(svc["role"] == "decode");
  bool prefix_off = false;
  for (const auto& f : svc["facts"]) {
    if (f["key"] == "prefix_caching") {
      prefix_off = f["value"] == "false";
      CHECK(f["written"]["key"] == "enable_prefix_caching");
    }
  }
  CHECK(prefix_off);
}

TEST_CASE("kb check --endpoint: an SGLang server is told apart by its own probe route",
          "[cli][check][endpoint]") {
  ToyProcess toy({"--sglang", "--version", "0.5.16"});
  auto dir = scratch("endpoint_sglang");
  Run r =
      kb(dir, "check --endpoint " + toy.url() + records() + " --print-deployment --format json");
  CHECK(r.code == 0);
  json j = parse(r);
  const json& svc = j.contains("deployment") ? j["deployment"]["services"][0] : j["services"][0];
  REQUIRE(svc["engines"].size() == 1);
  CHECK(svc["engines"][0]["id"] == "engines/sglang");
  CHECK(svc["engines"][0]["version"] == "0.5.16");
}

TEST_CASE("kb check --endpoint: what it learned can be saved and checked later",
          "[cli][check][endpoint]") {
  auto dir = scratch("endpoint_save");
  json live;
  {
    ToyProcess toy({"--version", "0.26.0"});
    Run r =
        kb(dir, "check --endpoint " + toy.url() + records() + " --format json --save-endpoint '" +
                    (dir / "endpoint.json").string() + "'");
    CHECK(r.code == 1);
    live = parse(r);
  }
  REQUIRE(fs::exists(dir / "endpoint.json"));
  Run later =
      kb(dir, "check '" + (dir / "endpoint.json").string() + "'" + records() + " --format json");
  CHECK(later.code == 1);
  CHECK(ids(parse(later)["findings"]) == ids(live["findings"]));
}

TEST_CASE("kb check --endpoint fails closed on a server it cannot reach or identify",
          "[cli][check][endpoint]") {
  auto dir = scratch("endpoint_fail");
  Run down = kb(dir, "check --endpoint http://127.0.0.1:1" + records() + " --format json");
  CHECK(down.code == 2);
  CHECK(down.out.find("check.endpoint-unreachable") != std::string::npos);

  ToyProcess anonymous({"--no-version"});
  Run unknown = kb(dir, "check --endpoint " + anonymous.url() + records());
  CHECK(unknown.code == 2);
  const std::string unidentified = "deploy.unidentified-endpoint";
  CHECK(unknown.err.find("error[" + unidentified + "]") != std::string::npos);
  Run allowed = kb(dir, "check --endpoint " + anonymous.url() + records() + " --allow-unknown");
  CHECK(allowed.code != 2);

  Run bad_url = kb(dir, "check --endpoint not-a-url" + records());
  CHECK(bad_url.code == 2);
  CHECK(bad_url.err.find("error["
                         "check.endpoint-invalid"
                         "]") != std::string::npos);
  spit(dir / "not-endpoint.json", "{\"engines\": []}\n");
  Run not_doc = kb(dir, "check --input-kind endpoint '" + (dir / "not-endpoint.json").string() +
                            "'" + records());
  CHECK(not_doc.code == 2);
  const std::string code = "deploy.not-endpoint";
  CHECK(not_doc.err.find("error[" + code + "]") != std::string::npos);
  CHECK(kb(dir, "check" + records()).code == 2);
}
