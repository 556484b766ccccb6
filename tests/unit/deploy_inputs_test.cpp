// Compose files, package lists, image references, and the driver: choosing a reader,
// merging several inputs, failing closed.

#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;

TEST_CASE("compose: image, command list, environment, GPU reservation", "[deploy][compose]") {
  Read r = read_files({"compose.yaml"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.names() == std::vector<std::string>{"vllm"});
  const Service& s = r.service("vllm");
  const DeployedEngine* vllm = engine(s, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.26.0");  // ${VLLM_TAG:-v0.26.0}
  CHECK(vllm->pos.line == 4);
  CHECK(s.model == "Qwen/Qwen3-8B");
  CHECK(setting(s, "prefix_caching")->value == "false");
  CHECK(setting(s, "prefix_caching")->via == "--no-enable-prefix-caching");
  CHECK(setting(s, "prefix_caching")->pos.line == 5);
  CHECK(setting(s, "batch_invariant")->value == "1");
  CHECK(setting(s, "batch_invariant")->pos.line == 7);
  // The device reservation's count is the service's GPU count.
  REQUIRE(setting(s, "gpu_count"));
  CHECK(setting(s, "gpu_count")->value == "1");
  CHECK(setting(s, "gpu_count")->pos.line == 14);
  CHECK(r.unread("--max-model-len 8192", 5));
  CHECK(r.unread("env HF_TOKEN (environment (from the host))", 8));
  CHECK(r.unread("'redis' (image redis:7)", 16));
  // Prefix caching is off: the gotcha that needs it does not fire.
  CheckReport report = check_read(r);
  CHECK(count_severity(report.diagnostics, Severity::error) == 0);
  CHECK(report.findings.empty());
}

TEST_CASE("compose: a GPU service no record identifies fails closed", "[deploy][compose]") {
  Read r = read_files({"compose-unidentified.yaml"});
  REQUIRE(r.codes() == std::vector<std::string>{"deploy.unidentified-engine"});
  CHECK(r.diags[0].line == 3);
  CHECK(r.diags[0].hint ==
        "add its image to an engine record's `images` or its command to `entrypoints`, or pass "
        "--allow-unknown to check without it");
}

TEST_CASE("packages: requirements.txt pins, ranges and comments", "[deploy][packages]") {
  Read r = read_files({"requirements.txt"});
  REQUIRE(r.diags.empty());
  // A package list alone is one service.
  REQUIRE(r.deployment.services.empty());
  REQUIRE(r.deployment.engines.size() == 3);
  CHECK(r.deployment.engines[0].id == "engines/vllm");
  CHECK(r.deployment.engines[0].version == "0.26.0");
  CHECK(r.deployment.engines[0].pos.line == 2);
  CHECK(r.deployment.engines[0].via == "pip vllm==0.26.0");
  CHECK(r.deployment.engines[1].version == "0.3.9");
  CHECK(r.deployment.engines[2].id == "engines/nixl");
  CHECK(r.deployment.engines[2].version.empty());  // a range is not a pin
  CHECK(r.unread("torch==2.9.0", 4));
}

TEST_CASE("packages: pip freeze, uv.lock and pip list JSON", "[deploy][packages]") {
  Read freeze = read_files({"pip-freeze.txt"});
  REQUIRE(freeze.diags.empty());
  std::vector<std::string> got;
  for (const auto& e : freeze.deployment.engines) got.push_back(e.id + " " + e.version);
  CHECK(got == std::vector<std::string>{"engines/lmcache 0.3.9", "engines/nixl 1.3.1",
                                        "engines/sglang ", "engines/vllm 0.28.0"});
  Read lock = read_files({"uv.lock"});
  REQUIRE(lock.deployment.engines.size() == 1);
  CHECK(lock.deployment.engines[0].version == "0.26.0");
  CHECK(lock.deployment.engines[0].pos.line == 10);
  CHECK(lock.unread("torch==2.9.0", 5));
  Read list = read_files({"pip-list.json"});
  REQUIRE(list.deployment.engines.size() == 2);
  CHECK(list.deployment.engines[0].id == "engines/vllm");
  CHECK(list.deployment.engines[1].id == "engines/lmcache");
  CHECK(list.deployment.engines[1].pos.line == 2);
}

TEST_CASE("image: a reference alone, with the engines the image ships", "[deploy][image]") {
  Read r = read_files({"image.txt"});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.engines.size() == 1);
  CHECK(r.deployment.engines[0].id == "engines/vllm");
  CHECK(r.deployment.engines[0].version == "0.26.0");
  CHECK(r.deployment.engines[0].via == "image docker.io/vllm/vllm-openai:v0.26.0");
  Read dynamo = read_texts({{"img", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0\n"}});
  std::vector<std::string> got;
  for (const auto& e : dynamo.deployment.engines) got.push_back(e.id + " " + e.version);
  CHECK(got == std::vector<std::string>{"engines/nvidia-dynamo 1.3.0", "engines/vllm 0.26.0",
                                        "engines/nixl 1.3.1"});
  Read latest = read_texts({{"img", "lmsysorg/sglang:latest\n"}});
  REQUIRE(latest.deployment.engines.size() == 1);
  CHECK(latest.deployment.engines[0].version.empty());
  CHECK(latest.unread("image lmsysorg/sglang:latest", 1));
  Read unknown = read_texts({{"img", "example.com/team/server:1.0\n"}});
  CHECK(unknown.codes() == std::vector<std::string>{"deploy.unidentified-engine"});
}

TEST_CASE("driver: the reader is chosen by content, or by --input-kind", "[deploy][driver]") {
  // A one-line command read from stdin.
  Read cmd = read_texts({{"-", "vllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8\n"}});
  REQUIRE(cmd.deployment.services.size() == 1);
  CHECK(cmd.deployment.services[0].name == "stdin:1");
  // The hand-written format alone is kept whole, as before.
  Read dep = read_texts(
      {{"d.yaml",
        "engines: [{engine: vllm, version: 0.26.0}]\nconfig: {prefix_caching: false}\n"}});
  CHECK(dep.deployment.services.empty());
  CHECK(dep.deployment.engines.size() == 1);
  CHECK(dep.deployment.config.size() == 1);
  // Text no reader accepts is refused, unless it comes from a directory.
  Read none = read_texts({{"notes.md", "# Some notes\n\nNothing to see.\n"}});
  CHECK(none.codes() == std::vector<std::string>{"deploy.unknown-kind"});
  Read forced = read_texts({{"notes.md", "vllm/vllm-openai:v0.26.0\n"}}, {"shell", false});
  CHECK(forced.codes() == std::vector<std::string>{"deploy.no-engine"});
  Read image = read_texts({{"notes.md", "vllm/vllm-openai:v0.26.0\n"}}, {"image", false});
  CHECK(image.diags.empty());
  CHECK(image.deployment.engines.size() == 1);
}

TEST_CASE("driver: a package list fills in the versions of every service", "[deploy][driver]") {
  Read r = read_texts({{"serve.sh", "vllm serve Qwen/Qwen3-8B\n"},
                       {"requirements.txt", "vllm==0.26.0\nlmcache==0.3.9\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  const DeployedEngine* vllm = engine(s, "engines/vllm");
  REQUIRE(vllm);
  CHECK(vllm->version == "0.26.0");
  CHECK(vllm->file == "requirements.txt");
  CHECK(vllm->via == "command vllm serve; version from pip vllm==0.26.0");
  CHECK(engine(s, "engines/lmcache")->version == "0.3.9");
  CHECK(r.deployment.file == "serve.sh, requirements.txt");
}

TEST_CASE("driver: services keep unique names across inputs", "[deploy][driver]") {
  Read r = read_texts({{"a/run.sh", "vllm serve m\n"}, {"b/run.sh", "vllm serve m\n"}});
  CHECK(r.names() == std::vector<std::string>{"a/run.sh:1", "b/run.sh:1"});
  Read k8s = read_texts({{"a.yaml",
                          "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "
                          "[{image: 'vllm/vllm-openai:v0.26.0'}]}\n"},
                         {"b.yaml",
                          "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: "
                          "[{image: 'vllm/vllm-openai:v0.28.0'}]}\n"}});
  CHECK(k8s.names() == std::vector<std::string>{"p", "b.yaml/p"});
  Read twice = read_texts({{"run.sh", "vllm serve m\n"}, {"run.sh", "vllm serve m\n"}});
  CHECK(twice.names() == std::vector<std::string>{"run.sh:1"});
}

TEST_CASE("packages: conda list gives conda's and pip's packages", "[deploy][packages]") {
  Read r = read_texts({{"env.txt",
                        "# packages in environment at /opt/conda/envs/serve:\n"
                        "#\n"
                        "# Name                    Version                   Build  Channel\n"
                        "nixl-conda                0.4.1                h1234567_0    conda-forge\n"
                        "python                    3.12.3               hab00c5b_0    conda-forge\n"
                        "vllm                      0.26.0                   pypi_0    pypi\n"},
                       {"run.sh", "vllm serve Qwen/Qwen3-8B\n"}});
  REQUIRE(r.diags.empty());
  REQUIRE(r.deployment.services.size() == 1);
  const Service& s = r.deployment.services[0];
  REQUIRE(engine(s, "engines/vllm"));
  CHECK(engine(s, "engines/vllm")->version == "0.26.0");  // pip's, by its PyPI name
  CHECK(engine(s, "engines/nixl")->version == "0.4.1");   // conda's, by its conda name
  CHECK(engine(s, "engines/nixl")->pos.line == 4);
  CHECK(r.unread("python 3.12.3", 5));
}

TEST_CASE("a hand-written file of settings beside a script merges into its services",
          "[deploy][inputs]") {
  Read r = read_texts({{"run.sh",
                        "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 &\n"
                        "vllm serve Qwen/Qwen3-8B &\n"},
                       {"hardware.yaml", "config: {gpu: H100, tensor_parallel_size: 4}\n"}});
  REQUIRE(r.diags.empty());
  // Not a service of its own: each service gets what it does not say itself.
  REQUIRE(r.names() == std::vector<std::string>{"run.sh:1", "run.sh:2"});
  for (const Service& s : r.deployment.services) {
    const Setting* gpu = setting(s, "gpu");
    REQUIRE(gpu);
    CHECK(gpu->value == "H100");
    CHECK(gpu->file == "hardware.yaml");
    CHECK(gpu->pos.line == 1);
  }
  CHECK(setting(r.service("run.sh:1"), "tensor_parallel_size")->value == "2");
  CHECK(setting(r.service("run.sh:2"), "tensor_parallel_size")->value == "4");
  CHECK(r.unread("tensor_parallel_size: 4", 1));
}
