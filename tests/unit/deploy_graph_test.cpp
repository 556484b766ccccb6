// Launchers (entry points with `wraps:`), serving graphs among files read together,
// settings derived from them (`derive:`), hardware from a platform's labels and
// resources, and plugins an image only ships. Each is data in the fixture records
// (tests/data/deploy/records): the launchers and the GPU label are made up, so nothing
// here passes because the code knows a name.

#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;

namespace {

const Service& resolved(const CheckReport& report, const std::string& name) {
  auto it = std::find_if(report.deployment.services.begin(), report.deployment.services.end(),
                         [&](const Service& s) { return s.name == name; });
  INFO("service " << name);
  REQUIRE(it != report.deployment.services.end());
  return *it;
}

// A P/D pair in one file: a prefill and a decode vLLM with one connector.
std::string pd_pair(const std::string& model, const std::string& connector = "NixlConnector") {
  return "vllm serve " + model + " --kv-transfer-config '{\"kv_connector\":\"" + connector +
         "\",\"kv_role\":\"kv_producer\"}'\n" + "vllm serve " + model +
         " --kv-transfer-config '{\"kv_connector\":\"" + connector +
         "\",\"kv_role\":\"kv_consumer\"}'\n";
}

}  // namespace

TEST_CASE("launcher: the command behind a launcher's options is what is read",
          "[deploy][launcher]") {
  // `--mystery x` is an option the record does not list: the engine's entry point after it
  // is still found, and `x` is not taken for the program.
  Read r =
      read_texts({{"run.sh",
                   "#!/bin/bash\n"
                   "zzrun -n 4 --mystery x vllm serve Qwen/Qwen3-8B --enable-prefix-caching\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  const DeployedEngine* vllm = engine(s, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->via == "command vllm serve (launched by zzrun)");
  CHECK(vllm->pos.line == 2);
  CHECK(vllm->pos.column == 24);
  CHECK(s.model == "Qwen/Qwen3-8B");
  REQUIRE(setting(s, "prefix_caching"));
  CHECK(setting(s, "prefix_caching")->value == "true");
  CHECK(!engine(s, "engines/zz-launchers"));  // a launcher is not what runs
}

TEST_CASE("launcher: a python launcher runs what `python` would, and launchers nest",
          "[deploy][launcher]") {
  Read r = read_texts(
      {{"run.sh",
        "#!/bin/bash\n"
        "zzrun --ntasks 2 zztorch --nproc-per-node 2 -m vllm.entrypoints.openai.api_server "
        "--model Qwen/Qwen3-8B\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  const DeployedEngine* vllm = engine(s, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->via ==
        "command python -m vllm.entrypoints.openai.api_server (launched by zzrun, zztorch)");
  CHECK(s.model == "Qwen/Qwen3-8B");
}

TEST_CASE("launcher: an engine's own launcher runs it when the command behind names none",
          "[deploy][launcher]") {
  Read r = read_texts({{"run.sh", "#!/bin/bash\nzzlaunch python3 serve.py --port 8000\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 1);
  const DeployedEngine* trt = engine(r.deployment.services.front(), "engines/tensorrt-llm");
  REQUIRE(trt);
  CHECK(trt->via == "command zzlaunch (runs tensorrt-llm)");
}

TEST_CASE("launcher: with nothing behind its options, a launcher alone runs no engine",
          "[deploy][launcher]") {
  Read r = read_texts({{"run.sh", "#!/bin/bash\nzzrun -n 4 --enable-prefix-caching\n"}});
  CHECK(r.deployment.services.empty());
  const std::vector<std::string> codes = r.codes();
  CHECK(std::count(codes.begin(), codes.end(), "deploy.unidentified-engine") == 1);
}

TEST_CASE("a script's client passing only a model, a port or its servers is no service",
          "[deploy][shell]") {
  // SGLang's benchmark/hicache/bench_multiturn.py beside the server it loads, and a proxy
  // of one's own naming its servers as vLLM's example proxy does (LMCache's
  // disagg_proxy_server.py --prefiller-port).
  Read r = read_texts({{"run.sh",
                        "#!/bin/bash\n"
                        "vllm serve Qwen/Qwen3-8B --port 33301 &\n"
                        "python3 bench_multiturn.py --model Qwen/Qwen3-8B --port 33301\n"
                        "python3 other.py --port 33301 --enable-prefix-caching\n"
                        "python3 my_proxy.py --port 9000 --prefill-ports 33301\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  const std::vector<std::string> codes = r.codes();
  // The third passes a flag only engines take: an engine kb cannot identify.
  CHECK(std::count(codes.begin(), codes.end(), "deploy.unidentified-engine") == 1);
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(r.deployment.services.front().pos.line == 2);
}

TEST_CASE("graphs: two whole P/D deployments read together pair only within each",
          "[deploy][graph]") {
  Read r = read_texts({{"a.sh", pd_pair("Qwen/Qwen3-8B")}, {"b.sh", pd_pair("Qwen/Qwen3-8B")}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  const CheckReport report = check_read(r);
  std::vector<std::string> graphs;
  for (const Service& s : report.deployment.services) graphs.push_back(s.file + ":" + s.group);
  CHECK(graphs == std::vector<std::string>{"a.sh:1", "a.sh:1", "b.sh:2", "b.sh:2"});
}

TEST_CASE("graphs: a prefill-only and a decode-only file serving one model are one graph",
          "[deploy][graph]") {
  const std::string pd = pd_pair("Qwen/Qwen3-8B");
  const std::string prefill = pd.substr(0, pd.find('\n') + 1);
  const std::string decode = pd.substr(pd.find('\n') + 1);
  const CheckReport report =
      check_read(read_texts({{"prefill.sh", prefill}, {"decode.sh", decode}}));
  REQUIRE(report.deployment.services.size() == 2);
  for (const Service& s : report.deployment.services) {
    CHECK(s.group.empty());  // one graph: no number to tell apart
    const Setting* kv = s.find("kv_transfer");
    REQUIRE(kv);
    CHECK(kv->value == "pd");
    CHECK(kv->derived);
  }
  // Halves serving different models stay apart, and derive nothing.
  const std::string other = pd_pair("Qwen/Qwen3-0.6B");
  const CheckReport apart = check_read(
      read_texts({{"prefill.sh", prefill}, {"decode.sh", other.substr(other.find('\n') + 1)}}));
  REQUIRE(apart.deployment.services.size() == 2);
  CHECK(apart.deployment.services[0].group != apart.deployment.services[1].group);
  for (const Service& s : apart.deployment.services) CHECK(!s.find("kv_transfer"));
}

TEST_CASE("derive: a prefill and a decode that share a connector are P/D, with where it came from",
          "[deploy][graph]") {
  const CheckReport report = check_read(read_texts({{"pd.sh", pd_pair("Qwen/Qwen3-8B")}}));
  REQUIRE(report.deployment.services.size() == 2);
  const Setting* kv = report.deployment.services[0].find("kv_transfer");
  REQUIRE(kv);
  CHECK(kv->value == "pd");
  CHECK(kv->via ==
        "derived: prefill 'pd.sh:1' and decode 'pd.sh:2' (sharing kv_connector nixl) "
        "(settings/kv-transfer)");
  // Sides that disagree on the shared key are not one P/D pair.
  std::string mixed = pd_pair("Qwen/Qwen3-8B");
  mixed.replace(mixed.rfind("NixlConnector"), 13, "MooncakeConnector");
  const CheckReport split = check_read(read_texts({{"pd.sh", mixed}}));
  for (const Service& s : split.deployment.services) CHECK(!s.find("kv_transfer"));
}

TEST_CASE("hardware: a node label and a resource a record spells are the service's GPU",
          "[deploy][hardware]") {
  const char* manifest = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector:
        zz.example.com/gpu.product: ZZGPU-H100-80GB-HBM3
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.26.0
          command: ["vllm", "serve", "Qwen/Qwen3-8B"]
          resources:
            limits:
              zz.example.com/gpu: "2"
)";
  const CheckReport report = check_read(read_texts({{"k.yaml", manifest}}));
  const Service& s = resolved(report, "vllm");
  const Setting* gpu = s.find("gpu");
  REQUIRE(gpu);
  CHECK(gpu->value == "h100");  // the pattern `ZZGPU-H100*`
  CHECK(gpu->pos.line == 8);
  REQUIRE(s.find("gpu_count"));
  CHECK(s.find("gpu_count")->value == "2");
}

TEST_CASE("plugin: an image that only ships a plugin does not run it until a setting enables it",
          "[deploy][plugin]") {
  const char* base = R"(services:
  vllm:
    image: lmcache/vllm-openai:v0.3.9
    command: ["vllm", "serve", "Qwen/Qwen3-8B" EXTRA]
)";
  auto with = [&](const std::string& extra) {
    std::string text = base;
    text.replace(text.find("EXTRA"), 5, extra);
    return check_read(read_texts({{"compose.yaml", text}}));
  };
  const CheckReport plain = with("");
  REQUIRE(plain.deployment.services.size() == 1);
  CHECK(engine(plain.deployment.services[0], "engines/vllm"));
  CHECK(!engine(plain.deployment.services[0], "engines/lmcache"));
  const CheckReport enabled = with(
      R"(, "--kv-transfer-config", "{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}")");
  REQUIRE(enabled.deployment.services.size() == 1);
  const DeployedEngine* lmcache = engine(enabled.deployment.services[0], "engines/lmcache");
  REQUIRE(lmcache);
  CHECK(lmcache->version == "0.3.9");  // the image tag's, kept once the connector enables it
  // A connector set at run time may be LMCache: the plugin keeps running (unknown, not off).
  const CheckReport runtime =
      with(R"(, "--kv-transfer-config", "{\"kv_connector\":\"$CONNECTOR\"}")");
  REQUIRE(runtime.deployment.services.size() == 1);
  CHECK(engine(runtime.deployment.services[0], "engines/lmcache"));
}

TEST_CASE("entry point: a Python script by its file name, with the settings it implies",
          "[deploy][launcher]") {
  Read r = read_texts(
      {{"run.sh", "#!/bin/bash\npython3 tools/zz_proxy.py --port 9000 --prefill http://p:8000\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  REQUIRE(engine(s, "engines/zz-proxies"));
  CHECK(engine(s, "engines/zz-proxies")->via == "command python3 zz_proxy.py");
  REQUIRE(setting(s, "role"));
  CHECK(setting(s, "role")->value == "router");
  const Setting* proxy = setting(s, "pd_proxy");
  REQUIRE(proxy);
  CHECK(proxy->value == "zz-proxy");
  CHECK(proxy->pos.line == 2);
}

TEST_CASE("traffic: a setting of the requests, unstated, makes a finding possible",
          "[deploy][traffic]") {
  const CheckReport report =
      check_read(read_texts({{"run.sh", "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 7\n"}}));
  auto it = std::find_if(report.findings.begin(), report.findings.end(),
                         [](const auto& f) { return f.id == "gotchas/zz-traffic-logprobs"; });
  REQUIRE(it != report.findings.end());
  CHECK(it->possible);
  // Stated false by the deployment, it is false.
  const CheckReport stated = check_read(read_texts(
      {{"d.yaml",
        "engines: [{name: vllm}]\nconfig: {tensor_parallel_size: 7, prompt_logprobs: false}\n"}}));
  CHECK(std::none_of(stated.findings.begin(), stated.findings.end(),
                     [](const auto& f) { return f.id == "gotchas/zz-traffic-logprobs"; }));
}

TEST_CASE("model: a trait of a model the deployment does not name is unknown, not false",
          "[deploy][model]") {
  auto verdict = [](const std::string& script) -> std::string {
    const CheckReport report = check_read(read_texts({{"run.sh", script}}));
    for (const auto& f : report.findings) {
      if (f.id == "gotchas/zz-model-trait") return f.possible ? "possible" : "hit";
    }
    return "not";
  };
  // Set at run time: any model, so possibly two KV heads.
  CHECK(verdict("vllm serve $MODEL --tensor-parallel-size 5\n") == "possible");
  // Named, and its record says eight.
  CHECK(verdict("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 5\n") == "not");
  // Named, and no record matches: its traits are unknown, so possibly two KV heads.
  CHECK(verdict("vllm serve example/unknown-7b --tensor-parallel-size 5\n") == "possible");
  // Named, matched, but its record does not state the number of KV heads.
  CHECK(verdict("vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 5\n") == "possible");
  // A bare directory name and a final slash match the record's `*/NAME*` glob.
  CHECK(verdict("vllm serve Qwen3.5-35B-A3B --tensor-parallel-size 5\n") == "hit");
  CHECK(verdict("vllm serve /models/Qwen3.5-35B-A3B/ --tensor-parallel-size 5\n") == "hit");
}

TEST_CASE("model: the reason of an unknown trait says what would decide it", "[deploy][model]") {
  auto why = [](const std::string& script) -> std::string {
    const CheckReport report = check_read(read_texts({{"run.sh", script}}));
    for (const auto& f : report.findings) {
      if (f.id != "gotchas/zz-model-trait") continue;
      for (const auto& w : f.why) {
        if (w.starts_with("num_kv_heads")) return w;
      }
    }
    return "";
  };
  const std::string unmatched = why("vllm serve example/unknown-7b --tensor-parallel-size 5\n");
  CHECK_THAT(unmatched, Catch::Matchers::Contains("example/unknown-7b, which no model record"));
  CHECK_THAT(unmatched, Catch::Matchers::Contains("--set num_kv_heads=VALUE"));
  const std::string unstated = why("vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 5\n");
  CHECK_THAT(unstated, Catch::Matchers::Contains("that models/deepseek-v3 does not state"));
  // The service says which record its traits come from.
  Read r = read_texts({{"run.sh", "vllm serve Qwen/Qwen3-8B\n"}});
  const CheckReport report = check_read(std::move(r));
  REQUIRE(report.deployment.services.size() == 1);
  CHECK(report.deployment.services.front().model_record == "models/qwen3");
}

TEST_CASE("cluster agents: a container that only joins a cluster is no service",
          "[deploy][launcher]") {
  // The worker's script runs only the agent (through a variable the platform sets): it
  // serves nothing, although its image ships vLLM. The head serves.
  const std::string manifest =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: fleet}\nspec:\n  template:\n"
      "    spec:\n      containers:\n"
      "        - name: head\n          image: vllm/vllm-openai:v0.26.0\n"
      "          command: [bash, -lc, --]\n"
      "          args: [\"$ZZ_GEN_JOIN_CMD; vllm serve Qwen/Qwen3-8B\"]\n"
      "        - name: worker\n          image: vllm/vllm-openai:v0.26.0\n"
      "          command: [bash, -lc, --]\n"
      "          args: [\"ulimit -n 65536; echo worker; $ZZ_GEN_JOIN_CMD;\"]\n"
      "        - name: agent\n          image: vllm/vllm-openai:v0.26.0\n"
      "          command: [zzcluster, join, --address, head:6379]\n";
  Read r = read_texts({{"fleet.yaml", manifest}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(r.deployment.services.front().model == "Qwen/Qwen3-8B");
  CHECK(r.unread("'fleet/worker' (command $ZZ_GEN_JOIN_CMD)", 12));
  CHECK(r.unread("'fleet/agent' (command zzcluster join)", 16));
  // Only agents: no service runs an engine, and the check fails closed.
  Read only = read_texts({{"w.yaml",
                           "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n"
                           "  containers:\n    - name: worker\n"
                           "      image: vllm/vllm-openai:v0.26.0\n"
                           "      command: [zzcluster, join]\n"}});
  CHECK(only.deployment.services.empty());
  // A script that also runs a program kb cannot read may serve through it: the container
  // is what its image is, never dropped.
  Read unread_program =
      read_texts({{"w.yaml",
                   "apiVersion: v1\nkind: Pod\nmetadata: {name: w}\nspec:\n"
                   "  containers:\n    - name: worker\n"
                   "      image: vllm/vllm-openai:v0.26.0\n"
                   "      command: [bash, -lc, --]\n"
                   "      args: [\"ulimit -n 65536; $ZZ_GEN_JOIN_CMD; /app/start.sh\"]\n"}});
  REQUIRE(unread_program.deployment.services.size() == 1);
  CHECK(engine(unread_program.deployment.services.front(), "engines/vllm"));
}

TEST_CASE("image entry point: a first word that is no flag is the model", "[deploy][model]") {
  Read r = read_texts(
      {{"run.sh", "docker run --gpus all vllm/vllm-openai:v0.26.0 Qwen/Qwen3-8B --port 8000\n"}});
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(r.deployment.services.front().model == "Qwen/Qwen3-8B");
}

TEST_CASE("json parts: each item of a list spelled FIELD[] is a whole value of the flag",
          "[deploy][json]") {
  // vLLM's MultiConnector: the service's connector is `multi`; each child's connector brings
  // the engine it runs. A child's own kv_role is weaker than the flag's.
  Read r = read_texts(
      {{"run.sh",
        "vllm serve Qwen/Qwen3-8B --kv-transfer-config '{\"kv_connector\":\"MultiConnector\","
        "\"kv_role\":\"kv_producer\",\"kv_connector_extra_config\":{\"connectors\":["
        "{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"},"
        "{\"kv_connector\":\"LMCacheConnectorV1\",\"zz_field\":1},"
        "{\"kv_connector\":\"ZzConnector\"},\"not-an-object\"]}}'\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  REQUIRE(setting(s, "kv_connector"));
  CHECK(setting(s, "kv_connector")->value == "MultiConnector");
  CHECK(setting(s, "role")->value == "kv_producer");
  const DeployedEngine* nixl = engine(s, "engines/nixl");
  REQUIRE(nixl);
  CHECK(nixl->via ==
        "--kv-transfer-config kv_connector_extra_config.connectors[0].kv_connector = "
        "NixlConnector");
  CHECK(nixl->pos.line == 1);
  REQUIRE(engine(s, "engines/lmcache"));
  CHECK(!engine(s, "engines/mooncake"));
  CHECK(r.unread("--kv-transfer-config kv_connector_extra_config.connectors[1].zz_field=1", 1));
  CHECK(r.unread(
      "--kv-transfer-config kv_connector_extra_config.connectors[2].kv_connector=ZzConnector", 1));
  CHECK(r.unread("--kv-transfer-config kv_connector_extra_config.connectors[3]", 1));
  CHECK(r.unread("--kv-transfer-config kv_connector_extra_config.connectors[0].kv_role = kv_both",
                 1));

  // Checked, the service runs NIXL and LMCache and its role is the flag's.
  CheckReport report = check_read(std::move(r));
  const Service& c = resolved(report, "run.sh:1");
  CHECK(c.role == "prefill");
  CHECK(std::any_of(c.engines.begin(), c.engines.end(),
                    [](const DeployedEngine& e) { return e.id == "engines/nixl"; }));
}

TEST_CASE("json parts: a list no record spells FIELD[] stays unread", "[deploy][json]") {
  Read r = read_texts({{"run.sh",
                        "vllm serve Qwen/Qwen3-8B --kv-transfer-config "
                        "'{\"kv_connector\":\"NixlConnector\",\"zz_list\":[{\"kv_connector\":"
                        "\"LMCacheConnectorV1\"}]}'\n"}});
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(!engine(r.deployment.services.front(), "engines/lmcache"));
  CHECK(r.unread("--kv-transfer-config zz_list", 1));
}

TEST_CASE("shell functions: a helper from a sourced file sets the variable its record names",
          "[deploy][shell]") {
  const std::string script =
      "#!/bin/bash\n"
      "source \"$SCRIPT_DIR/utils.sh\"\n"
      "zz_pick_module zz.other vllm.entrypoints.openai.api_server \"$@\"\n"
      "python3 -m \"$ZZ_MODULE\" --model Qwen/Qwen3-8B --enable-prefix-caching &\n";
  Read r = read_texts({{"run.sh", script}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  REQUIRE(engine(s, "engines/vllm"));
  CHECK(engine(s, "engines/vllm")->pos.line == 4);
  CHECK(s.model == "Qwen/Qwen3-8B");

  // A function no record declares sets nothing: the module is unknown, and kb says so.
  std::string other = script;
  other.replace(other.find("zz_pick_module"), 14, "zz_undeclared_");
  Read u = read_texts({{"run.sh", other}});
  CHECK(count_severity(u.diags, Severity::error) == 1);
}

TEST_CASE("graphs: a file of helpers only joins the one graph that serves", "[deploy][graph]") {
  // A cache server given in its own file (an operator's resource, a master's script)
  // serves the servers beside it: one graph, so a clause on "some service of the
  // deployment" sees it.
  const CheckReport one = check_read(read_texts(
      {{"pd.sh", pd_pair("Qwen/Qwen3-8B")}, {"master.sh", "mooncake_master --port 50001\n"}}));
  REQUIRE(one.deployment.services.size() == 3);
  for (const Service& s : one.deployment.services) CHECK(s.group.empty());
  // Beside two serving graphs it is neither's: it stays apart.
  const CheckReport two = check_read(read_texts({{"a.sh", pd_pair("Qwen/Qwen3-8B")},
                                                 {"b.sh", pd_pair("Qwen/Qwen3-8B")},
                                                 {"master.sh", "mooncake_master\n"}}));
  REQUIRE(two.deployment.services.size() == 5);
  CHECK(resolved(two, "master.sh:1").group == "3");
}

TEST_CASE("json parts: a test of a connector sees a MultiConnector's children", "[deploy][json]") {
  // NIXL as a MultiConnector's child is a NIXL connector: the NIXL gotcha applies; with
  // only an LMCache child it does not.
  auto findings = [](const std::string& child) {
    Read r = read_texts({{"run.sh",
                          "VLLM_NIXL_SIDE_CHANNEL_HOST=localhost vllm serve Qwen/Qwen3-8B "
                          "--kv-transfer-config '{\"kv_connector\":\"MultiConnector\","
                          "\"kv_connector_extra_config\":{\"connectors\":[{\"kv_connector\":\"" +
                              child + "\"}]}}'\n"}});
    REQUIRE(r.deployment.services.size() == 1);
    const Setting* kv = setting(r.deployment.services.front(), "kv_connector");
    REQUIRE(kv);
    CHECK(kv->parts.size() == 1);
    std::vector<std::string> ids;
    for (const auto& f : check_read(r).findings) ids.push_back(f.id);
    return ids;
  };
  const auto with_nixl = findings("NixlConnector");
  CHECK(std::count(with_nixl.begin(), with_nixl.end(),
                   "gotchas/nixl-side-channel-host-localhost") == 1);
  const auto with_lmcache = findings("LMCacheConnectorV1");
  CHECK(std::count(with_lmcache.begin(), with_lmcache.end(),
                   "gotchas/nixl-side-channel-host-localhost") == 0);
}

TEST_CASE("a router's server ports give kv_both services their side", "[deploy][roles]") {
  const std::string script =
      "#!/bin/bash\n"
      "NIXL='{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n"
      "vllm serve Qwen/Qwen3-8B --port 8100 --kv-transfer-config \"$NIXL\" &\n"
      "vllm serve Qwen/Qwen3-8B --port 8101 --kv-transfer-config \"$NIXL\" &\n"
      "vllm serve Qwen/Qwen3-8B --port 8200 --kv-transfer-config \"$NIXL\" &\n"
      "vllm serve Qwen/Qwen3-8B --port 8300 --kv-transfer-config \"$NIXL\" &\n"
      "vllm serve Qwen/Qwen3-8B --port 8400 --kv-transfer-config "
      "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}' &\n"
      "vllm serve Qwen/Qwen3-8B --port $PORT --kv-transfer-config \"$NIXL\" &\n"
      "python3 zz_proxy.py --port 9000 --prefill-ports 8100 8101 8300 "
      "--decode-ports 8200 8300 8400 $PORT\n";
  Read r = read_texts({{"run.sh", script}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 7);
  auto role_at = [&](int line) -> std::string {
    for (const Service& s : r.deployment.services) {
      if (s.pos.line != line) continue;
      const Setting* role = setting(s, "role");
      return role ? (role->runtime ? "(run time)" : role->value) : "";
    }
    return "(none)";
  };
  CHECK(role_at(3) == "prefill");
  CHECK(role_at(4) == "prefill");
  CHECK(role_at(5) == "decode");
  CHECK(role_at(6) == "kv_both");      // named for both sides: none
  CHECK(role_at(7) == "kv_producer");  // what the service says is stronger
  CHECK(role_at(8) == "kv_both");      // a port set at run time names nothing
  CHECK(role_at(9) == "router");       // the router's own port is no server of its
  // Where the side comes from, and the connector mode it replaces, said.
  const Setting* side = nullptr;
  for (const Service& s : r.deployment.services)
    if (s.pos.line == 5) side = setting(s, "role");
  REQUIRE(side);
  CHECK(side->pos.line == 9);
  CHECK(side->via.find("--decode-ports 8200") == 0);
  CHECK(std::any_of(r.deployment.not_understood.begin(), r.deployment.not_understood.end(),
                    [](const Unread& u) {
                      return u.pos.line == 5 &&
                             u.why.find("names port 8200 as a decode server") != std::string::npos;
                    }));
  // A server of another file on a named port is not the router's.
  Read two = read_texts(
      {{"servers.sh",
        "#!/bin/bash\nvllm serve Qwen/Qwen3-8B --port 8100 --kv-transfer-config "
        "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n"},
       {"proxy.sh", "#!/bin/bash\npython3 zz_proxy.py --prefill-url http://localhost:8100/v1\n"}});
  REQUIRE(two.deployment.services.size() == 2);
  CHECK(setting(two.deployment.services[0], "role")->value == "kv_both");
  // ... but one of its own file, named by URL, is.
  Read url = read_texts({{"run.sh",
                          "#!/bin/bash\nvllm serve Qwen/Qwen3-8B --port 8100 --kv-transfer-config "
                          "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}' &\n"
                          "python3 zz_proxy.py --prefill-url http://localhost:08100/v1\n"}});
  REQUIRE(url.deployment.services.size() == 2);
  CHECK(setting(url.deployment.services[0], "role")->value == "prefill");
}
