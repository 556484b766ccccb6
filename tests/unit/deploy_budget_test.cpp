// Every input pays for itself: text a reader makes that its input does not hold (shell
// variables, YAML aliases, Kubernetes $(VAR), environments copied into many processes) is
// charged to a budget proportional to the input's size, and past it the read fails closed
// with `limits.expansion` at the line where the budget ran out. Each case ran out of memory
// or CPU before; each runs under a cap now, so a regression fails fast.

#include <unistd.h>

#include <chrono>

#include "rlimit_cap.h"
#include "unit/deploy_fixture.h"
#include "yaml/yaml_tree.h"

using namespace kb;
using namespace kb::test;

namespace {

constexpr std::size_t kMiB = 1u << 20;

// Only limits.expansion, once, and no other error.
void require_expansion_only(const Read& r, const std::string& file, int line) {
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  std::vector<const Diagnostic*> errors;
  for (const auto& d : r.diags) {
    if (d.severity == Severity::error) errors.push_back(&d);
  }
  REQUIRE(errors.size() == 1);
  CHECK(errors[0]->code == "limits.expansion");
  CHECK(errors[0]->file == file);
  CHECK(errors[0]->line == line);
}

}  // namespace

TEST_CASE("budget: a shell variable that doubles itself 30 times", "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  const std::string text = slurp_file(deploy_path("budget-doubling-variable.sh"));
  REQUIRE(text.size() < 400);
  Read r = read_texts({{"doubling.sh", text}});
  // Line 4 + k expands 2^(k+1) bytes, 2^(k+2) - 2 in all: the 1 MiB floor (2^20) runs out
  // at the 20th doubling, line 23.
  require_expansion_only(r, "doubling.sh", 23);
}

TEST_CASE("budget: a small script under the floor expands as before", "[deploy][budget]") {
  // 2^10 bytes: well inside the budget, and the model is the expanded value.
  std::string text = "A=x\n";
  for (int i = 0; i < 10; ++i) text += "A=$A$A\n";
  text += "vllm serve \"$A\"\n";
  Read r = read_texts({{"ten.sh", text}});
  REQUIRE(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 1);
  CHECK(r.deployment.services[0].model == std::string(1024, 'x'));
}

TEST_CASE("budget: YAML aliases are counted in bytes, not only nodes", "[yaml][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  // One 400 KB scalar aliased 100,000 times: 40 GB without a byte budget, few nodes.
  std::string text = "a: &a \"" + std::string(400 * 1000, 'x') + "\"\nb: [";
  for (int i = 0; i < 100000; ++i) text += i ? ", *a" : "*a";
  text += "]\n";
  yaml::Node root;
  std::vector<Diagnostic> diags;
  CHECK_FALSE(yaml::parse(text, "big.yaml", yaml::Limits{}, root, diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "limits.expansion");
  CHECK(diags[0].file == "big.yaml");
  CHECK(diags[0].line == 2);
  // The budget is 16x the text's 800,013 bytes: after 400,002 bytes (the anchor and two
  // keys), 31 aliases fit and the 32nd runs out.
  CHECK(diags[0].column == 5 + 4 * 31);
  CHECK(yaml::expansion_budget(yaml::Limits{}, text.size()) == 16 * text.size());
}

TEST_CASE("budget: a manifest whose aliases expand past the budget", "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  Read r = read_files({"budget-alias-bytes.yaml"});
  // 2 KiB, then 16 x 2 KiB at a1, 16 x 32 KiB = 512 KiB at a2 (line 8): a3's first alias
  // (line 9) crosses the 1 MiB floor.
  require_expansion_only(r, "budget-alias-bytes.yaml", 9);
}

TEST_CASE("budget: a record file of aliases names the file and keeps the rest", "[budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  const std::string dir = "/tmp/kb-budget-records-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/gotchas");
  std::filesystem::create_directories(dir + "/engines");
  {
    std::ofstream(dir + "/engines/vllm.yaml") << "name: vLLM\n";
    std::string text = "title: &t \"" + std::string(700 * 1000, 'x') + "\"\nnotes: [";
    for (int i = 0; i < 2000; ++i) text += i ? ", *t" : "*t";
    text += "]\n";
    std::ofstream(dir + "/gotchas/bomb.yaml") << text;
  }
  auto corpus = Corpus::load(dir);
  std::vector<std::string> at;
  for (const auto& d : corpus->diagnostics()) {
    if (d.code == "limits.expansion") at.push_back(d.file + ":" + std::to_string(d.line));
  }
  CHECK(at == std::vector<std::string>{"gotchas/bomb.yaml:2"});
  CHECK(corpus->find("engines/vllm") != nullptr);
  std::filesystem::remove_all(dir);
}

TEST_CASE("budget: exported variables copied into thousands of commands", "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  // 1,500 exports and 1,500 commands (80 KB): 2.25 million variable copies unbudgeted.
  std::string text;
  for (int i = 0; i < 1500; ++i) {
    text += "export V" + std::to_string(i) + "=value-of-thirty-bytes-or-so\n";
  }
  const int first_command = 1501;
  for (int i = 0; i < 1500; ++i) text += "vllm serve m\n";
  Read r = read_texts({{"exports.sh", text}});
  // Each command gets a copy of 1,500 variables, ~112 bytes each as charged (64 for the
  // copy, its name, value, file and source): 168 KB. 16 x 80 KB = 1.28 MB fits 7 of them.
  require_expansion_only(r, "exports.sh", first_command + 7);
  CHECK(r.deployment.services.empty());
}

TEST_CASE("budget: Kubernetes $(VAR) references to a large variable", "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  // A 100 KB variable referenced 3,000 times in args: 300 MB unbudgeted.
  std::string text =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
      "  - name: vllm\n    image: vllm/vllm-openai:v0.26.0\n    env:\n    - name: BIG\n"
      "      value: \"" +
      std::string(100 * 1000, 'y') + "\"\n    args:\n";
  for (int i = 0; i < 3000; ++i) text += "    - \"$(BIG)\"\n";
  Read r = read_texts({{"pod.yaml", text}});
  REQUIRE(count_severity(r.diags, Severity::error) == 1);
  const Diagnostic& d = r.diags.back();
  CHECK(d.code == "limits.expansion");
  CHECK(d.file == "pod.yaml");
  // 16 x 145 KB = 2.3 MB: 23 references fit, the 24th (line 12 + 23) runs out.
  CHECK(d.line == 35);
}

TEST_CASE("budget: envFrom of a large ConfigMap in many containers", "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  // 3,000 keys, 300 containers that each take them all: 900,000 variables unbudgeted.
  std::string text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata:\n";
  for (int i = 0; i < 3000; ++i) text += "  K" + std::to_string(i) + ": v\n";
  text += "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n";
  for (int i = 0; i < 300; ++i) {
    text += "  - name: c" + std::to_string(i) +
            "\n    image: vllm/vllm-openai:v0.26.0\n    envFrom: [{configMapRef: {name: cm}}]\n";
  }
  Read r = read_texts({{"pods.yaml", text}});
  // 3,000 variables of ~91 bytes are 273 KB, charged as envFrom copies them and again as
  // the container becomes a process: 16 x 64 KB = 1 MB runs out as the second container
  // (line 3014) is added.
  require_expansion_only(r, "pods.yaml", 3014);
  CHECK(r.deployment.services.size() == 1);
}

TEST_CASE("budget: a Dynamo graph's shared environment in many services", "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  std::string text =
      "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata: {name: g}\n"
      "spec:\n  envs:\n";
  for (int i = 0; i < 2000; ++i) {
    text += "  - {name: E" + std::to_string(i) + ", value: some-value}\n";
  }
  text += "  services:\n";
  for (int i = 0; i < 1000; ++i) {
    text += "    S" + std::to_string(i) + ": {componentType: worker}\n";
  }
  Read r = read_texts({{"graph.yaml", text}});
  // Each service copies the graph's 2,000 variables: the budget (16 x 97 KB) holds nine,
  // and the tenth (S9, line 2016) runs out.
  require_expansion_only(r, "graph.yaml", 2016);
}

TEST_CASE("budget: `sh -c` on every line is read in linear time", "[deploy][budget]") {
  // 520 KB of `sh -c` lines took 37-54 s: each one scanned the input from line 1. Under a
  // CPU cap of 20 s a return to that ends the test with SIGXCPU.
  REQUIRE(cap_cpu_seconds(20));
  std::string text;
  while (text.size() < 520 * 1000) text += "sh -c 'echo starting; true' && sh -c \"echo done\"\n";
  Read r = read_texts({{"many.sh", text}});
  // None of it runs an engine: read whole, it says so, and nothing is over a budget.
  CHECK(r.codes() == std::vector<std::string>{"deploy.no-engine"});
}

TEST_CASE("budget: many services of a hand-written deployment share many settings",
          "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  // 3,000 shared settings copied into 3,000 services: 9 million copies unbudgeted.
  std::string text = "{\"engines\": [{\"engine\": \"vllm\"}],\n\"config\": {";
  for (int i = 0; i < 3000; ++i) text += (i ? ", " : "") + ("\"k" + std::to_string(i) + "\": 1");
  text += "},\n\"services\": [";
  for (int i = 0; i < 3000; ++i)
    text += (i ? ", " : "") + ("{\"name\": \"s" + std::to_string(i) + "\"}");
  text += "]}\n";
  std::vector<Diagnostic> diags;
  Deployment d = parse_deployment(text, "many.json", diags);
  std::vector<std::string> at;
  for (const auto& x : diags) {
    if (x.code == "limits.expansion") at.push_back(x.file + ":" + std::to_string(x.line));
  }
  CHECK(at == std::vector<std::string>{"many.json:3"});
  CHECK(d.services.empty());
  CHECK(d.effective_services().size() == 1);
  // Thirty shared settings in ten services are well within the budget.
  std::string ten = "{\"engines\": [{\"engine\": \"vllm\"}],\n\"config\": {";
  for (int i = 0; i < 30; ++i) ten += (i ? ", " : "") + ("\"k" + std::to_string(i) + "\": 1");
  ten += "},\n\"services\": [";
  for (int i = 0; i < 10; ++i)
    ten += (i ? ", " : "") + ("{\"name\": \"s" + std::to_string(i) + "\"}");
  ten += "]}\n";
  diags.clear();
  CHECK(parse_deployment(ten, "ten.json", diags).effective_services().size() == 10);
  for (const auto& x : diags) CHECK(x.code != "limits.expansion");
}

TEST_CASE("budget: a pool's fields are read once, however many pods the pool has",
          "[deploy][budget]") {
  REQUIRE(cap_address_space(512 * kMiB));
  // 20,000 fields under the pool's offload block (one of them a setting) and 3,000 pods of
  // the pool: read per pod, 60 million unread fields; read once, 20,000.
  std::string text =
      "apiVersion: zz.example.com/v1\nkind: ZzPool\nmetadata: {name: pool}\nspec:\n"
      "  model: {name: Qwen/Qwen3-8B}\n  offload:\n    cpu: 10Gi\n";
  for (int i = 0; i < 20000; ++i) text += "    f" + std::to_string(i) + ": x\n";
  text += "  pods:\n";
  for (int i = 0; i < 3000; ++i) text += "    - {containers: [{name: main}]}\n";
  Read r = read_texts({{"pool.yaml", text}});
  for (const auto& d : r.diags) INFO(format_diagnostic(d));
  CHECK(count_severity(r.diags, Severity::error) == 0);
  REQUIRE(r.deployment.services.size() == 3000);
  for (const Service& s : r.deployment.services) {
    const Setting* offload = setting(s, "kv_connector");
    REQUIRE(offload);
    CHECK(offload->pos.line == 7);
  }
  CHECK(std::count_if(r.deployment.not_understood.begin(), r.deployment.not_understood.end(),
                      [](const Unread& u) { return u.text.starts_with("ZzPool spec offload.f"); }) ==
        20000);
}
