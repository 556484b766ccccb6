// Platform resources an engine record declares (`resources:`), and config files a
// service names (a setting's `file_of`): both are data in the fixture records, so these
// tests use a made-up platform kind the code has never heard of.

#include <sstream>

#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;

namespace {

const char* kPool = R"(apiVersion: zz.example.com/v1
kind: ZzPool
metadata:
  name: pool
spec:
  model:
    name: Qwen/Qwen3-8B
  template:
    containers:
      - name: main
        env:
          - name: ZZ_ARGS
            value: "--tensor-parallel-size 2 --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_consumer\"}'"
      - name: sidecar
        image: example.com/proxy:1.0
  prefill:
    template:
      containers:
        - name: main
          env:
            - name: ZZ_ARGS
              value: "--tensor-parallel-size 4"
)";

}  // namespace

TEST_CASE("platform: a pool's fields the record lists are settings of its pods alone",
          "[deploy][platform]") {
  // KServe's spec.kvCacheOffloading / spec.prefill.kvCacheOffloading, made up: the
  // prefill pool offloads, the main pool does not; a field no record spells is said.
  std::string pool(kPool);
  pool.replace(pool.find("  prefill:\n"), 11,
               "  prefill:\n    offload:\n      cpu: 10Gi\n      policy: lru\n");
  Read r = read_texts({{"pool.yaml", pool}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.names() == std::vector<std::string>{"pool/main", "pool/prefill"});
  const Setting* offload = setting(r.service("pool/prefill"), "kv_connector");
  REQUIRE(offload);
  CHECK(offload->value == "lmcache");
  CHECK(offload->pos.line == 18);
  CHECK(offload->via == "ZzPool spec.prefill offload.cpu");
  CHECK(setting(r.service("pool/main"), "kv_connector")->value == "NixlConnector");
  CHECK(r.unread("ZzPool spec.prefill offload.policy: lru", 19));
  // In the main pool, and off: nothing set.
  pool = kPool;
  pool.replace(pool.find("  prefill:\n"), 11, "  offload:\n    cpu: false\n  prefill:\n");
  Read off = read_texts({{"pool.yaml", pool}});
  REQUIRE(off.names() == std::vector<std::string>{"pool/main", "pool/prefill"});
  CHECK(setting(off.service("pool/main"), "kv_connector")->value == "NixlConnector");
  CHECK_FALSE(setting(off.service("pool/prefill"), "kv_connector"));
}

TEST_CASE("platform: a declared resource's pods run its engines, with roles by where they stand",
          "[deploy][platform]") {
  Read r = read_texts({{"pool.yaml", kPool}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.names() == std::vector<std::string>{"pool/main", "pool/prefill"});
  const Service& decode = r.service("pool/main");
  const DeployedEngine* vllm = engine(decode, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->via == "ZzPool runs vllm (engines/zz-platform)");
  CHECK(vllm->pos.line == 10);
  CHECK(decode.model == "Qwen/Qwen3-8B");
  CHECK(decode.model_pos.line == 7);
  // The arguments in ZZ_ARGS are the engine's flags, at their place in the file.
  REQUIRE(setting(decode, "tensor_parallel_size"));
  CHECK(setting(decode, "tensor_parallel_size")->value == "2");
  CHECK(setting(decode, "tensor_parallel_size")->pos.line == 13);
  CHECK(setting(decode, "kv_connector")->value == "NixlConnector");
  // With spec.prefill beside it, the main pool decodes; the record says so, and it wins
  // over nothing here but would over a flag.
  REQUIRE(setting(decode, "role"));
  CHECK(setting(decode, "role")->value == "decode");
  CHECK(setting(decode, "role")->via == "ZzPool spec (engines/zz-platform)");
  const Service& prefill = r.service("pool/prefill");
  CHECK(setting(prefill, "role")->value == "prefill");
  CHECK(setting(prefill, "tensor_parallel_size")->value == "4");
  CHECK(prefill.model == "Qwen/Qwen3-8B");
  // The sidecar is not the container the platform runs the engine in.
  CHECK(r.unread("'pool/sidecar' (image example.com/proxy:1.0)", 14));
}

TEST_CASE("platform: without what the role rule's `when` names, a pool is monolithic",
          "[deploy][platform]") {
  std::string one(kPool);
  one = one.substr(0, one.find("  prefill:"));
  Read r = read_texts({{"pool.yaml", one}});
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.names() == std::vector<std::string>{"pool/main"});
  // No role fact: the service keeps the default, and kv_role says kv_consumer.
  const Setting* role = setting(r.service("pool/main"), "role");
  REQUIRE(role);
  CHECK(role->value == "kv_consumer");
}

TEST_CASE("platform: the kind must be in the declared group", "[deploy][platform]") {
  std::string other(kPool);
  other.replace(other.find("zz.example.com"), 14, "example.org");
  Read r = read_texts({{"pool.yaml", other}});
  // Read as any resource holding pod specs: its main container names no engine.
  CHECK(r.deployment.services.empty());
  const auto codes = r.codes();
  CHECK(std::find(codes.begin(), codes.end(), "deploy.no-engine") != codes.end());
}

TEST_CASE("platform: a list item's field names its pods' role", "[deploy][platform]") {
  const char* storm = R"(apiVersion: zz.example.com/v1
kind: ZzStorm
metadata:
  name: storm
spec:
  roles:
    - name: gen
      template:
        spec:
          containers:
            - name: decode
              image: vllm/vllm-openai:v0.10.0
              command: ["vllm", "serve", "m"]
    - name: routing
      template:
        spec:
          containers:
            - name: router
              image: vllm/vllm-openai:v0.10.0
              command: ["vllm", "serve", "m"]
)";
  Read r = read_texts({{"storm.yaml", storm}});
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.names() == std::vector<std::string>{"storm/gen", "storm/routing"});
  const Setting* role = setting(r.service("storm/gen"), "role");
  REQUIRE(role);
  CHECK(role->value == "gen");  // a synonym of decode in settings/role
  CHECK(role->pos.line == 7);
  CHECK(role->via == "ZzStorm spec.roles[].name");
  // `routing` is no role the fixture records know: said, and no role is set from it.
  CHECK(setting(r.service("storm/routing"), "role") == nullptr);
  CHECK(r.unread("name: routing", 14));
}

namespace {

const char* kLauncher = R"SH(#!/bin/bash
DIR="$(dirname "$0")"
LMCACHE_CONFIG_FILE=$DIR/configs/prefiller.yaml \
  vllm serve Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer"}'
)SH";

const char* kConfig = R"(local_cpu: False
pd_role: "sender"
chunk_size: 256
)";

}  // namespace

TEST_CASE("config files: a file a service names joins it, weaker than what it says",
          "[deploy][config-file]") {
  Read r = read_texts({{"launch.sh", kLauncher}, {"ex/configs/prefiller.yaml", kConfig}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  // One service: the config file is not a deployment of its own.
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  // pd_role is read as LMCache's role key, and loses to the command line's kv_role.
  const Setting* role = setting(s, "role");
  REQUIRE(role);
  CHECK(role->value == "kv_consumer");
  CHECK(r.unread("config file pd_role = sender", 2));
  // Keys no record spells are said, at their line in the config file.
  CHECK(std::any_of(r.deployment.not_understood.begin(), r.deployment.not_understood.end(),
                    [](const Unread& u) {
                      return u.file == "ex/configs/prefiller.yaml" && u.pos.line == 3 &&
                             u.why == "no settings record spells this key";
                    }));
}

TEST_CASE("config files: a key of the file sets what the command line leaves unset",
          "[deploy][config-file]") {
  std::string launcher(kLauncher);
  launcher.replace(launcher.find(R"(,"kv_role":"kv_consumer")"), 24, "");
  Read r = read_texts({{"launch.sh", launcher}, {"configs/prefiller.yaml", kConfig}});
  REQUIRE(r.deployment.services.size() == 1);
  const Setting* role = setting(r.deployment.services.front(), "role");
  REQUIRE(role);
  CHECK(role->value == "sender");
  CHECK(role->file == "configs/prefiller.yaml");
  CHECK(role->pos.line == 2);
}

TEST_CASE("config files: a switch with a fixed value sets it when on, nothing when off",
          "[deploy][config-file]") {
  // LMCache before the P/D rename: enable_nixl: True is transfer channel nixl (whose
  // record says it runs the NIXL library in the vLLM process).
  auto channel = [](const std::string& config, const std::string& env) {
    std::string launcher(kLauncher);
    launcher.insert(launcher.find("LMCACHE_CONFIG_FILE"), env);
    return read_texts({{"launch.sh", launcher}, {"configs/prefiller.yaml", config}});
  };
  Read on = channel("enable_nixl: True\n", "");
  REQUIRE(on.deployment.services.size() == 1);
  const Service& s = on.deployment.services.front();
  REQUIRE(setting(s, "lmcache_transfer_channel"));
  CHECK(setting(s, "lmcache_transfer_channel")->value == "nixl");
  CHECK(setting(s, "lmcache_transfer_channel")->file == "configs/prefiller.yaml");
  for (const char* off : {"enable_nixl: False\n", "enable_nixl: 0\n", "enable_nixl:\n"}) {
    Read r = channel(off, "");
    REQUIRE(r.deployment.services.size() == 1);
    CHECK_FALSE(setting(r.deployment.services.front(), "lmcache_transfer_channel"));
  }
  // The same for an environment variable spelled with a fixed value.
  Read env_off = channel("chunk_size: 256\n", "LMCACHE_ENABLE_NIXL=False \\\n");
  REQUIRE(env_off.deployment.services.size() == 1);
  CHECK_FALSE(setting(env_off.deployment.services.front(), "lmcache_transfer_channel"));
  Read env_on = channel("chunk_size: 256\n", "LMCACHE_ENABLE_NIXL=1 \\\n");
  REQUIRE(env_on.deployment.services.size() == 1);
  REQUIRE(setting(env_on.deployment.services.front(), "lmcache_transfer_channel"));
  CHECK(setting(env_on.deployment.services.front(), "lmcache_transfer_channel")->value == "nixl");
}

TEST_CASE("config files: a named file not given, or given twice, is said, never guessed",
          "[deploy][config-file]") {
  Read alone = read_texts({{"launch.sh", kLauncher}});
  CHECK(count_severity(alone.diags, Severity::error) == 0);
  CHECK(alone.unread("env LMCACHE_CONFIG_FILE $(dirname \"$0\")/configs/prefiller.yaml", 3));

  // Two inputs end the same way: neither is joined, and each is then read as what it is
  // (not a deployment kb reads): the check cannot pass.
  Read two = read_texts({{"launch.sh", kLauncher},
                         {"a/configs/prefiller.yaml", kConfig},
                         {"b/configs/prefiller.yaml", kConfig}});
  CHECK(two.unread("env LMCACHE_CONFIG_FILE $(dirname \"$0\")/configs/prefiller.yaml", 3));
  CHECK(count_severity(two.diags, Severity::error) > 0);
}

TEST_CASE("config files: a file of an engine the service does not run is not joined",
          "[deploy][config-file]") {
  std::string launcher(kLauncher);
  launcher.replace(launcher.find("LMCacheConnectorV1"), 18, "NixlConnector");
  Read r = read_texts({{"launch.sh", launcher}, {"configs/prefiller.yaml", kConfig}});
  CHECK(r.unread("env LMCACHE_CONFIG_FILE $(dirname \"$0\")/configs/prefiller.yaml", 3));
  CHECK(setting(r.deployment.services.front(), "role")->value == "kv_consumer");
}

namespace {

// LMCache's k8s P/D example: each side's config file comes from a mounted ConfigMap, so
// the path is only known when the container runs.
const char* kRuntimeLauncher = R"SH(#!/bin/bash
configfile=$(ls /etc/lmcache-config/*.yaml)
LMCACHE_CONFIG_FILE=${configfile} vllm serve Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_producer"}' &
LMCACHE_CONFIG_FILE=${configfile} vllm serve Qwen/Qwen3-8B \
  --kv-transfer-config '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_consumer"}' &
)SH";

const char* kSenderConfig = "local_cpu: False\nnixl_role: \"sender\"\n";
const char* kReceiverConfig = "local_cpu: True\nnixl_role: \"receiver\"\n";

}  // namespace

TEST_CASE("config files: a path set at run time takes the one given file its keys fit",
          "[deploy][config-file]") {
  Read r = read_texts({{"launch.sh", kRuntimeLauncher},
                       {"k8s/lmcache-decoder-config.yaml", kReceiverConfig},
                       {"k8s/lmcache-prefiller-config.yaml", kSenderConfig}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 2);
  // Each file goes to the side its role key names, said by a note on the file.
  const Service& prefill = r.deployment.services[0];
  const Service& decode = r.deployment.services[1];
  REQUIRE(setting(prefill, "lmcache_local_cpu"));
  CHECK(setting(prefill, "lmcache_local_cpu")->file == "k8s/lmcache-prefiller-config.yaml");
  REQUIRE(setting(decode, "lmcache_local_cpu"));
  CHECK(setting(decode, "lmcache_local_cpu")->file == "k8s/lmcache-decoder-config.yaml");
  std::size_t notes = 0;
  for (const auto& d : r.diags) {
    if (d.code != "deploy.config-file-by-content") continue;
    ++notes;
    CHECK(d.severity == Severity::note);
    CHECK(d.message.find("set at run time") != std::string::npos);
  }
  CHECK(notes == 2);
}

TEST_CASE("config files: two given files that fit one service join neither",
          "[deploy][config-file]") {
  // Both files say `sender`: kb does not choose which one the prefill side reads, so
  // neither is joined and each is then no deployment kb reads: the check fails closed.
  Read r = read_texts(
      {{"launch.sh", kRuntimeLauncher}, {"a.yaml", kSenderConfig}, {"b.yaml", kSenderConfig}});
  CHECK(count_severity(r.diags, Severity::error) > 0);
  const auto codes = r.codes();
  CHECK(std::count(codes.begin(), codes.end(), "deploy.config-file-by-content") == 0);
  CHECK(r.unread("env LMCACHE_CONFIG_FILE $(ls /etc/lmcache-config/*.yaml)", 3));
  // A file of keys no engine spells is not taken for a config file either.
  Read other = read_texts({{"launch.sh", kRuntimeLauncher}, {"x.yaml", "colour: blue\n"}});
  CHECK(count_severity(other.diags, Severity::error) > 0);
}

TEST_CASE("config files: a file given under another name than the path is joined with a warning",
          "[deploy][config-file]") {
  // The launcher names $DIR/configs/prefiller.yaml, for a decode side (kv_consumer); the
  // given file says no role. (kConfig's `pd_role: sender` would not fit that side.)
  std::string launcher(kLauncher);
  Read r = read_texts(
      {{"launch.sh", launcher}, {"prod/lmcache.yaml", "local_cpu: False\nchunk_size: 256\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  auto it = std::find_if(r.diags.begin(), r.diags.end(), [](const Diagnostic& d) {
    return d.code == "deploy.config-file-by-content";
  });
  REQUIRE(it != r.diags.end());
  CHECK(it->severity == Severity::warning);
  CHECK(it->file == "prod/lmcache.yaml");
  CHECK(it->message.find("not among the inputs") != std::string::npos);
  CHECK(setting(r.deployment.services.front(), "lmcache_local_cpu"));
  // A file whose role key names the other side is not that service's: not joined.
  Read wrong = read_texts({{"launch.sh", launcher}, {"prod/lmcache.yaml", kConfig}});
  CHECK(count_severity(wrong.diags, Severity::error) > 0);
  CHECK_FALSE(setting(wrong.deployment.services.front(), "lmcache_local_cpu"));
}

TEST_CASE("installed packages run only where the role runs what it is given",
          "[deploy][packages]") {
  // `pip install vllm` early in a script reaches every command after it, but a cache
  // server (a role with runs_shipped_engines: false) runs only what its command names.
  Read r = read_texts({{"bench.sh",
                        "#!/bin/bash\npip install vllm==0.10.0\n"
                        "mooncake_master 0.0.0.0 --port 50001 &\n"
                        "vllm serve Qwen/Qwen3-8B &\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 2);
  const Service& master = r.deployment.services[0];
  const Service& server = r.deployment.services[1];
  CHECK(engine(master, "engines/mooncake"));
  CHECK_FALSE(engine(master, "engines/vllm"));
  CHECK(master.model.empty());  // a cache server loads no model: 0.0.0.0 is none
  REQUIRE(engine(server, "engines/vllm"));
  CHECK(engine(server, "engines/vllm")->version == "0.10.0");
}

TEST_CASE("a word a variable made is placed where the variable is used", "[deploy][shell]") {
  // Two containers with the same MODEL value: each service's model points into its own
  // script, not at the first place the value's text appears further on.
  const char* two = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: a}
spec:
  template:
    spec:
      containers:
      - name: c
        image: vllm/vllm-openai:v0.10.0
        env: [{name: MODEL, value: "Qwen/Qwen3-8B"}]
        command: ["/bin/bash", "-c"]
        args:
        - |
          vllm serve $MODEL --port 1
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: b}
spec:
  template:
    spec:
      containers:
      - name: c
        image: vllm/vllm-openai:v0.10.0
        env: [{name: MODEL, value: "Qwen/Qwen3-8B"}]
        command: ["/bin/bash", "-c"]
        args:
        - |
          vllm serve $MODEL --port 2
)";
  Read r = read_texts({{"two.yaml", two}});
  REQUIRE(r.deployment.services.size() == 2);
  CHECK(r.service("a").model == "Qwen/Qwen3-8B");
  CHECK(r.service("a").model_pos.line == 14);
  CHECK(r.service("b").model_pos.line == 29);
}

TEST_CASE("config files: a named file that is not a mapping of keys fails the check",
          "[deploy][config-file]") {
  Read r = read_texts({{"launch.sh", kLauncher}, {"configs/prefiller.yaml", "- a\n- b\n"}});
  const auto codes = r.codes();
  CHECK(std::find(codes.begin(), codes.end(), "deploy.bad-config-file") != codes.end());
  CHECK(count_severity(r.diags, Severity::error) > 0);
}

namespace {

const char* kValues = R"(zzEngines:
  list:
    - name: a
      repository: vllm/vllm-openai
      tag: v0.10.0
      modelURL: Qwen/Qwen3-8B
      replicaCount: 2
      engineConfig:
        enablePrefixCaching: true
        extraArgs: ["--tensor-parallel-size", "2"]
      cache:
        enabled: true
        kvRole: kv_producer
        zzNotSpelled: 7
      env:
        - name: VLLM_BATCH_INVARIANT
          value: "1"
    - name: b
      repository: example.com/custom
      tag: latest
      modelURL: m2
      cache:
        enabled: false
zzRouter:
  replicaCount: 1
)";

}  // namespace

TEST_CASE("chart values: each item a service, its fields the chart's spellings",
          "[deploy][values]") {
  Read r = read_texts({{"values.yaml", kValues}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.names() == std::vector<std::string>{"a", "b", "zzRouter"});
  const Service& a = r.service("a");
  const DeployedEngine* vllm = engine(a, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.10.0");
  CHECK(vllm->pos.line == 4);
  CHECK(a.model == "Qwen/Qwen3-8B");
  CHECK(a.model_pos.line == 6);
  REQUIRE(setting(a, "prefix_caching"));
  CHECK(setting(a, "prefix_caching")->value == "true");
  CHECK(setting(a, "prefix_caching")->via == "values engineConfig.enablePrefixCaching");
  CHECK(setting(a, "prefix_caching")->pos.line == 9);
  // A switch: `enabled: true` sets the value the record gives.
  CHECK(setting(a, "kv_connector")->value == "lmcache");
  CHECK(setting(a, "role")->value == "kv_producer");
  CHECK(setting(a, "tensor_parallel_size")->value == "2");
  CHECK(setting(a, "tensor_parallel_size")->pos.line == 10);
  CHECK(setting(a, "batch_invariant")->value == "1");
  // Fields no record spells are not settings, and are not listed either; except under a
  // path the chart says holds only engine settings (its `settings`).
  CHECK_FALSE(r.unread("values replicaCount: 2", 7));
  CHECK(r.unread("values cache.zzNotSpelled: 7", 14));

  const Service& b = r.service("b");
  // An image no record knows: the chart's engine, version unknown.
  const DeployedEngine* implied = engine(b, "engines/vllm");
  REQUIRE(implied);
  CHECK(implied->version.empty());
  CHECK(implied->via == "values zzEngines.list (engines/zz-platform)");
  // A switch set to false leaves the setting unset.
  CHECK(setting(b, "kv_connector") == nullptr);

  const Setting* role = setting(r.service("zzRouter"), "role");
  REQUIRE(role);
  CHECK(role->value == "router");
}

TEST_CASE("chart values: a file without a declared values key is not read as one",
          "[deploy][values]") {
  Read r = read_texts({{"values.yaml", "otherSpec:\n  list: []\n"}});
  const auto codes = r.codes();
  CHECK(std::find(codes.begin(), codes.end(), "deploy.unknown-kind") != codes.end());
}

TEST_CASE("platform: sibling pod templates copying many labels stop at the inputs' budget",
          "[deploy][platform]") {
  // 400 labels on the resource's template, 400 nested templates under it: each would copy
  // them all, 160k facts from a file of 30 KB.
  std::string doc =
      "apiVersion: zz.example.com/v1\nkind: ZzStorm\nmetadata: {name: s}\n"
      "spec:\n  template:\n    metadata:\n      labels:\n";
  for (int i = 0; i < 400; ++i) doc += "        l" + std::to_string(i) + ": v\n";
  doc += "    spec:\n      roles:\n";
  for (int i = 0; i < 400; ++i) {
    doc += "        - {name: r" + std::to_string(i) + ", template: {metadata: {}, spec: {x: 1}}}\n";
  }
  Read r = read_texts({{"storm.yaml", doc}});
  const auto codes = r.codes();
  CHECK(std::find(codes.begin(), codes.end(), "limits.expansion") != codes.end());
}

TEST_CASE("platform: a rule's path may hold one container instead of a pod spec",
          "[deploy][platform]") {
  // AIBrix's KVCache: `spec.cache` is an image with resources; the metadata store beside it
  // is no rule's path and runs nothing kb reads.
  Read r = read_texts({{"cache.yaml", R"(apiVersion: zz.example.com/v1
kind: ZzCache
metadata:
  name: kv
spec:
  metadata:
    redis:
      image: redis:7.4.2
  cache:
    replicas: 1
    image: ghcr.io/llm-d/llm-d:v0.2.0
    args: [--kv-transfer-config, '{"kv_connector":"NixlConnector"}']
)"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() == std::vector<std::string>{"kv/cache"});
  const Service& s = r.service("kv/cache");
  CHECK(s.pos.line == 10);
  const Setting* role = setting(s, "role");
  REQUIRE(role);
  CHECK(role->value == "cache-server");
  CHECK(role->via == "ZzCache spec.cache (engines/zz-platform)");
  REQUIRE(engine(s, "engines/llm-d"));
  CHECK(setting(s, "kv_connector")->value == "NixlConnector");
}

namespace {

// llm-d's tiered-prefix-cache guide patches its aggregated `decode` Deployment with
// kustomize: no image and no command (the base gives both), and `env:` twice.
const char* kPatch = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: decode
spec:
  template:
    spec:
      containers:
        - name: modelserver
          args:
            - "Qwen/Qwen3-8B"
            - "--kv-transfer-config"
            - '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'
          env:
            - {name: HF_TOKEN, value: x}
          env:
            - {name: VLLM_BATCH_INVARIANT, value: "1"}
)";

}  // namespace

TEST_CASE("a manifest's repeated key is a warning, and the later value is read", "[deploy][yaml]") {
  Read r = read_texts({{"patch.yaml", kPatch}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  auto dup = std::find_if(r.diags.begin(), r.diags.end(),
                          [](const Diagnostic& d) { return d.code == "yaml.duplicate-key"; });
  REQUIRE(dup != r.diags.end());
  CHECK(dup->severity == Severity::warning);
  CHECK(dup->line == 16);
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  // kubectl's YAML-to-JSON conversion keeps the later `env:`: so does kb.
  const Setting* bi = setting(r.deployment.services.front(), "batch_invariant");
  REQUIRE(bi);
  CHECK(bi->pos.line == 17);
}

TEST_CASE("a container with only arguments is the engine whose own flags it passes",
          "[deploy][kubernetes]") {
  Read r = read_texts({{"patch.yaml", kPatch}});
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  const DeployedEngine* vllm = engine(s, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version.empty());
  CHECK(vllm->via.find("--kv-transfer-config") != std::string::npos);
  CHECK(s.model == "Qwen/Qwen3-8B");  // the image's entry point takes the model first
  // With an image kb does not know, flags decide nothing: the image may run anything.
  std::string with_image(kPatch);
  with_image.replace(with_image.find("          args:"), 0,
                     "          image: example.com/custom:1\n");
  Read unknown = read_texts({{"patch.yaml", with_image}});
  const auto codes = unknown.codes();
  CHECK(std::count(codes.begin(), codes.end(), "deploy.unidentified-engine") == 1);
}

TEST_CASE("a side only a name gives stands only beside the other side", "[deploy][roles]") {
  // Alone, llm-d's `decode` Deployment (kv_both) is a monolithic server.
  Read alone = read_texts({{"patch.yaml", kPatch}});
  REQUIRE(alone.deployment.services.size() == 1);
  CHECK(setting(alone.deployment.services.front(), "role") == nullptr);
  CHECK(std::any_of(alone.deployment.not_understood.begin(), alone.deployment.not_understood.end(),
                    [](const Unread& u) {
                      return u.why.find("no prefill service is given") != std::string::npos;
                    }));
  // Beside a `prefill` Deployment, the names are the sides (vLLM's NIXL P/D).
  std::string prefill(kPatch);
  prefill.replace(prefill.find("name: decode"), 12, "name: prefill");
  Read pair = read_texts({{"decode.yaml", kPatch}, {"prefill.yaml", prefill}});
  REQUIRE(pair.deployment.services.size() == 2);
  CHECK(setting(pair.service("decode"), "role")->value == "decode");
  CHECK(setting(pair.service("prefill"), "role")->value == "prefill");
}

TEST_CASE("a JSON-valued flag set at run time leaves its fields unknown, not at their default",
          "[deploy][json]") {
  Read r =
      read_texts({{"run.sh",
                   "#!/bin/bash\n"
                   "vllm serve Qwen/Qwen3-8B --kv-transfer-config \"$(cat /etc/kv.json)\"\n"}});
  REQUIRE(r.deployment.services.size() == 1);
  const Setting* kv = setting(r.deployment.services.front(), "kv_connector");
  REQUIRE(kv);
  CHECK(kv->runtime);
  CHECK(kv->via == "--kv-transfer-config kv_connector");
  // The side is not guessed from it: no role is set.
  CHECK(setting(r.deployment.services.front(), "role") == nullptr);
}

TEST_CASE("JSON a script builds around a variable: the fields beside it are read",
          "[deploy][json]") {
  // vLLM's pd_spec_decode_eagle3_test.sh: a number left bare, a string quoted.
  Read r = read_texts(
      {{"run.sh",
        "#!/bin/bash\n"
        "kv=\"{\\\"kv_connector\\\":\\\"NixlConnector\\\",\\\"kv_role\\\":\\\"${ROLE}\\\","
        "\\\"kv_buffer_size\\\":${CFG_SIZE[$name]},\\\"n\\\":$((1 + 2))}\"\n"
        "vllm serve Qwen/Qwen3-8B --kv-transfer-config \"$kv\"\n"
        "vllm serve Qwen/Qwen3-8B --port 9 "
        "--kv-transfer-config '{\"kv_connector\":${CONN},\"kv_role\":\"kv_both\"}'\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 2);
  const Service& a = r.deployment.services[0];
  REQUIRE(setting(a, "kv_connector"));
  CHECK(setting(a, "kv_connector")->value == "NixlConnector");
  CHECK_FALSE(setting(a, "kv_connector")->runtime);
  // The bare variable is the value, set at run time; the field beside it is read.
  const Service& b = r.deployment.services[1];
  REQUIRE(setting(b, "kv_connector"));
  CHECK(setting(b, "kv_connector")->runtime);
  REQUIRE(setting(b, "role"));
  CHECK(setting(b, "role")->value == "kv_both");
  CHECK(count_severity(r.diags, Severity::error) == 0);
}

TEST_CASE("sh -c SCRIPT NAME ARG...: the script's \"$@\" is the arguments", "[deploy][shell]") {
  const char* pod = R"(apiVersion: v1
kind: Pod
metadata: {name: worker}
spec:
  containers:
    - name: main
      image:
        repository: vllm/vllm-openai
        tag: v0.10.0
      command:
        - /bin/sh
        - -c
        - exec vllm serve "$@" --enable-prefix-caching
        - --
      args:
        - Qwen/Qwen3-8B
        - --kv-transfer-config
        - '{"kv_connector":"NixlConnector","kv_role":"kv_producer"}'
)";
  Read r = read_texts({{"pod.yaml", pod}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services.front();
  CHECK(s.model == "Qwen/Qwen3-8B");
  REQUIRE(setting(s, "role"));
  CHECK(setting(s, "role")->value == "kv_producer");
  // The script's own words stay where the script is.
  REQUIRE(setting(s, "prefix_caching"));
  CHECK(setting(s, "prefix_caching")->pos.line == 13);
  // An image written as {repository, tag} is read as REPOSITORY:TAG.
  const DeployedEngine* vllm = engine(s, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.10.0");
}

TEST_CASE("a CamelCase workload name gives its side by its words", "[deploy][roles]") {
  const char* compose = R"(services:
  VllmPrefillWorker:
    image: vllm/vllm-openai:v0.10.0
    command: ["Qwen/Qwen3-8B", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
  VllmDecodeWorker:
    image: vllm/vllm-openai:v0.10.0
    command: ["Qwen/Qwen3-8B", "--kv-transfer-config", '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']
)";
  Read r = read_texts({{"compose.yaml", compose}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 2);
  REQUIRE(setting(r.service("VllmPrefillWorker"), "role"));
  CHECK(setting(r.service("VllmPrefillWorker"), "role")->value == "prefill");
  REQUIRE(setting(r.service("VllmDecodeWorker"), "role"));
  CHECK(setting(r.service("VllmDecodeWorker"), "role")->value == "decode");
}

TEST_CASE("charts: LIST[] in a values path, engine arguments and environment as mappings",
          "[deploy][values]") {
  const char* serve = R"(zzApps:
  - name: llm
    args:
      prefill:
        model_id: Qwen/Qwen3-8B
        engine_kwargs:
          tensor_parallel_size: 2
          kv_transfer_config:
            kv_connector: NixlConnector
            kv_role: kv_producer
        runtime_env:
          env_vars:
            VLLM_BATCH_INVARIANT: "1"
      decode:
        model_id: Qwen/Qwen3-8B
        engine_kwargs:
          tensor_parallel_size: 4
)";
  Read r = read_texts({{"serve.yaml", serve}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.names() == std::vector<std::string>{"llm/prefill", "llm/decode"});
  const Service& p = r.service("llm/prefill");
  CHECK(p.model == "Qwen/Qwen3-8B");
  REQUIRE(setting(p, "tensor_parallel_size"));
  CHECK(setting(p, "tensor_parallel_size")->value == "2");
  CHECK(setting(p, "tensor_parallel_size")->pos.line == 7);
  // A field of a JSON-valued flag, written as a nested mapping.
  REQUIRE(setting(p, "kv_connector"));
  CHECK(setting(p, "kv_connector")->value == "NixlConnector");
  REQUIRE(setting(p, "batch_invariant"));
  CHECK(setting(p, "batch_invariant")->pos.line == 13);
  CHECK(setting(p, "role")->value == "prefill");
  CHECK(setting(r.service("llm/decode"), "tensor_parallel_size")->value == "4");
}

TEST_CASE("sh -c: a script of many \"$@\" cannot multiply its arguments past the budget",
          "[deploy][shell][limits]") {
  std::string script = "exec vllm serve";
  for (int i = 0; i < 20000; ++i) script += " \\\"$@\\\"";  // \"$@\" inside JSON
  const std::string pod =
      "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"w\"},"
      "\"spec\":{\"containers\":[{\"name\":\"m\",\"image\":\"vllm/vllm-openai:"
      "v0.10.0\",\"command\":[\"/bin/sh\",\"-c\",\"" +
      script + "\",\"--\"],\"args\":[\"" + std::string(5000, 'x') + "\"]}]}}";
  Read r = read_texts({{"pod.json", pod}});
  const auto codes = r.codes();
  CHECK(std::count(codes.begin(), codes.end(), "limits.expansion") == 1);
  CHECK(count_severity(r.diags, Severity::error) > 0);
}

TEST_CASE("a flag one engine reads as JSON fields and another as a switch", "[deploy][flags]") {
  Read r =
      read_texts({{"run.sh",
                   "#!/bin/bash\n"
                   "python3 -m sglang.launch_server --model-path m --kv-events-config "
                   "'{\"publisher\": \"zmq\"}' &\n"
                   "vllm serve m --kv-events-config '{\"enable_kv_cache_events\": false}' &\n"}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  REQUIRE(r.deployment.services.size() == 2);
  const Service& sglang = r.deployment.services[0];
  // SGLang: its fields are read, and the flag's presence turns events on; the JSON is
  // the flag's value, not an argument of its own.
  REQUIRE(setting(sglang, "kv_events"));
  CHECK(setting(sglang, "kv_events")->value == "true");
  REQUIRE(setting(sglang, "kv_events_publisher"));
  CHECK(setting(sglang, "kv_events_publisher")->value == "zmq");
  CHECK_FALSE(r.unread("{\"publisher\": \"zmq\"}", 2));
  // vLLM: the field says it.
  REQUIRE(setting(r.deployment.services[1], "kv_events"));
  CHECK(setting(r.deployment.services[1], "kv_events")->value == "false");
}

TEST_CASE("charts: sections of containers with their own command, and a lone side is aggregated",
          "[deploy][values][roles]") {
  const char* values = R"(zzModel:
  name: Qwen/Qwen3-0.6B
zzDecode:
  replicas: 2
  containers:
  - name: vllm
    command: [/bin/sh, -c]
    args:
      - |
        vllm serve Qwen/Qwen3-0.6B \
        --tensor-parallel-size 2 \
        --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'
    env:
      - name: PYTHONHASHSEED
        value: "42"
)";
  Read alone = read_texts({{"values.yaml", values}});
  for (const auto& d : alone.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(alone.diags, Severity::error) == 0);
  REQUIRE(alone.names() == std::vector<std::string>{"zzDecode/vllm"});
  const Service& d = alone.service("zzDecode/vllm");
  CHECK(d.model == "Qwen/Qwen3-0.6B");
  // The command's script is read: its flags, at their lines.
  REQUIRE(setting(d, "tensor_parallel_size"));
  CHECK(setting(d, "tensor_parallel_size")->value == "2");
  CHECK(setting(d, "tensor_parallel_size")->pos.line == 11);
  REQUIRE(setting(d, "kv_connector"));
  CHECK(setting(d, "kv_connector")->value == "NixlConnector");
  // Alone, the decode section is a monolithic server, and says so.
  CHECK(setting(d, "role") == nullptr);
  CHECK(std::any_of(alone.deployment.not_understood.begin(), alone.deployment.not_understood.end(),
                    [](const Unread& u) {
                      return u.why.find("gives a decode side, but no prefill") != std::string::npos;
                    }));
  // With a prefill section, each takes its side.
  std::string both(values);
  both += R"(zzPrefill:
  containers:
  - name: vllm
    image: ghcr.io/llm-d/llm-d-cuda:v0.4.0
    args: [--tensor-parallel-size, "4"]
)";
  Read pair = read_texts({{"values.yaml", both}});
  REQUIRE(pair.names() == std::vector<std::string>{"zzDecode/vllm", "zzPrefill/vllm"});
  CHECK(setting(pair.service("zzDecode/vllm"), "role")->value == "decode");
  const Service& p = pair.service("zzPrefill/vllm");
  CHECK(setting(p, "role")->value == "prefill");
  // Without a command, the args follow the image's own.
  CHECK(setting(p, "tensor_parallel_size")->value == "4");
  CHECK(p.model == "Qwen/Qwen3-0.6B");
}

TEST_CASE("an entry point's implied setting for some versions, and a flag taking several values",
          "[deploy][flags]") {
  // A Dynamo vLLM worker of the image's version, its arguments on line 11.
  auto worker = [](const std::string& tag, const std::string& args) {
    std::string list = "--model, Qwen/Qwen3-8B";
    std::istringstream words(args);
    for (std::string w; words >> w;) list += ", " + w;
    return read_texts({{"worker.yaml",
                        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
                        "  name: worker\nspec:\n  template:\n    spec:\n"
                        "      containers:\n        - name: main\n"
                        "          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:" +
                            tag +
                            "\n          command: [python3, -m, zz.dynamo.vllm]\n"
                            "          args: [" +
                            list + "]\n"}});
  };
  auto engines = [](const Service& s) {
    std::vector<std::string> out;
    for (const auto& e : s.engines) out.push_back(e.id);
    return out;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& id) {
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  SECTION("in the versions: implied") {
    Read r = worker("0.8.0", "");
    REQUIRE(r.deployment.services.size() == 1);
    const Setting* kv = setting(r.deployment.services.front(), "kv_connector");
    REQUIRE(kv);
    CHECK(kv->value == "nixl");
    CHECK_FALSE(kv->runtime);
  }
  SECTION("past them: not implied (the engine's default stands)") {
    Read r = worker("1.3.0", "");
    REQUIRE(r.deployment.services.size() == 1);
    CHECK(setting(r.deployment.services.front(), "kv_connector") == nullptr);
  }
  SECTION("the version unknown: set, but unknown") {
    Read r = worker("latest", "");
    REQUIRE(r.deployment.services.size() == 1);
    const Setting* kv = setting(r.deployment.services.front(), "kv_connector");
    REQUIRE(kv);
    CHECK(kv->runtime);
    CHECK(kv->via.find("the version is unknown") != std::string::npos);
    // Unknown, but one of two: what the entry point implies, or vLLM's default.
    CHECK(kv->one_of == std::vector<std::string>{"nixl", "none"});
  }
  SECTION("a flag's several values: the setting's value for several, each bringing its engines") {
    Read r = worker("0.8.0", "--connector lmcache nixl --enforce-eager");
    REQUIRE(r.deployment.services.size() == 1);
    const Service& s = r.deployment.services.front();
    REQUIRE(setting(s, "kv_connector"));
    CHECK(setting(s, "kv_connector")->value == "multi");
    CHECK(setting(s, "kv_connector")->parts == std::vector<std::string>{"lmcache", "nixl"});
    CHECK(has(engines(s), "engines/lmcache"));
    // The words after it are its values, never an argument left unread.
    CHECK_FALSE(r.unread("nixl", 11));
  }
  SECTION("one value is the value; the flag beats what the entry point implies") {
    Read r = worker("0.8.0", "--connector lmcache");
    REQUIRE(r.deployment.services.size() == 1);
    CHECK(setting(r.deployment.services.front(), "kv_connector")->value == "lmcache");
    Read none = worker("0.8.0", "--connector none");
    CHECK(setting(none.deployment.services.front(), "kv_connector")->value == "none");
  }
}
