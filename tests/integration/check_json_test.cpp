#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "check_json.h"
#include "kb/corpus.h"
#include "kb/evidence.h"

using nlohmann::json;

namespace {

kb::CheckReport report_for(const std::string& body, const std::string& file) {
  std::vector<kb::FileResult> files;
  files.push_back(kb::load_record_text("engines/vllm.yaml", "name: vLLM\n"));
  files.push_back(kb::load_record_text("gotchas/g.yaml", R"(title: Prefix caching differs
severity: major
status: open
symptom: wrong
affects: [{engine: vllm, versions: ">=0.26"}]
)"));
  files.push_back(kb::load_record_text("settings/tensor-parallel-size.yaml",
                                       "title: TP\ntype: integer\nsynonyms: [tp]\n"));
  static auto corpus = kb::Corpus::from_files("records", std::move(files));
  static auto evidence = kb::EvidenceIndex::build(*corpus);
  static auto index = kb::CheckIndex::build(*corpus, evidence);
  std::vector<kb::Diagnostic> diags;
  kb::Deployment d = kb::json::deployment_from_body(body, diags, file);
  REQUIRE(diags.empty());
  return index.run(d);
}

}  // namespace

TEST_CASE("findings_json: the contract's shape", "[check][json]") {
  auto report = report_for(R"({"engines": [{"engine": "vLLM", "version": "0.30"}],
                               "config": {"tp": 2}})",
                           "request");
  json j = kb::json::findings_json(report);
  REQUIRE(j["findings"].size() == 1);
  CHECK(j["findings"][0] ==
        json{{"id", "gotchas/g"},
             {"title", "Prefix caching differs"},
             {"severity", "major"},
             {"status", "open"},
             {"evidence", "no-evidence"},
             {"why", {"engine vllm 0.30 in >=0.26"}},
             {"possible", false},
             {"services", json::array({json{{"name", nullptr}, {"role", "both"}}})},
             {"line", 1},
             {"locations", {{{"file", "request"}, {"line", 1}, {"column", 25}}}},
             {"workaround", ""},
             {"fixes", json::array()},
             {"tags", json::array()}});
  CHECK(j["ignored"] == json::array());
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["code"] == "check.normalized");
  CHECK(j["diagnostics"][0]["message"] == "tp: 2 is read as tensor_parallel_size: 2");
  CHECK(j["deployment"]["engines"] == json{{{"engine", "vLLM"},
                                            {"version", "0.30"},
                                            {"id", "engines/vllm"},
                                            {"line", 1},
                                            {"column", 25}}});
  CHECK(j["deployment"]["config"] == json{{"tensor_parallel_size", "2"}});
  REQUIRE(j["deployment"]["services"].size() == 1);
  CHECK(j["deployment"]["services"][0]["role"] == "both");
  CHECK(j["deployment"]["services"][0]["config"] == json{{"tensor_parallel_size", "2"}});
  CHECK(j["counts"] ==
        json{{"blocker", 0}, {"major", 1}, {"minor", 0}, {"info", 0}, {"ignored", 0}});
}

TEST_CASE("sarif_json: levels, rules and locations", "[check][json]") {
  auto report = report_for("engines: [{engine: vllm, version: 0.26.0}]\n", "my deploy.yaml");
  json s = kb::json::sarif_json(report, "9.9");
  const json& run = s["runs"][0];
  CHECK(run["tool"]["driver"]["version"] == "9.9");
  CHECK(run["results"][0]["level"] == "warning");
  CHECK(run["results"][0]["message"]["text"] ==
        "Prefix caching differs [major, open, no-evidence]. Matched: engine vllm 0.26.0 in "
        ">=0.26.");
  CHECK(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "my%20deploy.yaml");
  CHECK(run["results"][0]["locations"][0]["physicalLocation"]["region"] ==
        json{{"startLine", 1}, {"startColumn", 20}});
  CHECK(run["artifacts"][0]["location"]["uri"] == "my%20deploy.yaml");
  CHECK(run["tool"]["driver"]["rules"][0]["defaultConfiguration"]["level"] == "warning");

  auto body = report_for("engines: [vllm]\n", "");
  json no_file = kb::json::sarif_json(body);
  CHECK_FALSE(no_file["runs"][0]["results"][0].contains("locations"));
  CHECK_FALSE(no_file["runs"][0].contains("artifacts"));
  CHECK(no_file["runs"][0]["results"][0]["properties"]["possible"] == true);
}

TEST_CASE("deployments from request bodies", "[check][json]") {
  std::vector<kb::Diagnostic> diags;
  auto d =
      kb::json::deployment_from_body("{\"engines\": [\"vllm\"], \"config\": {\"a\": true}}", diags);
  CHECK(diags.empty());
  CHECK(d.file == "request");
  CHECK(d.engines[0].name == "vllm");
  CHECK(d.config[0].value == "true");

  diags.clear();
  kb::json::deployment_from_body("{\"engines\": [", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "yaml.syntax");

  // Neither reaches the JSON fallback: the deployment parser refuses both first.
  diags.clear();
  kb::json::deployment_from_body("{\"engines\": [\"\xe2\x28\xa1\"]}", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "encoding.utf8");
  CHECK(diags[0].column == 15);
  diags.clear();
  kb::json::deployment_from_body(std::string(10000, '['), diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "limits.depth");

  diags.clear();
  kb::json::deployment_from_body("[1, 2]", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "check.type");

  diags.clear();
  json item = {{"engines", {{{"engine", "vllm"}, {"version", 0.30}}}}};
  auto numeric = kb::json::deployment_from_json(item, diags, "batch[3]");
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "check.numeric-version");
  CHECK(diags[0].severity == kb::Severity::warning);
  CHECK(diags[0].file == "batch[3]");
  CHECK(numeric.engines[0].version == "0.3");
}

TEST_CASE("findings_json: service names the first service hit, one service or several",
          "[check][json]") {
  // One named service: the report leaves `service` empty, JSON names it as `services` does.
  auto one = kb::json::findings_json(report_for(
      R"({"services": [{"name": "api", "engines": [{"engine": "vllm", "version": "0.30"}]}]})",
      "request"));
  REQUIRE(one["findings"].size() == 1);
  CHECK(one["findings"][0]["service"] == "api");
  CHECK(one["findings"][0]["services"][0]["name"] == "api");
  // Two: the first of those it hits.
  auto two = kb::json::findings_json(report_for(
      R"({"services": [{"name": "a", "engines": [{"engine": "vllm", "version": "0.20"}]},
                       {"name": "b", "engines": [{"engine": "vllm", "version": "0.30"}]}]})",
      "request"));
  REQUIRE(two["findings"].size() == 1);
  CHECK(two["findings"][0]["service"] == "b");
  // A flat deployment's one service has no name: no `service`, a null name.
  auto flat = kb::json::findings_json(
      report_for(R"({"engines": [{"engine": "vllm", "version": "0.30"}]})", "request"));
  REQUIRE(flat["findings"].size() == 1);
  CHECK_FALSE(flat["findings"][0].contains("service"));
  CHECK(flat["findings"][0]["services"][0]["name"] == nullptr);
}
