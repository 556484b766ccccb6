// `kb check` on deployment artifacts: several inputs, stdin, directories, --db,
// --print-deployment, --explain, SARIF and Markdown, and the exit codes of the gate.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

fs::path data(const std::string& name) {
  return fs::path(KB_TEST_DATA) / "deploy" / name;
}

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

std::string records() {
  return "--records " + q(data("records"));
}

Run check(const std::string& args) {
  auto dir = scratch("deploy");
  return kb(dir, "check " + args + " " + records());
}

json parse(const Run& r) {
  INFO(r.err);
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

TEST_CASE("kb check: a script and a package list are one deployment", "[cli][deploy]") {
  Run r = check(q(data("vllm-serve.sh")) + " " + q(data("requirements.txt")) + " --format json");
  CHECK(r.code == 1);
  json j = parse(r);
  REQUIRE(ids(j["findings"]) == std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold"});
  const json& f = j["findings"][0];
  CHECK(f["why"] ==
        json::array({"engine vllm 0.26.0 (command vllm serve; version from pip vllm==0.26.0)",
                     "prefix_caching = true (--enable-prefix-caching)"}));
  CHECK(f["locations"][1] == json{{"file", data("vllm-serve.sh").string()},
                                  {"line", 1},
                                  {"column", 26},
                                  {"end_line", 1},
                                  {"end_column", 49}});
  CHECK(f["workaround"] ==
        "For work that must reproduce exactly, run with --no-enable-prefix-caching, or try "
        "batch-invariant mode where it is supported.");
  CHECK(f["fixes"] == json::array({{{"engine", "vllm"},
                                    {"running", "0.26.0"},
                                    {"affected", nullptr},
                                    {"fixed_in", nullptr},
                                    {"resolution", "none"},
                                    {"cause", nullptr},
                                    {"advice", "no fixed release of vllm yet"}}}));
  CHECK(f["tags"] == json::array({"prefix-caching", "correctness", "silent"}));
  CHECK_FALSE(f.contains("url"));
}

TEST_CASE("kb check: stdin and --input-kind", "[cli][deploy]") {
  auto dir = scratch("deploy-stdin");
  Run r = kb_stdin(dir, "check - --format json " + records(), data("vllm-serve.sh"));
  CHECK(r.code == 1);
  json j = parse(r);
  CHECK(j["deployment"]["services"][0]["name"] == "stdin:1");
  CHECK(j["findings"][0]["locations"][0]["file"] == "-");
  Run image =
      kb_stdin(dir, "check - --input-kind image --format json " + records(), data("image.txt"));
  CHECK(image.code == 1);
  CHECK(parse(image)["deployment"]["engines"][0]["version"] == "0.26.0");
  Run bad = kb(dir, "check - --input-kind yaml " + records());
  CHECK(bad.code == 2);
}

TEST_CASE("kb check: a directory is every file in it", "[cli][deploy]") {
  Run r = check(q(data("sglang-dir")) + " --format json");
  CHECK(r.code == 1);
  json j = parse(r);
  CHECK(ids(j["findings"]) == std::vector<std::string>{"gotchas/sglang-hetero-tp-gqa-heads-zero"});
  REQUIRE(j["diagnostics"].size() == 1);
  CHECK(j["diagnostics"][0]["code"] == "deploy.skipped");
  CHECK(j["diagnostics"][0]["file"] == data("sglang-dir/README.md").string());
  CHECK(j["deployment"]["services"][0]["engines"][0]["version"] == "0.5.16");
}

TEST_CASE("kb check --print-deployment: services, provenance, normalisation, unread",
          "[cli][deploy]") {
  Run text = check(q(data("llm-d-pd.yaml")) + " --print-deployment");
  CHECK(text.code == 0);
  const std::string file = data("llm-d-pd.yaml").string();
  CHECK(text.out.find("service ms-pd-prefill  role prefill  (" + file + ":36:11)\n") !=
        std::string::npos);
  CHECK(text.out.find("  setting  role = prefill  via label llm-d.ai/role  at " + file +
                      ":33:9\n") != std::string::npos);
  CHECK(
      text.out.find("  setting  batch_invariant = true  (written 1)  via env VLLM_BATCH_INVARIANT "
                    "(configMap vllm-env)  at " +
                    file + ":8:3\n") != std::string::npos);
  CHECK(text.out.find("  setting  nixl_side_channel_host = (set at run time)") !=
        std::string::npos);
  CHECK(
      text.out.find(file + ":42:15: --block-size=128  -- no settings record spells this flag\n") !=
      std::string::npos);

  Run j = check(q(data("llm-d-pd.yaml")) + " --print-deployment --format json");
  CHECK(j.code == 0);
  json d = parse(j)["deployment"];
  REQUIRE(d["services"].size() == 2);
  json fact;
  for (const auto& x : d["services"][0]["facts"]) {
    if (x["key"] == "kv_connector") fact = x;
  }
  CHECK(fact == json{{"key", "kv_connector"},
                     {"value", "nixl"},
                     {"setting", "settings/kv-connector"},
                     {"written",
                      {{"key", "--kv-transfer-config.kv_connector"}, {"value", "NixlConnector"}}},
                     {"line", 44},
                     {"column", 15},
                     {"file", file},
                     {"via", "--kv-transfer-config kv_connector"}});
  CHECK(d["not_understood"].size() == 5);
}

TEST_CASE("kb check --explain: each clause per service", "[cli][deploy]") {
  Run r = check(q(data("sglang-pd-symmetric.sh")) + " --explain sglang-pd-kv-dtype-mismatch");
  CHECK(r.code == 0);
  CHECK(r.out.find("gotchas/sglang-pd-kv-dtype-mismatch: does not apply\n") == 0);
  CHECK(r.out.find("    [true]    engine sglang\n") != std::string::npos);
  CHECK(r.out.find("    [false]   prefill and decode differ in kv_cache_dtype\n") !=
        std::string::npos);
  Run j = check(q(data("sglang-pd.sh")) + " --explain sglang-pd-kv-dtype-mismatch --format json");
  CHECK(j.code == 0);
  CHECK(parse(j)["result"] == "applies");
  // Services have names; a flat deployment file's one service has none, left out.
  CHECK(parse(j)["services"][0]["service"].is_string());
  Run flat = check(q(fs::path(KB_TEST_DATA) / "deployments" / "lmcache-pd-vllm-0-26.yaml") +
                   " --explain lmcache-pd-vllm-layout --format json --allow-unknown");
  REQUIRE(flat.code == 0);
  const json flat_services = parse(flat)["services"];
  REQUIRE(flat_services.size() == 1);
  CHECK_FALSE(flat_services[0].contains("service"));
  CHECK(flat_services[0]["role"] == "both");
  Run missing = check(q(data("sglang-pd.sh")) + " --explain no-such-gotcha");
  CHECK(missing.code == 2);
}

TEST_CASE("kb check --format sarif: help, fingerprints, run id, end positions", "[cli][deploy]") {
  Run r =
      check(q(data("vllm-pd-lmcache.sh")) + " --format sarif --base-url https://kb.example.com/");
  CHECK(r.code == 1);  // blocker findings fail the default --fail-on
  json s = parse(r);
  const json& run = s["runs"][0];
  CHECK(run["automationDetails"]["id"] == "kb-check/" + data("vllm-pd-lmcache.sh").string() + "/");
  const json& rules = run["tool"]["driver"]["rules"];
  REQUIRE(rules.size() == 2);
  const json& rule = rules[1];
  CHECK(rule["id"] == "gotchas/lmcache-pd-vllm-layout");
  CHECK(rule["helpUri"] == "https://kb.example.com/gotchas/lmcache-pd-vllm-layout");
  CHECK(rule["help"]["text"] ==
        "Upgrade vLLM to 0.28.0, or run P/D over vLLM's own NIXL connector.");
  CHECK(rule["fullDescription"]["text"] ==
        "Decode output diverges from a monolithic server from the first generated token.");
  CHECK(rule["properties"]["tags"] == json::array({"kv-transfer", "correctness"}));
  const json& result = run["results"][1];
  CHECK(result["partialFingerprints"]["kbFinding/v1"].get<std::string>().size() == 16);
  CHECK(result["locations"][0]["physicalLocation"]["region"] ==
        json{{"startLine", 11}, {"startColumn", 5}, {"endLine", 11}, {"endColumn", 15}});
  CHECK(result["message"]["text"].get<std::string>().find(
            "Fix: upgrade vllm from 0.26.0 to 0.28.0 or later (fixed there).") !=
        std::string::npos);
}

TEST_CASE("kb check --format markdown: a PR comment", "[cli][deploy]") {
  Run r = check(q(data("sglang-pd.sh")) + " --format markdown --base-url https://kb.example.com");
  CHECK(r.code == 1);
  CHECK(r.out.find("### kb check: 2 gotchas (2 blocker) in `") == 0);
  CHECK(r.out.find("| Severity | Gotcha | Service | Where |\n|---|---|---|---|\n") !=
        std::string::npos);
  CHECK(r.out.find(
            "| **blocker** | [SGLang prefill and decode with different KV cache dtypes corrupt "
            "the transfer silently](https://kb.example.com/gotchas/sglang-pd-kv-dtype-mismatch)"
            "<br>`gotchas/sglang-pd-kv-dtype-mismatch` | ") != std::string::npos);
  CHECK(r.out.find("**Fix:** upgrade sglang from 0.5.16 to 0.5.18 or later (fixed there)") !=
        std::string::npos);
}

TEST_CASE("kb check: what fails closed, and --allow-unknown", "[cli][deploy]") {
  Run unidentified = check(q(data("compose-unidentified.yaml")));
  CHECK(unidentified.code == 2);
  CHECK(unidentified.err.find("error[deploy.unidentified-engine]") != std::string::npos);
  Run allowed = check(q(data("compose-unidentified.yaml")) + " --allow-unknown");
  CHECK(allowed.code == 0);
  CHECK(allowed.err.find("warning[deploy.unidentified-engine]") != std::string::npos);
  auto dir = scratch("deploy-kind");
  spit(dir / "notes.md", "Nothing here.\n");
  Run unknown = check(q(dir / "notes.md"));
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("error[deploy.unknown-kind]") != std::string::npos);
  Run missing = check(q(dir / "absent.yaml"));
  CHECK(missing.code == 2);
  CHECK(missing.err.find("error[io.read]") != std::string::npos);
}

TEST_CASE("kb check: adding an input never turns exit 2 into a pass", "[cli][deploy]") {
  auto dir = scratch("deploy-closed");
  // Runs no engine: alone it is exit 2; beside a script that does, it must stay exit 2.
  spit(dir / "svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec: {}\n");
  // Another program's YAML (an LMCache config) is refused, not read as a deployment.
  spit(dir / "lmcache.yaml", "chunk_size: 256\nlocal_cpu: true\n");
  Run alone = check(q(dir / "svc.yaml"));
  CHECK(alone.code == 2);
  Run script = check(q(data("vllm-serve.sh")));
  CHECK(script.code != 2);
  for (const char* extra : {"svc.yaml", "lmcache.yaml"}) {
    INFO(extra);
    Run both = check(q(data("vllm-serve.sh")) + " " + q(dir / extra));
    CHECK(both.code == 2);
    CHECK((both.err.find("error[deploy.no-engine]") != std::string::npos ||
           both.err.find("error[deploy.unknown-kind]") != std::string::npos));
    CHECK(both.err.find(extra) != std::string::npos);  // names the file at fault
  }
  Run allowed = check(q(data("vllm-serve.sh")) + " " + q(dir / "svc.yaml") + " --allow-unknown");
  CHECK(allowed.code == script.code);
  CHECK(allowed.err.find("warning[deploy.no-engine]") != std::string::npos);
}

TEST_CASE("kb check --db: against a built index", "[cli][deploy]") {
  auto dir = scratch("deploy-db");
  Run build = kb(dir, "build " + records() + " --db " + q(dir / "kb.db"));
  REQUIRE(build.code == 0);
  Run r =
      kb(dir, "check " + q(data("sglang-pd.sh")) + " --db " + q(dir / "kb.db") + " --format json");
  CHECK(r.code == 1);
  CHECK(ids(parse(r)["findings"]) ==
        std::vector<std::string>{"gotchas/sglang-hetero-tp-gqa-heads-zero",
                                 "gotchas/sglang-pd-kv-dtype-mismatch"});
  Run both =
      kb(dir, "check " + q(data("sglang-pd.sh")) + " --db " + q(dir / "kb.db") + " " + records());
  CHECK(both.code == 2);
}

TEST_CASE("kb check: an input past its expansion budget fails closed", "[cli][deploy][budget]") {
  // A 336-byte script whose variable doubles itself 30 times asked for 2 GiB, and a bomb of
  // YAML aliases for 8 MiB from 2 KiB. Under `ulimit -v` 1 GiB, both exit 2 at once, with
  // limits.expansion at the line where the budget ran out, alone or beside a good input.
  for (const auto& [file, line] : std::vector<std::pair<std::string, int>>{
           {"budget-doubling-variable.sh", 23}, {"budget-alias-bytes.yaml", 9}}) {
    for (const std::string& also : {std::string(), q(data("vllm-serve.sh"))}) {
      INFO(file << " " << also);
      auto dir = scratch("budget");
      const std::string cmd = "ulimit -v 1048576; '" + std::string(KB_BINARY) + "' check " +
                              q(data(file)) + " " + also + " " + records() + " --format json >'" +
                              (dir / "stdout").string() + "' 2>/dev/null";
      const int status = std::system(cmd.c_str());
      REQUIRE(WIFEXITED(status));
      CHECK(WEXITSTATUS(status) == 2);
      Run r;
      r.out = slurp(dir / "stdout");
      json j = parse(r);
      int found = 0;
      for (const auto& d : j.at("diagnostics")) {
        if (d.at("code") != "limits.expansion") continue;
        ++found;
        CHECK(d.at("line") == line);
        CHECK(d.at("file").get<std::string>().find(file) != std::string::npos);
      }
      CHECK(found == 1);
    }
  }
}

// SARIF 2.1.0 makes a rule's `properties.tags` unique items, and GitHub's upload-sarif
// rejects a file that repeats one. A gotcha whose family and kind are the same word
// (shipped: lmcache-vllm-compat-matrix-gap, family and kind `compatibility`) gives it once.
TEST_CASE("kb check --format sarif: every rule's tags are unique", "[cli][deploy][sarif]") {
  auto dir = scratch("sarif-tags");
  spit(dir / "run.sh",
       "pip install vllm lmcache\n"
       "vllm serve Qwen/Qwen3-8B --kv-transfer-config "
       "'{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'\n");
  Run r = kb(dir, "check " + q(dir / "run.sh") + " --format sarif --records " +
                      q(fs::path(KB_SOURCE_DIR) / "records"));
  INFO(r.err);
  json s = json::parse(r.out);
  const json& rules = s["runs"][0]["tool"]["driver"]["rules"];
  bool compat = false;
  for (const json& rule : rules) {
    INFO(rule["id"]);
    std::vector<std::string> tags = rule["properties"]["tags"];
    std::sort(tags.begin(), tags.end());
    CHECK(std::adjacent_find(tags.begin(), tags.end()) == tags.end());
    if (rule["id"] == "gotchas/lmcache-vllm-compat-matrix-gap") {
      compat = true;
      CHECK(std::count(tags.begin(), tags.end(), "compatibility") == 1);
    }
  }
  CHECK(compat);
}

// A fail-closed check uploaded with `if: always()` must not close every open alert: its
// SARIF carries a result that says the check could not run whole.
TEST_CASE("kb check --format sarif: exit 2 carries a result, never an empty run",
          "[cli][deploy][sarif]") {
  Run r = check(q(data("compose-unidentified.yaml")) + " --format sarif");
  CHECK(r.code == 2);
  json s = parse(r);
  const json& run = s["runs"][0];
  CHECK(run["invocations"][0]["executionSuccessful"] == false);
  REQUIRE(run["results"].size() == 1);
  const json& result = run["results"][0];
  CHECK(result["ruleId"] == "kb/check-incomplete");
  CHECK(result["level"] == "error");
  CHECK(result["properties"]["code"] == "deploy.unidentified-engine");
  CHECK(result["message"]["text"].get<std::string>().find("no gotcha is ruled out") !=
        std::string::npos);
  const json& rule = run["tool"]["driver"]["rules"][result["ruleIndex"].get<int>()];
  CHECK(rule["id"] == "kb/check-incomplete");
  CHECK(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .get<std::string>()
            .ends_with("compose-unidentified.yaml"));
}

// GitHub matches alerts across runs by fingerprint and URI: both must not depend on how
// the path was typed.
TEST_CASE("kb check --format sarif: paths, fingerprints and run id however the path is typed",
          "[cli][deploy][sarif]") {
  auto dir = scratch("sarif-paths");
  fs::create_directories(dir / "deploy");
  fs::copy_file(data("vllm-pd-lmcache.sh"), dir / "deploy" / "x.sh",
                fs::copy_options::overwrite_existing);
  // Run from `dir`, as a CI job runs from the repository's root.
  auto sarif = [&](const std::string& path) {
    const std::string cmd = "cd " + q(dir) + " && '" + KB_BINARY + "' check " + path +
                            " --format sarif " + records() + " >" + q(dir / "out.sarif");
    CHECK(WEXITSTATUS(std::system(cmd.c_str())) == 1);
    return json::parse(slurp(dir / "out.sarif"))["runs"][0];
  };
  const json plain = sarif("deploy/x.sh");
  REQUIRE(!plain["results"].empty());
  // One location per result (GitHub reads the first only); the other lines are related.
  bool related = false;
  for (const json& result : plain["results"]) {
    CHECK(result["locations"].size() == 1);
    if (!result.contains("relatedLocations")) continue;
    related = true;
    for (const json& rl : result["relatedLocations"]) {
      CHECK(rl["id"].get<int>() >= 1);
      CHECK(rl["physicalLocation"]["artifactLocation"]["uri"] == "deploy/x.sh");
    }
  }
  CHECK(related);
  for (const std::string& typed :
       {std::string("./deploy/x.sh"), std::string("deploy/../deploy/x.sh"),
        q(dir / "deploy" / "x.sh")}) {
    INFO(typed);
    const json other = sarif(typed);
    CHECK(other["automationDetails"]["id"] == "kb-check/deploy/x.sh/");
    REQUIRE(other["results"].size() == plain["results"].size());
    for (std::size_t i = 0; i < plain["results"].size(); ++i) {
      const json& a = plain["results"][i];
      const json& b = other["results"][i];
      CHECK(a["partialFingerprints"] == b["partialFingerprints"]);
      CHECK(b["locations"][0]["physicalLocation"]["artifactLocation"] ==
            json({{"uri", "deploy/x.sh"}, {"uriBaseId", "%SRCROOT%"}}));
    }
  }
}

// osv-scanner and Trivy conventions: a gate value that never fails on findings, and -f.
TEST_CASE("kb check --fail-on never and -f", "[cli][deploy]") {
  Run blockers = check(q(data("vllm-pd-lmcache.sh")));
  CHECK(blockers.code == 1);
  Run never = check(q(data("vllm-pd-lmcache.sh")) + " --fail-on never -f json");
  CHECK(never.code == 0);
  CHECK(!parse(never)["findings"].empty());
  // Never is about findings: a check that cannot run whole still fails closed.
  CHECK(check(q(data("compose-unidentified.yaml")) + " --fail-on never").code == 2);
  CHECK(check(q(data("vllm-pd-lmcache.sh")) + " --fail-on sometimes").code != 0);
}

TEST_CASE("kb check -o FILE writes the report there and not on stdout", "[cli][deploy]") {
  auto dir = scratch("deploy-output");
  const fs::path out = dir / "kb.sarif";
  Run r = check(q(data("vllm-pd-lmcache.sh")) + " -f sarif -o " + q(out));
  CHECK(r.code == 1);  // the gate still decides the exit code
  CHECK(r.out.empty());
  const json s = json::parse(slurp(out));
  CHECK(s["version"] == "2.1.0");
  CHECK(!s["runs"][0]["results"].empty());
  // A file that cannot be written (its parent is a file) is an error, not a silent loss.
  spit(dir / "plain", "x\n");
  Run bad = check(q(data("vllm-pd-lmcache.sh")) + " -o " + q(dir / "plain" / "x.json"));
  CHECK(bad.code == 2);
  CHECK(!bad.err.empty());
}

TEST_CASE("kb check --set and --traffic state facts the files do not", "[cli][deploy]") {
  Run r = check(q(data("vllm-serve.sh")) +
                " --print-deployment --format json --set gpu=H100 --set model=meta/other "
                "--set kv-cache-dtype=auto --traffic prompt_logprobs");
  REQUIRE(r.code == 0);
  const json s = parse(r)["deployment"]["services"][0];
  CHECK(s["model"] == "meta/other");  // wins over the file's Qwen/Qwen3-8B
  CHECK(s["config"]["gpu"] == "h100");
  CHECK(s["config"]["kv_cache_dtype"] == "auto");  // wins over --kv-cache-dtype fp8
  CHECK(s["config"]["prompt_logprobs"] == "true");

  // A name no record knows: exit 2 with a did-you-mean, never a check without it.
  Run bad = check(q(data("vllm-serve.sh")) + " --set gpuu=H100");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("error[check.unknown-setting]: --set gpuu: no setting 'gpuu'") !=
        std::string::npos);
  CHECK(bad.err.find("did you mean 'gpu'?") != std::string::npos);
  Run no_eq = check(q(data("vllm-serve.sh")) + " --set gpu");
  CHECK(no_eq.code == 2);
  CHECK(no_eq.err.find("not KEY=VALUE") != std::string::npos);
  // Only traffic settings are traffic: the GPU is hardware.
  Run hw = check(q(data("vllm-serve.sh")) + " --traffic gpu");
  CHECK(hw.code == 2);
  CHECK(hw.err.find("--traffic gpu: no traffic setting spells it") != std::string::npos);
}

TEST_CASE("kb check text output is coloured only when asked or on a terminal", "[cli][deploy]") {
  // Through a pipe (as here) auto means no colour: CI logs and files stay plain.
  Run plain = check(q(data("vllm-serve.sh")));
  CHECK(plain.out.find("\033[") == std::string::npos);
  Run always = check(q(data("vllm-serve.sh")) + " --color always");
  CHECK(always.out.find("\033[1;31mblocker\033[0m") != std::string::npos);
  // JSON never carries colour, whatever --color says.
  Run json_out = check(q(data("vllm-serve.sh")) + " --color always --format json");
  CHECK(json_out.out.find("\033[") == std::string::npos);
  Run bad = check(q(data("vllm-serve.sh")) + " --color sometimes");
  CHECK(bad.code == 2);
}
