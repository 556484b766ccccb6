// kb check --explain: every clause of a gotcha's predicate, per service.

#include "check/check_index_impl.h"
#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;

TEST_CASE("explain: clauses per service with their truth and facts", "[check][explain]") {
  Read r = read_files({"sglang-pd.sh"});
  std::vector<Diagnostic> diags;
  auto e =
      DeployFixture::get().index.explain(r.deployment, "sglang-pd-kv-dtype-mismatch", {}, diags);
  REQUIRE(e);
  CHECK(e->id == "gotchas/sglang-pd-kv-dtype-mismatch");
  CHECK(e->result == "applies");
  REQUIRE(e->services.size() == 3);
  const auto& p = e->services[0];
  CHECK(p.service == "sglang-pd.sh:7");
  CHECK(p.role == "prefill");
  CHECK(p.root.text == "all of");
  CHECK(p.root.truth == "true");
  REQUIRE(p.root.children.size() == 2);
  CHECK(p.root.children[0].text == "engine sglang");
  CHECK(p.root.children[0].truth == "true");
  CHECK(p.root.children[0].facts ==
        std::vector<std::string>{
            "engine sglang 0.5.16 (command python3 -m sglang.launch_server; version "
            "from pip install sglang[all]==0.5.16) (sglang-pd.sh:7:1)"});
  CHECK(p.root.children[1].text == "prefill and decode differ in kv_cache_dtype");
  CHECK(p.root.children[1].facts ==
        std::vector<std::string>{
            "kv_cache_dtype = fp8 on sglang-pd.sh:7 (--kv-cache-dtype) (sglang-pd.sh:8:58)",
            "kv_cache_dtype = auto on sglang-pd.sh:9 (the default of sglang 0.5.16) "
            "(sglang-pd.sh:5:13)"});
  // The router runs sglang too: the clause over the pair holds there as well.
  CHECK(e->services[2].role == "router");
}

TEST_CASE("explain: false and unknown clauses", "[check][explain]") {
  Read r = read_texts({{"a.sh", "vllm serve m --no-enable-prefix-caching\n"}});
  std::vector<Diagnostic> diags;
  auto e = DeployFixture::get().index.explain(r.deployment,
                                              "gotchas/apc-warm-hit-differs-from-cold", {}, diags);
  REQUIRE(e);
  CHECK(e->result == "does not apply");
  const Clause& root = e->services[0].root;
  CHECK(root.truth == "false");
  CHECK(root.children[0].truth == "true");
  CHECK(root.children[1].text == "config prefix_caching = true");
  CHECK(root.children[1].truth == "false");
  CHECK(
      root.children[1].facts ==
      std::vector<std::string>{"prefix_caching = false (--no-enable-prefix-caching) (a.sh:1:14)"});

  // Without a version, vLLM's default depends on it: unknown.
  Read bare = read_texts({{"b.sh", "vllm serve m\n"}});
  auto u = DeployFixture::get().index.explain(bare.deployment, "apc-warm-hit-differs-from-cold", {},
                                              diags);
  REQUIRE(u);
  CHECK(u->result == "may apply");
  CHECK(u->services[0].root.children[1].truth == "unknown");

  CHECK_FALSE(DeployFixture::get().index.explain(bare.deployment, "no-such-gotcha", {}, diags));
}

TEST_CASE("advice: the first paragraph of Markdown as plain text", "[check][advice]") {
  CHECK(first_paragraph_plain(
            "Run with `--x`, see [the docs](https://e.com/a).\nMore **here**.\n\nLater.") ==
        "Run with --x, see the docs. More here.");
  CHECK(first_paragraph_plain("") == "");
}

TEST_CASE("explain: a default the engine works out when it starts is unknown, never false",
          "[check][explain]") {
  std::vector<Diagnostic> diags;
  auto explain = [&](const std::string& script) {
    Read r = read_texts({{"a.sh", script}});
    auto e = DeployFixture::get().index.explain(r.deployment, "zz-derived-default", {}, diags);
    REQUIRE(e);
    return *e;
  };
  // A version whose default is derived: the clause is unknown, and says what decides it.
  auto derived = explain(
      "pip install sglang==0.5.16\npython3 -m sglang.launch_server --model-path m "
      "--zz-derived-marker\n");
  CHECK(derived.result == "may apply");
  const Clause& c = derived.services[0].root.children[1];
  CHECK(c.truth == "unknown");
  REQUIRE(c.facts.size() == 1);
  CHECK(c.facts[0].find("attention_backend is worked out by sglang when it starts, from the GPU "
                        "and the model") != std::string::npos);
  CHECK(c.facts[0].find("--set attention_backend=VALUE") != std::string::npos);
  // A version whose default is a value: decided.
  CHECK(explain("pip install sglang==0.0.5\npython3 -m sglang.launch_server --model-path m "
                "--zz-derived-marker\n")
            .result == "applies");
  // No version: a value or a derived one, unknown.
  CHECK(explain("python3 -m sglang.launch_server --model-path m --zz-derived-marker\n").result ==
        "may apply");
  // Stated: decided either way.
  CHECK(explain("pip install sglang==0.5.16\npython3 -m sglang.launch_server --model-path m "
                "--zz-derived-marker "
                "--attention-backend flash_attn\n")
            .result == "does not apply");
  CHECK(explain("pip install sglang==0.5.16\npython3 -m sglang.launch_server --model-path m "
                "--zz-derived-marker "
                "--attention-backend flashinfer\n")
            .result == "applies");
}

TEST_CASE("explain: prefill and decode both leaving a setting to one engine do not differ in it",
          "[check][explain]") {
  std::vector<Diagnostic> diags;
  auto result = [&](const std::string& script) {
    Read r = read_texts({{"pd.sh", script}});
    auto e = DeployFixture::get().index.explain(r.deployment, "zz-derived-differs", {}, diags);
    REQUIRE(e);
    return e->result;
  };
  const std::string prefill =
      "vllm serve m --port 8100 --kv-transfer-config "
      "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_producer\"}'";
  const std::string decode =
      "vllm serve m --port 8200 --kv-transfer-config "
      "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_consumer\"}'";
  // The same engine and version chooses on both sides: nothing says they differ.
  CHECK(result("pip install vllm==0.26.0\n" + prefill + " &\n" + decode + " &\n") ==
        "does not apply");
  // One side states it, the other leaves it to vLLM: they may differ.
  CHECK(result("pip install vllm==0.26.0\n" + prefill + " --attention-backend flashinfer &\n" +
               decode + " &\n") == "may apply");
  // Both state it, differently: they differ.
  CHECK(result("pip install vllm==0.26.0\n" + prefill + " --attention-backend flashinfer &\n" +
               decode + " --attention-backend flash_attn &\n") == "applies");
}
