// The Kubernetes reader: workloads, LeaderWorkerSets, Dynamo graphs, ConfigMaps, labels.

#include <filesystem>

#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;

TEST_CASE("kubernetes: llm-d P/D from helm template output", "[deploy][kubernetes]") {
  Read r = read_files({"llm-d-pd.yaml"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() == std::vector<std::string>{"ms-pd-prefill", "ms-pd-decode"});
  const Service& p = r.service("ms-pd-prefill");
  CHECK(p.file == "llm-d-pd.yaml");
  CHECK(p.pos.line == 36);
  CHECK(p.model == "Qwen/Qwen3-8B");
  CHECK(p.model_pos.line == 40);
  // vllm from `vllm serve`, its version from the llm-d image's release bundle.
  const DeployedEngine* vllm = engine(p, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.10.0");
  CHECK(vllm->pos.line == 38);
  CHECK(vllm->version_pos.line == 37);
  CHECK(vllm->via ==
        "command vllm serve; version from image ghcr.io/llm-d/llm-d:v0.2.0 (llm-d 0.2.0 ships vllm "
        "0.10.0)");
  const DeployedEngine* llmd = engine(p, "engines/llm-d");
  REQUIRE(llmd);
  CHECK(llmd->version == "0.2.0");
  // The label says prefill; kv_role kv_both loses to it and is listed as not understood.
  const Setting* role = setting(p, "role");
  REQUIRE(role);
  CHECK(role->value == "prefill");
  CHECK(role->via == "label llm-d.ai/role");
  CHECK(role->pos.line == 33);
  CHECK(r.unread("--kv-transfer-config kv_role = kv_both", 44));
  CHECK(r.unread("--kv-transfer-config kv_role = kv_both", 90));
  const Setting* connector = setting(p, "kv_connector");
  REQUIRE(connector);
  CHECK(connector->value == "NixlConnector");
  CHECK(connector->pos.line == 44);
  // A pod field: set, with a value only known at run time.
  const Setting* host = setting(p, "nixl_side_channel_host");
  REQUIRE(host);
  CHECK(host->runtime);
  CHECK(host->via == "env VLLM_NIXL_SIDE_CHANNEL_HOST (fieldRef status.podIP)");
  // configMapKeyRef resolved from the ConfigMap of the same input, at its line.
  const Setting* bi = setting(p, "batch_invariant");
  REQUIRE(bi);
  CHECK(bi->value == "1");
  CHECK(bi->pos.line == 8);
  CHECK(bi->via == "env VLLM_BATCH_INVARIANT (configMap vllm-env)");
  CHECK(setting(p, "tensor_parallel_size")->value == "1");
  CHECK(r.unread("--block-size=128", 42));
  CHECK(r.unread("env HF_TOKEN (secret llm-d-hf-token)", 55));

  const Service& d = r.service("ms-pd-decode");
  CHECK(setting(d, "role")->value == "decode");
  // envFrom configMapRef brings every key of the ConfigMap.
  CHECK(setting(d, "batch_invariant")->pos.line == 8);
  CHECK(r.unread("env VLLM_LOGGING_LEVEL (configMap vllm-env)", 9));
  CHECK(setting(d, "tensor_parallel_size")->value == "2");
  REQUIRE(setting(d, "port"));
  CHECK(setting(d, "port")->value == "8200");
  CHECK(setting(d, "port")->pos.line == 86);
  // The routing sidecar is an init container that starts no engine: not a service.
  CHECK(r.deployment.services.size() == 2);
}

TEST_CASE("kubernetes: llm-d findings name the lines that made them true", "[deploy][kubernetes]") {
  Read r = read_files({"llm-d-pd.yaml"});
  CheckReport report = check_read(r);
  CHECK(count_severity(report.diagnostics, Severity::error) == 0);
  CHECK(finding_ids(report) ==
        std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold",
                                 "gotchas/nixl-side-channel-host-localhost",
                                 "gotchas/pd-batch-invariant-absent-from-kv-namespace"});
  // The decode pod does not set the side-channel host: vLLM's default, localhost.
  const Finding& host = report.findings[1];
  CHECK(host.service == "ms-pd-decode");
  CHECK_FALSE(host.possible);
  const Finding& bi = report.findings[2];
  CHECK(bi.service == "ms-pd-prefill");
  REQUIRE(bi.locations.size() == 2);
  CHECK(bi.locations[0].pos.line == 8);
  CHECK(bi.locations[1].pos.line == 33);
}

TEST_CASE("kubernetes: a pod field makes a value test unknown", "[deploy][kubernetes]") {
  Read r = read_texts({{"pod.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.26.0
      args: ["--model", "Qwen/Qwen3-8B", "--kv-transfer-config", '{"kv_connector":"NixlConnector"}']
      env:
        - name: VLLM_NIXL_SIDE_CHANNEL_HOST
          valueFrom: {fieldRef: {fieldPath: status.podIP}}
)"}});
  REQUIRE(r.diags.empty());
  CheckReport report = check_read(r);
  std::vector<std::string> ids = finding_ids(report);
  REQUIRE(std::find(ids.begin(), ids.end(), "gotchas/nixl-side-channel-host-localhost") !=
          ids.end());
  for (const auto& f : report.findings) {
    if (f.id == "gotchas/nixl-side-channel-host-localhost") {
      CHECK(f.possible);
      CHECK(std::find(
                f.why.begin(), f.why.end(),
                "nixl_side_channel_host is set when the service starts, to a value not in the "
                "input (env VLLM_NIXL_SIDE_CHANNEL_HOST (fieldRef status.podIP))") != f.why.end());
    }
  }
}

TEST_CASE("kubernetes: LeaderWorkerSet leader and worker, sh -c in a block scalar",
          "[deploy][kubernetes]") {
  Read r = read_files({"lws-sglang.yaml"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() == std::vector<std::string>{"decode/leader", "decode/worker"});
  const Service& leader = r.service("decode/leader");
  const DeployedEngine* sglang = engine(leader, "engines/sglang");
  REQUIRE(sglang);
  CHECK(sglang->version == "0.5.18");  // lmsysorg/sglang:v0.5.18-cu128
  CHECK(sglang->pos.line == 20);       // `exec python3 -m sglang.launch_server` inside `|`
  CHECK(leader.model == "deepseek-ai/DeepSeek-V3");
  CHECK(setting(leader, "tensor_parallel_size")->value == "16");
  CHECK(setting(leader, "tensor_parallel_size")->pos.line == 21);
  CHECK(setting(leader, "role")->value == "decode");  // the LeaderWorkerSet's label
  CHECK(setting(leader, "role")->pos.line == 7);
  const Service& worker = r.service("decode/worker");
  CHECK(setting(worker, "role")->value == "decode");
  CHECK(r.unread("--node-rank 1", 29));
}

TEST_CASE("kubernetes: Dynamo v1alpha1 graph", "[deploy][kubernetes][dynamo]") {
  Read r = read_files({"dynamo-disagg.yaml"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() ==
          std::vector<std::string>{"Frontend", "VllmDecodeWorker", "VllmPrefillWorker"});
  const Service& front = r.service("Frontend");
  CHECK(setting(front, "role")->value == "frontend");
  CHECK(setting(front, "role")->via == "componentType");
  // A router does not run the engines its image merely ships.
  REQUIRE(front.engines.size() == 1);
  CHECK(front.engines[0].id == "engines/nvidia-dynamo");
  CHECK(front.engines[0].version == "1.3.0");
  const Service& prefill = r.service("VllmPrefillWorker");
  CHECK(setting(prefill, "role")->value == "prefill");
  CHECK(setting(prefill, "role")->pos.line == 37);
  const DeployedEngine* dynamo = engine(prefill, "engines/nvidia-dynamo");
  REQUIRE(dynamo);
  CHECK(dynamo->via ==
        "command python3 -m dynamo.vllm; version from image "
        "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0");
  const DeployedEngine* vllm = engine(prefill, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.26.0");  // Dynamo 1.3.0's release bundles vllm 0.26.0
  CHECK(vllm->pos.line == 44);
  CHECK(engine(prefill, "engines/nixl")->version == "1.3.1");
  CHECK(prefill.model == "Qwen/Qwen3-0.6B");
  CHECK(r.unread("componentType: worker", 36));
  CHECK(r.unread("envFromSecret hf-token-secret", 35));

  CheckReport report = check_read(r);
  REQUIRE(finding_ids(report) == std::vector<std::string>{"gotchas/apc-warm-hit-differs-from-cold",
                                                          "gotchas/dynamo-prefill-worker"});
  CHECK(report.findings[0].service == "VllmDecodeWorker");
  const Finding& f = report.findings[1];
  CHECK(f.service == "VllmPrefillWorker");
  CHECK(f.why ==
        std::vector<std::string>{
            "engine nvidia-dynamo 1.3.0 (command python3 -m dynamo.vllm; version from "
            "image nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0)",
            "engine vllm 0.26.0 in >=0.20 (image nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0 "
            "(NVIDIA Dynamo 1.3.0 ships vllm 0.26.0))",
            "service 'VllmPrefillWorker' has role prefill (subComponentType)",
            "prefix_caching = true on VllmPrefillWorker (the default of vllm 0.26.0)"});
}

TEST_CASE("kubernetes: which roles skip their image's shipped engines is the role record's",
          "[deploy][kubernetes][dynamo]") {
  // The deploy records, with the router's `runs_shipped_engines: false` dropped: the
  // Dynamo frontend then runs the vLLM its vllm-runtime image ships, like any service.
  const std::string root = deploy_path("records");
  std::vector<FileResult> files;
  bool edited = false;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".yaml") continue;
    const std::string rel = std::filesystem::relative(e.path(), root).generic_string();
    std::string text = slurp_file(e.path().string());
    if (rel == "settings/role.yaml") {
      const std::string router = "[proxy, frontend, gateway], runs_shipped_engines: false}";
      const auto at = text.find(router);
      REQUIRE(at != std::string::npos);
      text.replace(at, router.size(), "[proxy, frontend, gateway]}");
      edited = true;
    }
    files.push_back(load_record_text(rel, text));
  }
  REQUIRE(edited);
  auto corpus = Corpus::from_files("records", std::move(files));
  REQUIRE(count_severity(corpus->diagnostics(), Severity::error) == 0);
  const EvidenceIndex evidence = EvidenceIndex::build(*corpus);
  const CheckIndex index = CheckIndex::build(*corpus, evidence);
  std::vector<Diagnostic> diags;
  const Deployment d = index.read(
      {{"dynamo-disagg.yaml", slurp_file(deploy_path("dynamo-disagg.yaml"))}}, {}, diags);
  const auto front = std::find_if(d.services.begin(), d.services.end(),
                                  [](const Service& s) { return s.name == "Frontend"; });
  REQUIRE(front != d.services.end());
  CHECK(engine(*front, "engines/nvidia-dynamo"));
  CHECK(engine(*front, "engines/vllm"));
  // The shipped records' router does not: the v1alpha1 graph test above.
  CHECK_FALSE(engine(read_files({"dynamo-disagg.yaml"}).service("Frontend"), "engines/vllm"));
}

TEST_CASE("kubernetes: Dynamo v1beta1 components, the worker flag beats kv_role",
          "[deploy][kubernetes][dynamo]") {
  Read r = read_files({"dynamo-v1beta1-disagg.yaml"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() == std::vector<std::string>{"Frontend", "VllmPrefillWorker"});
  const Service& p = r.service("VllmPrefillWorker");
  CHECK(setting(p, "role")->value == "prefill");
  CHECK(setting(p, "kv_connector")->value == "NixlConnector");
  CHECK(setting(p, "gpu_count")->value == "1");  // a resource name a record spells
  CHECK(r.unread("--kv-transfer-config kv_role = kv_both", 26));
}

TEST_CASE("kubernetes: a GPU container with an image no record knows fails closed",
          "[deploy][kubernetes]") {
  const std::string manifest = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: custom}
spec:
  template:
    spec:
      containers:
        - name: server
          image: registry.example.com/llm/server:2.0
          resources: {limits: {nvidia.com/gpu: "8"}}
        - name: metrics
          image: prom/node-exporter:v1.8.0
)";
  Read r = read_texts({{"custom.yaml", manifest}});
  REQUIRE(r.codes() == std::vector<std::string>{"deploy.unidentified-engine"});
  CHECK(r.diags[0].severity == Severity::error);
  CHECK(r.diags[0].line == 9);
  CHECK(r.diags[0].message ==
        "'custom/server' runs an engine kb cannot identify (image "
        "registry.example.com/llm/server:2.0): "
        "it requests nvidia.com/gpu");
  CHECK(r.unread("'custom/metrics' (image prom/node-exporter:v1.8.0)", 11));
  Read soft = read_texts({{"custom.yaml", manifest}}, {"", true});
  // Allowed, the unidentified service is left out, and nothing else runs an engine.
  REQUIRE(soft.codes() ==
          std::vector<std::string>{"deploy.unidentified-engine", "deploy.no-engine"});
  CHECK(soft.diags[0].severity == Severity::warning);
  CHECK(soft.diags[1].severity == Severity::warning);
}

TEST_CASE("kubernetes: syntax errors keep their line in multi-document files",
          "[deploy][kubernetes]") {
  Read r = read_texts(
      {{"bad.yaml", "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Pod\nspec: [\n"}});
  REQUIRE_FALSE(r.diags.empty());
  CHECK(r.diags[0].code == "yaml.syntax");
  CHECK(r.diags[0].line >= 6);
  CHECK(r.deployment.services.empty());
}

TEST_CASE("kubernetes: unknown resources are searched for pod specs", "[deploy][kubernetes]") {
  Read r = read_texts({{"crd.yaml", R"(apiVersion: example.com/v1
kind: InferencePool
metadata: {name: pool}
spec:
  prefill:
    template:
      metadata: {labels: {llm-d.ai/role: prefill}}
      spec:
        containers:
          - name: vllm
            image: vllm/vllm-openai:v0.28.0
)"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  CHECK(s.name == "pool");
  CHECK(engine(s, "engines/vllm")->version == "0.28.0");
  CHECK(setting(s, "role")->value == "prefill");
}

TEST_CASE("kubernetes: a workload's name gives the role when its connector says both",
          "[deploy][kubernetes]") {
  auto deployment = [](const std::string& name, const std::string& role) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
           "\nspec:\n  template:\n    spec:\n      containers:\n        - name: vllm\n"
           "          image: vllm/vllm-openai:v0.10.0\n"
           "          command: [vllm, serve, Qwen/Qwen3-8B]\n"
           "          args: [--kv-transfer-config, '{\"kv_connector\":\"NixlConnector\","
           "\"kv_role\":\"" +
           role + "\"}']\n---\n";
  };
  Read r = read_texts(
      {{"pd.yaml", deployment("llama-decode", "kv_both") + deployment("prefill", "kv_both") +
                       deployment("prefill-decode", "kv_both") +
                       deployment("vllm-decoder", "kv_producer")}});
  REQUIRE(r.diags.empty());
  const Setting* decode = setting(r.service("llama-decode"), "role");
  REQUIRE(decode);
  CHECK(decode->value == "decode");
  CHECK(decode->via == "name llama-decode");
  CHECK(decode->pos.line == 4);
  // kv_both is the connector's mode, listed as not understood with what the name says.
  CHECK(r.unread("--kv-transfer-config kv_role = kv_both", 12));
  CHECK(setting(r.service("prefill"), "role")->value == "prefill");
  // A name with words of two roles says nothing.
  CHECK(setting(r.service("prefill-decode"), "role")->value == "kv_both");
  // What the service says (kv_producer) is stronger than its name.
  CHECK(setting(r.service("vllm-decoder"), "role")->value == "kv_producer");
}
