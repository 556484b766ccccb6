#include <catch2/catch.hpp>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

const char* kSeed000 = "gotchas/pd-cache-hit-silently-differs-from-cold-run";
const char* kSeed002 = "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace";

std::string deployment(const std::string& name) {
  return "'" + (fs::path(KB_TEST_DATA) / "deployments" / name).string() + "'";
}

// A frozen copy of the records the seeds need, so these tests pin exact findings while
// records/ grows (the shipped records are checked by the content tests).
std::string records() {
  return "--records '" + (fs::path(KB_TEST_DATA) / "check" / "records").string() + "'";
}

// `kb check` on a deployment of tests/data/deployments against tests/data/check/records.
Run check(const std::string& name, const std::string& extra = "") {
  auto dir = scratch("check");
  return kb(dir, "check " + deployment(name) + " " + records() + " " + extra);
}

json check_json(const std::string& name, int expected_code, const std::string& extra = "") {
  Run r = check(name, "--format json " + extra);
  INFO(r.err);
  CHECK(r.code == expected_code);
  json j = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  return j;
}

std::vector<std::string> ids(const json& list) {
  std::vector<std::string> out;
  for (const auto& f : list) out.push_back(f.at("id").get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("kb check: seed 000 hits LMCache P/D on vLLM 0.26 and exits 1", "[cli][check]") {
  json j = check_json("lmcache-pd-vllm-0-26.yaml", 1);
  REQUIRE(ids(j["findings"]) == std::vector<std::string>{kSeed000});
  const json& f = j["findings"][0];
  CHECK(f["severity"] == "blocker");
  CHECK(f["status"] == "open");
  CHECK(f["evidence"] == "reproduced");
  CHECK(f["possible"] == false);
  CHECK(f["line"] == 3);
  // Both ways in hold: LMCache P/D on 0.26, and prefix caching on by vLLM's default.
  CHECK(f["why"] == json::array({"engine vllm 0.26.0 in >=0.26.0, <0.28", "engine lmcache 0.3.9",
                                 "kv_transfer = pd", "engine vllm 0.26.0",
                                 "prefix_caching = true (the default of vllm 0.26.0)"}));
  CHECK(j["ignored"] == json::array());
  CHECK(j["diagnostics"] == json::array());
  CHECK(j["deployment"]["engines"][0]["id"] == "engines/vllm");
  CHECK(j["deployment"]["config"]["kv_connector"] == "lmcache");
  CHECK(j["counts"]["blocker"] == 1);
}

TEST_CASE("kb check: deployments that must not hit seed 000", "[cli][check]") {
  // Each turns prefix caching off explicitly: vLLM's default would hit the seed.
  json nixl = check_json("nixl-native-pd-vllm-0-26.yaml", 0);
  CHECK(nixl["findings"] == json::array());
  // `connector: nixl` is a synonym, normalised and said so.
  REQUIRE(nixl["diagnostics"].size() == 1);
  CHECK(nixl["diagnostics"][0]["code"] == "check.normalized");
  CHECK(nixl["diagnostics"][0]["severity"] == "note");
  CHECK(nixl["diagnostics"][0]["message"] == "connector: nixl is read as kv_connector: nixl");
  CHECK(check_json("lmcache-pd-vllm-0-28.yaml", 0)["findings"] == json::array());
  CHECK(check_json("batch-invariant-off.yaml", 0)["findings"] == json::array());
}

TEST_CASE("kb check: plain prefix caching also hits seed 000", "[cli][check]") {
  json j = check_json("prefix-caching.yaml", 1);
  REQUIRE(ids(j["findings"]) == std::vector<std::string>{kSeed000});
  CHECK(j["findings"][0]["why"] ==
        json::array({"engine vllm 0.29.0+cu128", "prefix_caching = true"}));
}

TEST_CASE("kb check: seed 002 and --fail-on", "[cli][check]") {
  json j = check_json("batch-invariant-shared-offload.json", 0);
  REQUIRE(ids(j["findings"]) == std::vector<std::string>{kSeed002});
  CHECK(j["findings"][0]["severity"] == "major");
  CHECK(j["findings"][0]["why"] == json::array({"batch_invariant = true", "kv_offload = shared"}));
  check_json("batch-invariant-shared-offload.json", 1, "--fail-on major");
  check_json("batch-invariant-shared-offload.json", 1, "--fail-on info");
  CHECK(check("batch-invariant-shared-offload.json", "--fail-on critical").code == 2);
}

TEST_CASE("kb check: every flag also reads KB_<FLAG> from the environment", "[cli][check]") {
  // The command line wins over the environment, which wins over the default.
  ::setenv("KB_FAIL_ON", "major", 1);
  CHECK(check("batch-invariant-shared-offload.json").code == 1);
  CHECK(check("batch-invariant-shared-offload.json", "--fail-on blocker").code == 0);
  ::setenv("KB_FAIL_ON", "critical", 1);
  CHECK(check("batch-invariant-shared-offload.json").code == 2);  // checked like the flag
  ::unsetenv("KB_FAIL_ON");
  CHECK(check("batch-invariant-shared-offload.json").code == 0);
}

TEST_CASE("kb version: kb's version and the knowledge base it uses", "[cli]") {
  auto dir = scratch("version");
  Run r = kb(dir, "version " + records());
  CHECK(r.code == 0);
  CHECK(r.out.rfind("kb 0.1.0\nknowledge base ", 0) == 0);
  CHECK(r.out.find(" records, newest change 2026-") != std::string::npos);
  Run flag = kb(dir, "--version");
  CHECK(flag.code == 0);
  CHECK(flag.out.rfind("kb 0.1.0\n", 0) == 0);
}

TEST_CASE("kb check: text output", "[cli][check]") {
  Run r = check("lmcache-pd-vllm-0-26.yaml");
  CHECK(r.code == 1);
  CHECK(r.err.empty());
  std::string file =
      (fs::path(KB_TEST_DATA) / "deployments" / "lmcache-pd-vllm-0-26.yaml").string();
  CHECK(r.out.rfind(file + ": 1 finding (1 blocker)\n\nblocker  " + kSeed000 + "\n", 0) == 0);
  CHECK(r.out.find("         why: engine vllm 0.26.0 in >=0.26.0, <0.28\n") != std::string::npos);
}

TEST_CASE("kb check: an unknown engine fails closed, --allow-unknown makes it a warning",
          "[cli][check]") {
  json j = check_json("unknown-engine.yaml", 2);
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["code"] == "check.unknown-engine");
  CHECK(j["diagnostics"][0]["severity"] == "error");
  CHECK(j["diagnostics"][0]["line"] == 3);
  CHECK(j["diagnostics"][0]["hint"] == "did you mean 'mooncake'?");

  json allowed = check_json("unknown-engine.yaml", 1, "--allow-unknown");
  REQUIRE(allowed["diagnostics"].size() == 1);
  CHECK(allowed["diagnostics"][0]["severity"] == "warning");
  CHECK(ids(allowed["findings"]) == std::vector<std::string>{kSeed000});
}

TEST_CASE("kb check: malformed or unreadable deployments exit 2", "[cli][check]") {
  struct Case {
    const char* file;
    const char* code;
    int line;
  };
  for (const Case& c : {Case{"malformed-engines-not-a-list.yaml", "check.type", 1},
                        Case{"malformed-version.yaml", "version.invalid", 2},
                        Case{"malformed-nested-config.yaml", "check.nested-config", 3}}) {
    INFO(c.file);
    json j = check_json(c.file, 2);
    CHECK(j["findings"] == json::array());
    REQUIRE(j["diagnostics"].size() == 1);
    CHECK(j["diagnostics"][0]["code"] == c.code);
    CHECK(j["diagnostics"][0]["line"] == c.line);
    Run text = check(c.file);
    CHECK(text.code == 2);
    CHECK(text.out.empty());
    CHECK(text.err.find(std::string("error[") + c.code + "]") != std::string::npos);
  }
  auto bytes = scratch("check_not_utf8");
  spit(bytes / "deploy.yaml", "engines:\n  - {engine: vllm, version: \"0.26\xff\"}\n");
  Run r =
      kb(bytes, "check '" + (bytes / "deploy.yaml").string() + "' " + records() + " --format json");
  CHECK(r.code == 2);
  json j = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["code"] == "encoding.utf8");
  CHECK(j["diagnostics"][0]["line"] == 2);
  CHECK(j["diagnostics"][0]["column"] == 34);
  spit(bytes / "deep.json", std::string(10000, '['));
  r = kb(bytes, "check '" + (bytes / "deep.json").string() + "' " + records());
  CHECK(r.code == 2);
  CHECK(r.err.find("error[limits.depth]") != std::string::npos);
  Run missing = check("no-such-file.yaml");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("error[io.read]: cannot open the file") != std::string::npos);
  auto dir = scratch("check_records");
  Run no_records = kb(dir, "check " + deployment("lmcache-pd-vllm-0-26.yaml") + " --records '" +
                               (dir / "nope").string() + "'");
  CHECK(no_records.code == 2);
  CHECK(kb(dir, "check").code == 2);
}

TEST_CASE("kb check: ignore files", "[cli][check]") {
  json j = check_json("lmcache-pd-vllm-0-26.yaml", 0,
                      "--ignore " + deployment("ignore-seed-000.yaml") + " --today 2026-10-05");
  CHECK(j["findings"] == json::array());
  REQUIRE(ids(j["ignored"]) == std::vector<std::string>{kSeed000});
  CHECK(j["ignored"][0]["reason"] == "we run the monolithic-equivalence oracle on every rollout");
  CHECK(j["ignored"][0]["expires"] == "2027-01-01");
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["code"] == "check.ignore-unused");
  CHECK(j["diagnostics"][0]["line"] == 5);

  json expired =
      check_json("lmcache-pd-vllm-0-26.yaml", 1,
                 "--ignore " + deployment("ignore-seed-000.yaml") + " --today 2027-01-01");
  CHECK(ids(expired["findings"]) == std::vector<std::string>{kSeed000});
  REQUIRE(expired["diagnostics"].size() == 2);
  CHECK(expired["diagnostics"][0]["code"] == "check.ignore-expired");

  json bad =
      check_json("lmcache-pd-vllm-0-26.yaml", 2, "--ignore " + deployment("ignore-no-reason.yaml"));
  REQUIRE(bad["diagnostics"].size() == 1);
  CHECK(bad["diagnostics"][0]["code"] == "check.ignore-missing-reason");
  CHECK(check("lmcache-pd-vllm-0-26.yaml", "--today 2026-13-01").code == 2);
}

TEST_CASE("kb check --format sarif has SARIF 2.1.0's required fields", "[cli][check]") {
  Run r = check(
      "lmcache-pd-vllm-0-26.yaml",
      "--format sarif --ignore " + deployment("ignore-seed-000.yaml") + " --today 2026-10-05");
  CHECK(r.code == 0);
  json s = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(s.is_discarded());
  CHECK(s["version"] == "2.1.0");
  CHECK(s["$schema"].get<std::string>().find("sarif-schema-2.1.0.json") != std::string::npos);
  REQUIRE(s["runs"].size() == 1);
  const json& run = s["runs"][0];
  CHECK(run["tool"]["driver"]["name"] == "kb");
  REQUIRE(run["tool"]["driver"]["rules"].size() == 1);
  CHECK(run["tool"]["driver"]["rules"][0]["id"] == kSeed000);
  CHECK(run["tool"]["driver"]["rules"][0]["shortDescription"]["text"].is_string());
  REQUIRE(run["results"].size() == 1);
  const json& res = run["results"][0];
  CHECK(res["ruleId"] == kSeed000);
  CHECK(res["ruleIndex"] == 0);
  CHECK(res["level"] == "error");
  CHECK(res["message"]["text"].get<std::string>().find("kv_transfer = pd") != std::string::npos);
  CHECK(res["locations"][0]["physicalLocation"]["region"]["startLine"] == 3);
  CHECK(res["suppressions"][0]["kind"] == "external");
  CHECK(res["suppressions"][0]["justification"] ==
        "we run the monolithic-equivalence oracle on every rollout");
  const json& notes = run["invocations"][0]["toolExecutionNotifications"];
  REQUIRE(notes.size() == 1);
  CHECK(notes[0]["descriptor"]["id"] == "check.ignore-unused");
  CHECK(notes[0]["level"] == "warning");
  CHECK(run["invocations"][0]["executionSuccessful"] == true);
}

TEST_CASE("kb check: a knowledge base that is broken or empty fails closed", "[cli][check]") {
  auto dir = scratch("check_broken_kb");
  spit(dir / "records/engines/vllm.yaml", "name: vLLM\n");
  spit(dir / "deploy.yaml", "engines:\n  - {engine: vllm, version: \"0.26.0\"}\n");
  auto codes = [&] {
    Run r = kb(dir, "check '" + (dir / "deploy.yaml").string() + "' --records '" +
                        (dir / "records").string() + "' --format json");
    INFO(r.err);
    CHECK(r.code == 2);
    json j = json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    std::vector<std::string> out;
    for (const auto& d : j["diagnostics"]) out.push_back(d["code"].get<std::string>());
    std::sort(out.begin(), out.end());
    return out;
  };
  CHECK(codes() == std::vector<std::string>{"check.empty-knowledge-base"});
  spit(dir / "records/gotchas/broken.yaml",
       "title: Broken\nseverity: blockr\nstatus: open\nsymptom: It breaks.\naffects: [vllm]\n");
  CHECK(codes() == std::vector<std::string>{"check.empty-knowledge-base", "check.records-invalid"});
}

TEST_CASE("kb check --each: every input on its own, in input order, the worst exit",
          "[cli][check]") {
  auto dir = scratch("each");
  const std::string two =
      deployment("lmcache-pd-vllm-0-26.yaml") + " " + deployment("batch-invariant-off.yaml");
  Run j = kb(dir, "check --each " + two + " " + records() + " -f json");
  INFO(j.err);
  CHECK(j.code == 1);
  json doc = json::parse(j.out, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  CHECK(doc["schema_version"].is_string());
  REQUIRE(doc["deployments"].size() == 2);
  CHECK(doc["deployments"][0]["input"].get<std::string>().ends_with("lmcache-pd-vllm-0-26.yaml"));
  CHECK(doc["deployments"][0]["exit_code"] == 1);
  CHECK(doc["deployments"][1]["exit_code"] == 0);
  CHECK(doc["deployments"][1]["findings"].empty());
  CHECK(doc["exit_code"] == 1);

  // SARIF: one run per input, each with its own stable id; an unreadable input is a run
  // that says so, and the exit code is 2.
  const std::string bad = two + " " + deployment("malformed-version.yaml");
  Run s = kb(dir, "check --each " + bad + " " + records() + " -f sarif");
  CHECK(s.code == 2);
  json log = json::parse(s.out, nullptr, false);
  REQUIRE_FALSE(log.is_discarded());
  REQUIRE(log["runs"].size() == 3);
  CHECK(log["runs"][0]["automationDetails"]["id"] != log["runs"][1]["automationDetails"]["id"]);
  CHECK(log["runs"][2]["results"][0]["ruleId"] == "kb/check-incomplete");
  CHECK(kb(dir, "check --each --explain x " + two + " " + records()).code == 2);
}

TEST_CASE("kb check: .kbignore.yaml is found by default, and its entries can name paths",
          "[cli][check]") {
  auto dir = scratch("kbignore");
  fs::create_directories(dir / "deploy" / "prod");
  spit(dir / "deploy" / "prod" / "d.json",
       slurp(fs::path(KB_TEST_DATA) / "deployments" / "batch-invariant-shared-offload.json"));
  const std::string args = "check deploy/prod/d.json " + records() + " --fail-on major";
  CHECK(kb_in(dir, args).code == 1);
  // An entry for other paths leaves the finding (and says it matched nothing).
  spit(dir / ".kbignore.yaml", std::string("ignore:\n  - {id: ") + kSeed002 +
                                   ", reason: staging only, paths: [deploy/staging/]}\n");
  Run other = kb_in(dir, args);
  CHECK(other.code == 1);
  CHECK(other.err.find("check.ignore-unused") != std::string::npos);
  // One for this file's directory (or a glob) ignores it, found from a subdirectory too.
  spit(dir / ".kbignore.yaml", std::string("ignore:\n  - {id: ") + kSeed002 +
                                   ", reason: accepted, paths: [\"deploy/*/*.json\"]}\n");
  CHECK(kb_in(dir, args).code == 0);
  CHECK(kb_in(dir / "deploy", "check prod/d.json " + records() + " --fail-on major").code == 0);
  // Paths are relative to the ignore file's directory, as in .gitignore.
  spit(dir / ".kbignore.yaml", std::string("ignore:\n  - {id: ") + kSeed002 +
                                   ", reason: accepted, paths: [deploy/prod/]}\n");
  CHECK(kb_in(dir / "deploy", "check prod/d.json " + records() + " --fail-on major").code == 0);
  CHECK(kb_in(dir, args).code == 0);
}

TEST_CASE("kb config: .kb.yaml or --config sets flags under the environment and command line",
          "[cli][check]") {
  auto dir = scratch("config");
  fs::create_directories(dir / "sub");
  spit(dir / "d.json",
       slurp(fs::path(KB_TEST_DATA) / "deployments" / "batch-invariant-shared-offload.json"));
  // records is relative to the config file's directory; check's own section applies.
  const fs::path rel = fs::relative(fs::path(KB_TEST_DATA) / "check" / "records", dir);
  spit(dir / ".kb.yaml", "records: " + rel.string() + "\ncheck:\n  fail-on: major\n");
  CHECK(kb_in(dir / "sub", "check ../d.json").code == 1);  // found from a subdirectory
  CHECK(kb_in(dir / "sub", "check ../d.json --fail-on blocker").code == 0);
  ::setenv("KB_FAIL_ON", "blocker", 1);
  CHECK(kb_in(dir / "sub", "check ../d.json").code == 0);  // the environment wins
  ::unsetenv("KB_FAIL_ON");
  // --config names another file; a flag no command has is an error (exit 2) at its line.
  spit(dir / "other.yaml", "records: " + rel.string() + "\nfail-onn: major\n");
  Run bad = kb_in(dir / "sub", "check ../d.json --config ../other.yaml");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("other.yaml:2:1: error[check.unknown-field]: fail-onn") != std::string::npos);
  spit(dir / "broken.yaml", "check: [\n");
  CHECK(kb_in(dir / "sub", "--config ../broken.yaml check ../d.json").code == 2);
}

TEST_CASE("kb check --quiet: no notes or warnings on stderr", "[cli][check]") {
  auto dir = scratch("quiet");
  const std::string args =
      "check '" +
      (fs::path(KB_SOURCE_DIR) / "tests/data/upstream/dynamo/trtllm-disagg-launch").string() +
      "' --records '" + (fs::path(KB_SOURCE_DIR) / "records").string() + "'";
  Run loud = kb(dir, args);
  CHECK(loud.err.find("note[check.normalized]") != std::string::npos);
  Run quiet = kb(dir, args + " -q");
  CHECK(quiet.code == loud.code);
  CHECK(quiet.err.empty());
  CHECK(quiet.out == loud.out);
}

TEST_CASE("kb check: a node two services read through a YAML alias is noted once", "[cli][check]") {
  auto dir = scratch("alias-note");
  spit(dir / "serve.yaml", R"(applications:
  - name: pd
    import_path: ray.serve.llm:build_pd_openai_app
    args:
      prefill_config: &config
        model_loading_config:
          model_id: Qwen/Qwen3-8B
        engine_kwargs:
          kv_transfer_config:
            kv_connector: NixlConnector
            kv_role: kv_both
      decode_config: *config
)");
  Run r = kb_in(
      dir, "check serve.yaml --records '" + (fs::path(KB_SOURCE_DIR) / "records").string() + "'");
  const std::string note =
      "serve.yaml:10:27: note[check.normalized]: --kv-transfer-config.kv_connector: "
      "NixlConnector is read as kv_connector: nixl";
  INFO(r.err);
  const auto first = r.err.find(note);
  REQUIRE(first != std::string::npos);
  CHECK(r.err.find(note, first + 1) == std::string::npos);
}

TEST_CASE("kb check: a cache server works for its serving graph's model", "[cli][check]") {
  // LMCache's multi-process server names no model; the workers beside it serve Qwen3,
  // which is no multimodal and no MLA model: no possible finding on the server for what a
  // multimodal or MLA model would hit. Two workers of different models leave it unknown.
  const std::string records = (fs::path(KB_SOURCE_DIR) / "records").string();
  auto dir = scratch("cache-server-model");
  const std::string server = "lmcache server --host 0.0.0.0 --port 5555 &\n";
  const std::string worker =
      "vllm serve MODEL --port PORT --kv-transfer-config "
      "'{\"kv_connector\":\"LMCacheMPConnector\",\"kv_role\":\"kv_both\"}' &\n";
  auto with = [&](std::string model, std::string port) {
    std::string w = worker;
    w.replace(w.find("MODEL"), 5, model);
    w.replace(w.find("PORT"), 4, port);
    return w;
  };
  spit(dir / "one.sh", server + with("Qwen/Qwen3-8B", "8100") + with("Qwen/Qwen3-8B", "8200"));
  spit(dir / "two.sh",
       server + with("Qwen/Qwen3-8B", "8100") + with("deepseek-ai/DeepSeek-V3", "8200"));
  Run one = kb_in(dir, "check one.sh --print-deployment --records '" + records + "'");
  INFO(one.out << one.err);
  CHECK(one.out.find("multimodal = false  via model Qwen/Qwen3-8B of 'one.sh:2', its serving "
                     "graph's (models/qwen3)") != std::string::npos);
  // Findings on the server (services named after the line they start on).
  auto on_server = [&](const std::string& file) {
    Run r = kb_in(dir, "check " + file + " -f json --records '" + records + "'");
    json j = json::parse(r.out, nullptr, false);
    REQUIRE(j.is_object());
    std::vector<std::string> ids;
    for (const json& f : j["findings"]) {
      for (const json& s : f["services"]) {
        if (s["name"] == file + ":1") ids.push_back(f["id"]);
      }
    }
    return ids;
  };
  CHECK(on_server("one.sh").empty());
  // Its model unknown, a multimodal model's gotcha for LMCache is possible on it.
  const auto two = on_server("two.sh");
  CHECK(std::find(two.begin(), two.end(), "gotchas/lmcache-mm-hash-16bit-collision") != two.end());
}

TEST_CASE("kb check: a default that names its roles runs its value's engine there",
          "[cli][check]") {
  // SGLang's transfer backend defaults to mooncake, and only a prefill or decode server
  // moves KV: there Mooncake runs (its gotchas apply, its version unknown); a plain server
  // has no transfer backend and runs no Mooncake.
  const std::string records = (fs::path(KB_SOURCE_DIR) / "records").string();
  auto dir = scratch("role-default");
  spit(dir / "pd.sh",
       "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode "
       "prefill --port 30000 &\n"
       "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode "
       "decode --port 30001 &\n");
  spit(dir / "plain.sh", "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B &\n");
  Run pd = kb_in(dir, "check pd.sh --print-deployment --records '" + records + "'");
  INFO(pd.out << pd.err);
  CHECK(pd.out.find("engines/mooncake (version not known)  via kv_transfer_backend = mooncake "
                    "(the default of sglang on a prefill server)") != std::string::npos);
  Run why = kb_in(dir, "check pd.sh --explain gotchas/mooncake-tcp-write-completes-before-delivery "
                       "--records '" + records + "'");
  CHECK(why.out.find("[unknown] engine mooncake <0.3.12") != std::string::npos);
  Run plain = kb_in(dir, "check plain.sh --print-deployment --records '" + records + "'");
  INFO(plain.out);
  CHECK(plain.out.find("engines/mooncake") == std::string::npos);
  CHECK(plain.out.find("kv_transfer_backend") == std::string::npos);
}
