// The shell reader: scripts and command lines, entry points from records, pip installs,
// exports, `sh -c`, `docker run`.

#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;

TEST_CASE("shell: vLLM's LMCache P/D launcher", "[deploy][shell]") {
  Read r = read_files({"vllm-pd-lmcache.sh"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() == std::vector<std::string>{"vllm-pd-lmcache.sh:11", "vllm-pd-lmcache.sh:20"});
  const Service& p = r.service("vllm-pd-lmcache.sh:11");
  const DeployedEngine* vllm = engine(p, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.26.0");
  CHECK(vllm->pos.line == 11);         // where `vllm serve` starts
  CHECK(vllm->version_pos.line == 5);  // the pip install line
  CHECK(vllm->via == "command vllm serve; version from pip install vllm==0.26.0");
  CHECK(engine(p, "engines/lmcache")->version == "0.3.9");
  CHECK(p.model == "Qwen/Qwen3-8B");  // $MODEL, set by the script
  const Setting* role = setting(p, "role");
  REQUIRE(role);
  CHECK(role->value == "kv_producer");
  CHECK(role->raw_key == "--kv-transfer-config.kv_role");
  CHECK(role->via == "--kv-transfer-config kv_role");
  CHECK(role->pos.line == 15);
  CHECK(setting(p, "kv_connector")->value == "LMCacheConnectorV1");
  CHECK(setting(r.service("vllm-pd-lmcache.sh:20"), "role")->value == "kv_consumer");
  REQUIRE(setting(p, "port"));
  CHECK(setting(p, "port")->value == "8100");
  CHECK(setting(p, "port")->pos.line == 12);
  CHECK(r.unread("--enforce-eager", 13));
  CHECK(r.unread("env UCX_TLS", 8));
  CHECK(
      r.unread("--kv-transfer-config kv_connector_extra_config.discard_partial_chunks=false", 15));
}

TEST_CASE("shell: the LMCache launcher hits the layout gotcha, with what to do",
          "[deploy][shell]") {
  CheckReport report = check_read(read_files({"vllm-pd-lmcache.sh"}));
  REQUIRE(count_severity(report.diagnostics, Severity::error) == 0);
  REQUIRE(finding_ids(report) == std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold",
                                                          "gotchas/lmcache-pd-vllm-layout"});
  const Finding& f = report.findings[1];
  CHECK(f.service == "vllm-pd-lmcache.sh:11");
  CHECK(f.why ==
        std::vector<std::string>{
            "engine vllm 0.26.0 in >=0.26.0, <0.28 (command vllm serve; version from pip "
            "install vllm==0.26.0)",
            "engine lmcache 0.3.9 (pip install lmcache==0.3.9)",
            "service 'vllm-pd-lmcache.sh:11' has role prefill (--kv-transfer-config kv_role)"});
  REQUIRE(f.locations.size() == 3);
  CHECK(f.locations[0].pos.line == 11);
  CHECK(f.locations[1].pos.line == 5);
  CHECK(f.locations[2].pos.line == 15);
  CHECK(f.workaround == "Upgrade vLLM to 0.28.0, or run P/D over vLLM's own NIXL connector.");
  REQUIRE(f.fixes.size() == 1);
  CHECK(f.fixes[0].engine == "vllm");
  CHECK(f.fixes[0].running == "0.26.0");
  CHECK(f.fixes[0].affected == ">=0.26.0, <0.28");
  CHECK(f.fixes[0].fixed_in == "0.28.0");
  CHECK(f.fixes[0].advice == "upgrade vllm from 0.26.0 to 0.28.0 or later (fixed there)");
  // The first paragraph of the workaround, without Markdown.
  const Finding& apc = report.findings[0];
  CHECK(apc.workaround ==
        "For work that must reproduce exactly, run with --no-enable-prefix-caching, or try "
        "batch-invariant mode where it is supported.");
  CHECK(apc.fixes[0].advice == "no fixed release of vllm yet");
}

TEST_CASE("shell: SGLang P/D with a router, asymmetric dtype and TP", "[deploy][shell]") {
  Read r = read_files({"sglang-pd.sh"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() ==
          std::vector<std::string>{"sglang-pd.sh:7", "sglang-pd.sh:9", "sglang-pd.sh:11"});
  const Service& p = r.service("sglang-pd.sh:7");
  CHECK(engine(p, "engines/sglang")->version == "0.5.16");  // pip install "sglang[all]==0.5.16"
  CHECK(p.model == "Qwen/Qwen3.5-35B-A3B");                 // exported $MODEL
  CHECK(setting(p, "role")->value == "prefill");
  CHECK(setting(p, "kv_transfer_backend")->value == "mooncake");
  CHECK(setting(p, "kv_cache_dtype")->value == "fp8_e4m3");
  CHECK(setting(p, "kv_cache_dtype")->pos.line == 8);
  CHECK(setting(p, "tensor_parallel_size")->value == "1");
  const Service& router = r.service("sglang-pd.sh:11");
  CHECK(setting(router, "role")->value == "router");
  CHECK(setting(router, "role")->via == "command python3 -m sglang_router.launch_router");
  CHECK(r.unread("--prefill http://127.0.0.1:30000", 12));
  // The exported MODEL reaches every command, and is listed once.
  CHECK(std::count_if(r.deployment.not_understood.begin(), r.deployment.not_understood.end(),
                      [](const Unread& u) { return u.text == "env MODEL (export)"; }) == 1);

  CheckReport report = check_read(r);
  REQUIRE(finding_ids(report) == std::vector<std::string>{"gotchas/sglang-hetero-tp-gqa-heads-zero",
                                                          "gotchas/sglang-pd-kv-dtype-mismatch"});
  CHECK(report.findings[0].fixes[0].advice ==
        "upgrade sglang from 0.5.16 to 0.5.18 or later (fixed there)");
  CHECK(report.findings[1].why ==
        std::vector<std::string>{
            "engine sglang 0.5.16 (command python3 -m sglang.launch_server; "
            "version from pip install sglang[all]==0.5.16)",
            "prefill and decode differ in kv_cache_dtype",
            "kv_cache_dtype = fp8 on sglang-pd.sh:7 (--kv-cache-dtype)",
            "kv_cache_dtype = auto on sglang-pd.sh:9 (the default of sglang 0.5.16)"});
}

TEST_CASE("shell: a symmetric SGLang pair hits neither P/D gotcha", "[deploy][shell]") {
  CheckReport report = check_read(read_files({"sglang-pd-symmetric.sh"}));
  CHECK(count_severity(report.diagnostics, Severity::error) == 0);
  CHECK(report.findings.empty());
}

TEST_CASE("shell: --no-enable-prefix-caching keeps the prefix-cache gotcha away",
          "[deploy][shell]") {
  CheckReport on = check_read(read_texts(
      {{"a.sh", "vllm serve m --enable-prefix-caching\n"}, {"r.txt", "vllm==0.26.0\n"}}));
  CHECK(finding_ids(on) == std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold"});
  CheckReport off = check_read(read_texts(
      {{"a.sh", "vllm serve m --no-enable-prefix-caching\n"}, {"r.txt", "vllm==0.26.0\n"}}));
  CHECK(off.findings.empty());
  // argparse semantics: the later of two switches wins, the other is listed.
  Read both =
      read_texts({{"a.sh", "vllm serve m --enable-prefix-caching --no-enable-prefix-caching\n"}});
  CHECK(setting(both.deployment.services[0], "prefix_caching")->value == "false");
  CHECK(both.unread("--enable-prefix-caching = true", 1));
}

TEST_CASE("shell: sh -c strings, VAR=x prefixes, exports and exec", "[deploy][shell]") {
  Read r = read_texts(
      {{"run.sh",
        "export VLLM_BATCH_INVARIANT=1\n"
        "bash -lc \"pip install vllm==0.26.0 && exec vllm serve m --tensor-parallel-size 2\"\n"
        "VLLM_NIXL_SIDE_CHANNEL_HOST=10.0.0.1 nohup vllm serve m2 &\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 2);
  const Service& a = r.deployment.services[0];
  CHECK(a.name == "run.sh:2");
  CHECK(engine(a, "engines/vllm")->version == "0.26.0");
  CHECK(setting(a, "tensor_parallel_size")->value == "2");
  CHECK(setting(a, "tensor_parallel_size")->pos.line == 2);
  CHECK(setting(a, "batch_invariant")->pos.line == 1);
  const Service& b = r.deployment.services[1];
  CHECK(b.model == "m2");
  CHECK(setting(b, "nixl_side_channel_host")->value == "10.0.0.1");
  CHECK(setting(b, "batch_invariant")->value == "1");
}

TEST_CASE("shell: a router or cache server reads only the flags its own engine spells",
          "[deploy][shell]") {
  // settings/port is spelled by vLLM and by the made-up proxy; Mooncake's master spells
  // nothing, so its --port is its own, never vLLM's.
  Read r = read_texts({{"run.sh",
                        "vllm serve m --port 8100 &\n"
                        "mooncake_master --port 50051 &\n"
                        "python3 zz_proxy.py --port 9000\n"}});
  REQUIRE(r.deployment.services.size() == 3);
  CHECK(setting(r.deployment.services[0], "port")->value == "8100");
  CHECK(setting(r.deployment.services[1], "port") == nullptr);
  CHECK(r.unread("--port 50051", 2));
  CHECK(setting(r.deployment.services[2], "port")->value == "9000");
  CHECK_FALSE(r.unread("--port 9000", 3));
  // Nor vLLM's JSON flag: the master's --kv-transfer-config gives it no role.
  Read json = read_texts(
      {{"run.sh", "mooncake_master --kv-transfer-config '{\"kv_role\":\"kv_producer\"}'\n"}});
  REQUIRE(json.deployment.services.size() == 1);
  CHECK(setting(json.deployment.services[0], "role")->value == "cache-server");
  CHECK(json.unread("--kv-transfer-config {\"kv_role\":\"kv_producer\"}", 1));
}

TEST_CASE("shell: values the script computes when it runs are set, not known", "[deploy][shell]") {
  Read r = read_texts(
      {{"run.sh",
        "PORT=$((8000 + RANK))\n"
        "VLLM_BATCH_INVARIANT=$(cat mode) vllm serve $2 --tensor-parallel-size $(( 2 * NODES )) "
        "\\\n"
        "  --kv-cache-dtype `cat dtype` --gpu-memory-utilization ${UTIL:-0.9} --port $PORT\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.diags.empty());  // not a bad value: exit 2 would refuse every upstream script
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  CHECK(s.model.empty());  // `$2` is chosen by whoever runs the script
  CHECK(r.unread("$2", 2));
  for (const char* key : {"tensor_parallel_size", "kv_cache_dtype", "batch_invariant"}) {
    INFO(key);
    const Setting* set = setting(s, key);
    REQUIRE(set);
    CHECK(set->runtime);
    CHECK(set->value.empty());
  }
  CHECK(setting(s, "tensor_parallel_size")->raw_value == "$(( 2 * NODES ))");
  CheckReport report = check_read(r);
  CHECK(count_severity(report.diagnostics, Severity::error) == 0);
}

TEST_CASE("shell: flags written with underscores are the same flags", "[deploy][shell]") {
  Read r =
      read_texts({{"run.sh",
                   "vllm serve m --tensor_parallel_size 2 --kv_transfer_config "
                   "'{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_consumer\"}'\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  CHECK(setting(s, "tensor_parallel_size")->value == "2");
  CHECK(setting(s, "tensor_parallel_size")->via == "--tensor_parallel_size");  // as written
  CHECK(setting(s, "kv_connector")->value == "NixlConnector");
  CHECK(setting(s, "role")->value == "kv_consumer");
}

TEST_CASE("shell: a bool flag given its value as the next word", "[deploy][shell]") {
  Read r = read_texts({{"run.sh",
                        "VLLM_BATCH_INVARIANT=1 vllm serve --enable-prefix-caching "
                        "false Qwen/Qwen3-8B\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  CHECK(setting(s, "prefix_caching")->value == "false");  // not `true`, silently
  CHECK(s.model == "Qwen/Qwen3-8B");                      // and `false` is not the model
}

TEST_CASE("shell: docker run and podman run", "[deploy][shell]") {
  Read r = read_texts(
      {{"run.sh",
        "podman run --network host --device nvidia.com/gpu=0 -e VLLM_BATCH_INVARIANT=1 \\\n"
        "  -e HF_HOME=/models ghcr.io/llm-d/llm-d:v0.2.0 --model Qwen/Qwen3-0.6B \\\n"
        "  --kv-transfer-config='{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n"
        "docker run --rm -it redis:7\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  CHECK(engine(s, "engines/llm-d")->version == "0.2.0");
  CHECK(engine(s, "engines/vllm")->version == "0.10.0");
  CHECK(s.model == "Qwen/Qwen3-0.6B");
  CHECK(setting(s, "role")->value == "kv_both");
  CHECK(setting(s, "batch_invariant")->pos.line == 1);
  CHECK(r.unread("env HF_HOME (docker run -e)", 2));
}

TEST_CASE("shell: a command passing engine flags that no record starts fails closed",
          "[deploy][shell]") {
  Read r =
      read_texts({{"serve.sh",
                   "python3 my_server.py --tensor-parallel-size 4\ncurl localhost:8000/health\n"}});
  REQUIRE(r.codes() == std::vector<std::string>{"deploy.unidentified-engine"});
  CHECK(r.diags[0].line == 1);
  CHECK(
      r.diags[0].message ==
      "'serve.sh:1' runs an engine kb cannot identify (command python3): it passes flags that only "
      "engines take");
}

TEST_CASE("shell: a script that starts nothing kb knows is not a check", "[deploy][shell]") {
  Read r = read_texts({{"x.sh", "#!/bin/sh\necho hello\n"}});
  CHECK(r.codes() == std::vector<std::string>{"deploy.no-engine"});
  CHECK(r.diags[0].severity == Severity::error);
}

TEST_CASE("shell: a function is read where it is called, with its arguments", "[deploy][shell]") {
  // vLLM's test scripts: a function starts each server from its arguments; the helper it
  // calls first must not end the reading of the caller.
  const std::string script =
      "#!/bin/bash\n"
      "wait_for_server() {\n"
      "  local port=$1\n"
      "  timeout 60 bash -c \"until curl -s localhost:${port}/health; do sleep 1; done\"\n"
      "}\n"
      "\n"
      "start() {\n"
      "  local model=$1\n"
      "  local role=$2\n"
      "  vllm serve $model --kv-transfer-config \"{\\\"kv_connector\\\":\\\"NixlConnector\\\","
      "\\\"kv_role\\\":\\\"$role\\\"}\" &\n"
      "  wait_for_server 8000\n"
      "  echo started\n"
      "}\n"
      "\n"
      "start Qwen/Qwen3-8B kv_producer\n"
      "start Qwen/Qwen3-8B kv_consumer\n";
  Read r = read_texts({{"pd.sh", script}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 2);
  for (const Service& s : r.deployment.services) {
    CHECK(s.model == "Qwen/Qwen3-8B");
    CHECK(s.pos.line == 10);  // the line in the function's body
  }
  CHECK(setting(r.deployment.services[0], "role")->value == "kv_producer");
  CHECK(setting(r.deployment.services[1], "role")->value == "kv_consumer");
}

TEST_CASE("shell: a function no command calls is read once, its arguments unknown",
          "[deploy][shell]") {
  Read r = read_texts({{"run.sh",
                        "serve() {\n"
                        "  vllm serve $1 --enable-prefix-caching\n"
                        "}\n"}});
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  CHECK(s.model.empty());  // $1: set when the script runs
  CHECK(setting(s, "prefix_caching")->value == "true");
}

TEST_CASE("shell: eval reads its string as commands and local sets variables", "[deploy][shell]") {
  const std::string script =
      "f() {\n"
      "  local gpu=0\n"
      "  BASE_CMD=\"CUDA_VISIBLE_DEVICES=$gpu vllm serve Qwen/Qwen3-8B \\\n"
      "    --enable-prefix-caching\"\n"
      "  eval \"$BASE_CMD &\"\n"
      "}\n"
      "f\n";
  Read r = read_texts({{"run.sh", script}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  CHECK(s.model == "Qwen/Qwen3-8B");
  CHECK(setting(s, "prefix_caching")->value == "true");
  CHECK(s.pos.line == 5);  // words from a string are placed at the eval
  CHECK(!r.unread("local", 2));
}

TEST_CASE("shell: an array's elements are no command", "[deploy][shell]") {
  // vLLM's Mooncake connector example checks its files exist: the proxy in the array is
  // no router (it would be, with the setting of the proxy it names); nor is a command
  // kept in an array for later a service where it is kept.
  const std::string script =
      "check_required_files() {\n"
      "    local files=(\"disagg_proxy_demo.py\" 'b (c).py')\n"
      "    for file in \"${files[@]}\"; do [[ -f \"$file\" ]] || exit 1; done\n"
      "}\n"
      "PIDS=()\n"
      "SERVE=(\n  vllm serve Qwen/Qwen3-32B\n)\n"
      "check_required_files\n"
      "vllm serve Qwen/Qwen3-8B --enable-prefix-caching &\n";
  Read r = read_texts({{"run.sh", script}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.names() == std::vector<std::string>{"run.sh:10"});
  CHECK(r.deployment.services.front().model == "Qwen/Qwen3-8B");
}

TEST_CASE("shell: a JSON flag whose value the script makes when it runs is unknown, not bad",
          "[deploy][shell]") {
  Read r = read_texts({{"run.sh",
                        "KV=$(cat kv.json)\n"
                        "vllm serve Qwen/Qwen3-8B --kv-transfer-config \"$KV\"\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(r.unread("--kv-transfer-config $(cat kv.json)", 2));
}

TEST_CASE("shell: a bool flag declared to take a value reads the next word", "[deploy][shell]") {
  Read r = read_texts({{"run.sh",
                        "trtllm-serve Qwen/Qwen3-8B --use_paged_context_fmha disable\n"
                        "trtllm-serve Qwen/Qwen3-8B --use_paged_context_fmha maybe\n"
                        "vllm serve --switch-only-fmha Qwen/Qwen3-8B\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 3);
  CHECK(setting(r.deployment.services[0], "paged_context_fmha")->value == "disable");
  CHECK(r.deployment.services[0].model == "Qwen/Qwen3-8B");
  // Not a bool: said so, and never the model or a switch meaning true.
  CHECK(setting(r.deployment.services[1], "paged_context_fmha") == nullptr);
  CHECK(r.unread("--use_paged_context_fmha maybe", 2));
  CHECK(r.deployment.services[1].model == "Qwen/Qwen3-8B");
  // A switch declared to take no value: the word after it is the model.
  CHECK(setting(r.deployment.services[2], "paged_context_fmha")->value == "true");
  CHECK(r.deployment.services[2].model == "Qwen/Qwen3-8B");
}

TEST_CASE("shell: bash -c -- reads the script after the end of options", "[deploy][shell]") {
  // KubeRay's head containers: command [/bin/bash, -lc, --], args [SCRIPT].
  Read r = read_texts({{"run.sh",
                        "bash -lc -- \"ulimit -n 65536; $RAY_START_CMD; vllm serve m "
                        "--tensor-parallel-size 16\"\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(r.deployment.services[0].model == "m");
  CHECK(setting(r.deployment.services[0], "tensor_parallel_size")->value == "16");
}

TEST_CASE("shell: a gotcha with two causes advises per cause", "[deploy][shell][fixes]") {
  auto advice = [](const std::string& script) {
    Read r = read_texts({{"run.sh", script}});
    REQUIRE(r.diags.empty());
    CheckReport report = check_read(r);
    REQUIRE(finding_ids(report) == std::vector<std::string>{"gotchas/trtllm-two-causes"});
    std::vector<std::string> out;
    for (const FixAdvice& a : report.findings[0].fixes) out.push_back(a.advice);
    return out;
  };
  // Never "upgrade" alone: the upgrade fixes one cause, the other has no fix.
  CHECK(advice("pip install tensorrt-llm==1.0.0\n"
               "trtllm-serve m --use_paged_context_fmha disable\n") ==
        std::vector<std::string>{
            "the builder default: upgrade tensorrt-llm from 1.0.0 to 1.1.0 or later (fixed there)",
            "the scheduler: no fixed release of tensorrt-llm yet"});
  // On 1.1.0 the first cause is gone: only the unfixed one is advised.
  CHECK(advice("pip install tensorrt-llm==1.1.0\n"
               "trtllm-serve m --use_paged_context_fmha disable\n") ==
        std::vector<std::string>{"the scheduler: no fixed release of tensorrt-llm yet"});
}

TEST_CASE("shell: a clause over the whole deployment sees the other services",
          "[deploy][shell][predicate]") {
  auto hits = [](const std::string& prefill_flags) {
    Read r = read_texts({{"run.sh", "trtllm-serve m --server_role CONTEXT" + prefill_flags +
                                        " &\n"
                                        "trtllm-serve m --server_role GENERATION &\n"}});
    REQUIRE(r.diags.empty());
    CheckReport report = check_read(r);
    std::vector<std::string> services;
    for (const Finding& f : report.findings) {
      if (f.id == "gotchas/trtllm-decode-after-fmha-off-prefill") services.push_back(f.service);
    }
    return std::make_pair(services, report);
  };
  auto [on_decode, report] = hits(" --use_paged_context_fmha disable");
  // Found on the decode service, because some other service (the prefill) has it off.
  CHECK(on_decode == std::vector<std::string>{"run.sh:2"});
  const Finding& f = *std::find_if(report.findings.begin(), report.findings.end(), [](auto& x) {
    return x.id == "gotchas/trtllm-decode-after-fmha-off-prefill";
  });
  CHECK(std::find(f.why.begin(), f.why.end(),
                  "service 'run.sh:1' has (all of (role prefill; config paged_context_fmha = "
                  "false))") != f.why.end());
  // The prefill says nothing: no service has it off, no finding.
  CHECK(hits("").first.empty());
}

TEST_CASE("shell: weights no record matches take their traits from the served name",
          "[deploy][shell][model]") {
  Read r = read_texts({{"run.sh",
                        "vllm serve /data/ckpt --served-model-name deepseek-ai/DeepSeek-R1 &\n"
                        "vllm serve /data/other --served-model-name my-alias &\n"}});
  REQUIRE(r.diags.empty());
  CheckReport report = check_read(r);
  const Service& named = report.deployment.services[0];
  CHECK(named.model == "/data/ckpt");  // the weights stay what the file says
  const Setting* attention = setting(named, "attention");
  REQUIRE(attention);
  CHECK(attention->value == "mla");
  CHECK(attention->via == "served model name deepseek-ai/DeepSeek-R1 (models/deepseek-v3)");
  CHECK(attention->pos.line == 1);
  // An alias no record matches gives nothing.
  CHECK(setting(report.deployment.services[1], "attention") == nullptr);
}
