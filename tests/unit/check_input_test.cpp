#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "kb/check.h"

namespace {

struct Parsed {
  kb::Deployment deployment;
  std::vector<kb::Diagnostic> diags;
};

Parsed parse(const std::string& text) {
  Parsed p;
  p.deployment = kb::parse_deployment(text, "deploy.yaml", p.diags);
  return p;
}

// The one diagnostic expected, checked for code, severity and line.
const kb::Diagnostic& only(const Parsed& p, const std::string& code, kb::Severity s, int line) {
  for (const auto& d : p.diags) INFO(kb::format_diagnostic(d));
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].code == code);
  CHECK(p.diags[0].severity == s);
  CHECK(p.diags[0].line == line);
  CHECK(p.diags[0].file == "deploy.yaml");
  return p.diags[0];
}

}  // namespace

TEST_CASE("a deployment in YAML", "[check]") {
  auto p = parse(R"(name: prod
engines:
  - {engine: vllm, version: 0.26.0}
  - engine: LMCache
    version: "0.3.9"
  - nixl
config:
  kv_transfer: pd
  prefix_caching: true
  VLLM_BATCH_INVARIANT: 1
  empty:
)");
  REQUIRE(p.diags.empty());
  const auto& e = p.deployment.engines;
  REQUIRE(e.size() == 3);
  CHECK(e[0].name == "vllm");
  CHECK(e[0].version == "0.26.0");
  CHECK(e[0].pos.line == 3);
  CHECK(e[0].version_pos.line == 3);
  CHECK(e[1].name == "LMCache");
  CHECK(e[1].version == "0.3.9");
  CHECK(e[1].pos.line == 4);
  CHECK(e[2].name == "nixl");
  CHECK(e[2].version.empty());
  const auto& c = p.deployment.config;
  REQUIRE(c.size() == 4);
  CHECK(c[0].key == "kv_transfer");
  CHECK(c[1].value == "true");
  CHECK(c[2].value == "1");
  CHECK(c[2].pos.line == 10);
  CHECK(c[3].value.empty());
  CHECK(p.deployment.find("VLLM_BATCH_INVARIANT") == &c[2]);
  CHECK(p.deployment.find("nope") == nullptr);
  CHECK(p.deployment.file == "deploy.yaml");
}

TEST_CASE("a deployment in JSON keeps scalar text", "[check]") {
  auto p = parse(R"({"engines": [{"engine": "vllm", "version": "0.30"}],
  "config": {"prefix_caching": true, "tp": 2, "ratio": 0.50}})");
  REQUIRE(p.diags.empty());
  CHECK(p.deployment.engines[0].version == "0.30");
  CHECK(p.deployment.config[0].value == "true");
  CHECK(p.deployment.config[1].value == "2");
  CHECK(p.deployment.config[2].value == "0.50");
}

TEST_CASE("malformed deployments are diagnosed", "[check]") {
  using kb::Severity;
  only(parse("- vllm\n"), "check.type", Severity::error, 1);
  only(parse("engines: {vllm: 0.26.0}\n"), "check.type", Severity::error, 1);
  only(parse("engines: [{version: 0.26.0}]\n"), "check.missing-engine", Severity::error, 1);
  only(parse("engines:\n  - {engine: '', version: 1}\n"), "check.missing-engine", Severity::error,
       2);
  only(parse("engines: [[vllm]]\n"), "check.type", Severity::error, 1);
  only(parse("engines: [{engine: [vllm]}]\n"), "check.type", Severity::error, 1);
  auto bad = only(parse("engines:\n  - {engine: vllm, version: latest}\n"), "version.invalid",
                  Severity::error, 2);
  CHECK(bad.message ==
        "engines[0].version: 'latest' is not a version: it must start with a number");
  CHECK(bad.column == 29);
  // The column is the offending character's, as far as the scalar is written verbatim.
  CHECK(only(parse("engines:\n  - {engine: vllm, version: 0.2x8}\n"), "version.invalid",
             Severity::error, 2)
            .column == 32);
  auto nested = only(parse("config:\n  kv_transfer_config: {kv_connector: lmcache}\n"),
                     "check.nested-config", Severity::error, 2);
  CHECK(nested.message == "config.kv_transfer_config: expected a single value, found a mapping");
  only(parse("config: [kv_transfer]\n"), "check.type", Severity::error, 1);
  auto typo =
      only(parse("engnes: [vllm]\nconfig: {a: b}\n"), "check.unknown-field", Severity::error, 1);
  CHECK(typo.hint == "did you mean 'engines'?");
  auto extra =
      only(parse("cluster: east\nconfig: {a: b}\n"), "check.unknown-field", Severity::warning, 1);
  CHECK(extra.message == "cluster: unknown key, ignored");
  auto versions = only(parse("engines: [{engine: vllm, versions: 0.26.0}]\n"),
                       "check.unknown-field", Severity::error, 1);
  CHECK(versions.message == "engines[0].versions: unknown key");
  CHECK(versions.hint == "did you mean 'version'?");
  only(parse("config: {a: 1, a: 2}\n"), "yaml.duplicate-key", Severity::error, 1);
  only(parse("{}\n"), "check.empty-deployment", Severity::warning, 1);
  // Another program's file (a TensorRT-LLM --extra_llm_api_options YAML, a vLLM --config
  // file that says `model:`) is refused, not read as a deployment of nothing.
  auto foreign = only(parse("# ctx\ndisable_overlap_scheduler: True\ncache_transceiver_config:\n"
                            "  backend: UCX\n"),
                      "deploy.unknown-kind", Severity::error, 2);
  CHECK(foreign.message.find("disable_overlap_scheduler, cache_transceiver_config") !=
        std::string::npos);
  only(parse("model: meta-llama/Llama-3.1-8B\nport: 8000\ntensor-parallel-size: 2\n"),
       "deploy.unknown-kind", Severity::error, 2);
  only(parse(""), "yaml.empty", Severity::error, 1);
  only(parse("engines: [vllm\n"), "yaml.syntax", Severity::error, 2);
  only(parse(std::string(kb::kMaxDeploymentBytes + 1, ' ')), "limits.file-size", Severity::error,
       0);
  only(parse(std::string(100, '[') + std::string(100, ']')), "limits.depth", Severity::error, 1);
}

TEST_CASE("deployments that are not UTF-8 or nest without end are refused up front", "[check]") {
  using kb::Severity;
  auto bytes =
      only(parse("name: prod\nengines: [\"vll\xff\"]\n"), "encoding.utf8", Severity::error, 2);
  CHECK(bytes.column == 15);
  CHECK(bytes.message == "bytes that are not UTF-8");
  auto deep = only(parse(std::string(10000, '[')), "limits.depth", Severity::error, 1);
  CHECK(deep.column == 17);
  std::vector<kb::Diagnostic> diags;
  kb::parse_ignore_file("ignore:\n  - id: \xc3\n", "ignore.yaml", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "encoding.utf8");
  CHECK(diags[0].line == 2);
  CHECK(diags[0].column == 9);
}

TEST_CASE("ignore files", "[check]") {
  std::vector<kb::Diagnostic> diags;
  auto list = kb::parse_ignore_file(R"(ignore:
  - {id: gotchas/a, reason: "fine", expires: 2027-01-01}
  - {id: gotchas/b, reason: forever}
  - {id: gotchas/c}
  - {reason: "no id"}
  - {id: gotchas/d, reason: x, expires: 2027-02-30}
  - {id: gotchas/e, reason: x, until: 2027-01-01}
)",
                                    "ignore.yaml", diags);
  REQUIRE(list.entries.size() == 3);
  CHECK(list.file == "ignore.yaml");
  CHECK(list.entries[0].id == "gotchas/a");
  CHECK(list.entries[0].reason == "fine");
  CHECK(list.entries[0].expires == "2027-01-01");
  CHECK(list.entries[0].pos.line == 2);
  CHECK(list.entries[1].expires.empty());
  CHECK(list.entries[2].id == "gotchas/e");
  REQUIRE(diags.size() == 4);
  CHECK(diags[0].code == "check.ignore-missing-reason");
  CHECK(diags[0].severity == kb::Severity::error);
  CHECK(diags[0].line == 4);
  CHECK(diags[1].code == "check.ignore-missing-id");
  CHECK(diags[1].line == 5);
  CHECK(diags[2].code == "check.ignore-bad-date");
  CHECK(diags[2].line == 6);
  CHECK(diags[3].code == "check.unknown-field");
  CHECK(diags[3].severity == kb::Severity::warning);
  CHECK(diags[3].line == 7);

  diags.clear();
  kb::parse_ignore_file("ignore: {id: x}\n", "ignore.yaml", diags);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "check.type");
}
