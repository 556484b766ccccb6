// The small parsers under the readers: shell words, image references, tags, packages.

#include <catch2/catch.hpp>

#include "deploy/catalog.h"
#include "deploy/shell_words.h"

using namespace kb;
using namespace kb::deploy;

namespace {

std::vector<std::vector<std::string>> commands(const std::string& text, Vars vars = {}) {
  LineIndex index(text);
  ShellLexer lexer(text, Locator{&index, text, 0, true, {}});
  std::vector<std::vector<std::string>> out;
  while (auto cmd = lexer.next(vars)) {
    std::vector<std::string> words;
    for (const auto& w : cmd->words) words.push_back(w.text);
    out.push_back(words);
  }
  return out;
}

using Cmds = std::vector<std::vector<std::string>>;

}  // namespace

TEST_CASE("shell words: quotes, escapes and $'...'", "[deploy][shell]") {
  CHECK(commands(R"(vllm serve 'a b' "c \"d\" $X" e\ f $'g\nh')", {{"X", "x"}}) ==
        Cmds{{"vllm", "serve", "a b", "c \"d\" x", "e f", "g\nh"}});
  CHECK(commands(R"(--kv-transfer-config '{"kv_connector":"NixlConnector"}')") ==
        Cmds{{"--kv-transfer-config", R"({"kv_connector":"NixlConnector"})"}});
}

TEST_CASE("shell words: separators, continuations, comments, redirections", "[deploy][shell]") {
  const std::string script =
      "# a comment\n"
      "pip install x==1 && exec vllm serve m \\\n"
      "  --port 8000 > /tmp/log 2>&1 &\n"
      "echo done; sleep 1 | cat # trailing\n";
  CHECK(commands(script) == Cmds{{"pip", "install", "x==1"},
                                 {"exec", "vllm", "serve", "m", "--port", "8000"},
                                 {"echo", "done"},
                                 {"sleep", "1"},
                                 {"cat"}});
}

TEST_CASE("shell words: here-documents are skipped", "[deploy][shell]") {
  const std::string script =
      "cat > cfg.yaml <<'EOF'\n"
      "vllm serve not-a-command\n"
      "EOF\n"
      "vllm serve real\n";
  CHECK(commands(script) == Cmds{{"cat"}, {"vllm", "serve", "real"}});
}

TEST_CASE("shell words: variables expand, unknown ones stay", "[deploy][shell]") {
  CHECK(commands("vllm serve $MODEL ${PORT:-8000} ${TP} $(hostname) '$MODEL'", {{"MODEL", "m"}}) ==
        Cmds{{"vllm", "serve", "m", "8000", "${TP}", "$(hostname)", "$MODEL"}});
}

TEST_CASE("shell words: positions are the words' own lines and columns", "[deploy][shell]") {
  const std::string script = "A=1 \\\n  vllm serve --x 2\n";
  LineIndex index(script);
  ShellLexer lexer(script, Locator{&index, script, 0, true, {}});
  auto cmd = lexer.next({});
  REQUIRE(cmd);
  REQUIRE(cmd->words.size() == 5);
  CHECK(cmd->words[0].pos.line == 1);
  CHECK(cmd->words[0].pos.column == 1);
  CHECK(cmd->words[3].text == "--x");
  CHECK(cmd->words[3].pos.line == 2);
  CHECK(cmd->words[3].pos.column == 14);
  CHECK(cmd->words[3].end.column == 17);
}

TEST_CASE("shell words: assignments", "[deploy][shell]") {
  CHECK(is_assignment("VLLM_X=1"));
  CHECK(is_assignment("_A="));
  CHECK_FALSE(is_assignment("--x=1"));
  CHECK_FALSE(is_assignment("1A=2"));
  CHECK_FALSE(is_assignment("=x"));
}

TEST_CASE("shell words: an unquoted expansion splits at blanks, as sh does", "[deploy][shell]") {
  const Vars vars = {{"CMD", "python3 proxy.py --port 8192"},
                     {"ROOT", "$(git rev-parse --show-toplevel)"},
                     {"EMPTY", ""}};
  CHECK(commands("$CMD &", vars) == Cmds{{"python3", "proxy.py", "--port", "8192"}});
  // Quoted, or in an assignment: one word.
  CHECK(commands("echo \"$CMD\"", vars) == Cmds{{"echo", "python3 proxy.py --port 8192"}});
  CHECK(commands("X=$CMD", vars) == Cmds{{"X=python3 proxy.py --port 8192"}});
  // What the script computes when it runs is kept whole.
  CHECK(commands("cd $ROOT/x", vars) == Cmds{{"cd", "$(git rev-parse --show-toplevel)/x"}});
  CHECK(commands("a $EMPTY b", vars) == Cmds{{"a", "b"}});
}

TEST_CASE("shell words: positional parameters and quoted defaults", "[deploy][shell]") {
  CHECK(commands("vllm serve $1 --x ${2}", {{"1", "m"}, {"2", "y"}}) ==
        Cmds{{"vllm", "serve", "m", "--x", "y"}});
  CHECK(commands("vllm serve $1") == Cmds{{"vllm", "serve", "$1"}});  // unknown: kept
  // The default of ${X:-word} loses its quotes and expands its variables.
  CHECK(commands(R"(M=${MODEL:-"Qwen/Qwen3-8B"} C=${CFG:-"$HOME/a.yaml"})", {{"HOME", "/h"}}) ==
        Cmds{{"M=Qwen/Qwen3-8B", "C=/h/a.yaml"}});
}

TEST_CASE("image references: registries, Docker Hub, tags and digests", "[deploy][image]") {
  auto r = parse_image("docker.io/vllm/vllm-openai:v0.26.0");
  REQUIRE(r);
  CHECK(r->registry.empty());
  CHECK(r->path == "vllm/vllm-openai");
  CHECK(r->tag == "v0.26.0");
  r = parse_image("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0@sha256:abc");
  REQUIRE(r);
  CHECK(r->registry == "nvcr.io");
  CHECK(r->path == "nvidia/ai-dynamo/vllm-runtime");
  CHECK(r->tag == "1.3.0");
  CHECK(r->digest == "sha256:abc");
  r = parse_image("localhost:5000/redis");
  REQUIRE(r);
  CHECK(r->registry == "localhost:5000");
  CHECK(r->path == "redis");
  CHECK(r->tag.empty());
  r = parse_image("docker.io/library/redis:7");
  REQUIRE(r);
  CHECK(r->path == "redis");
  CHECK_FALSE(parse_image("vllm serve"));
  CHECK_FALSE(parse_image("a//b"));
  CHECK_FALSE(parse_image("x:"));
}

TEST_CASE("image tags give versions", "[deploy][image]") {
  CHECK(version_from_tag("v0.26.0") == "0.26.0");
  CHECK(version_from_tag("0.5.18-cu128") == "0.5.18");
  CHECK(version_from_tag("v0.5.18-cu128-b200") == "0.5.18");
  CHECK(version_from_tag("v0.26.0rc1") == "0.26.0rc1");
  CHECK(version_from_tag("v0.26.0-rc1") == "0.26.0rc1");
  CHECK(version_from_tag("0.26.0-py3") == "0.26.0");
  CHECK(version_from_tag("latest").empty());
  CHECK(version_from_tag("nightly-2026-01-01").empty());
  CHECK(version_from_tag("${VERSION}").empty());
  CHECK(version_from_tag("").empty());
  // Build dates and bare numbers are no version: read as 2025 they would rule gotchas out.
  CHECK(version_from_tag("2025-05-27-v1").empty());
  CHECK(version_from_tag("20251022").empty());
  CHECK(version_from_tag("2025.05.27").empty());
  CHECK(version_from_tag("pr-429").empty());
  CHECK(version_from_tag("12").empty());
  CHECK(version_from_tag("v0.10.2-20251022") == "0.10.2");
  // A flavour named first: the release is the part that starts with v and a digit.
  CHECK(version_from_tag("aibrix-kvcache-v0.8.5-20250520") == "0.8.5");
  CHECK(version_from_tag("cuda-12.4").empty());
  CHECK(version_from_tag("nightly-v1").empty());
  // A local build names the release it was built from.
  CHECK(version_from_tag("v0.7.3.self.post1") == "0.7.3");
  CHECK(version_from_tag("1.2.x").empty());  // a branch, not release 1.2.0
  CHECK(version_from_tag("1.3.0rc8") == "1.3.0rc8");
}

TEST_CASE("package names compare after PEP 503 normalisation", "[deploy][packages]") {
  CHECK(normalize_package("Nixl_CU12") == "nixl-cu12");
  CHECK(normalize_package("a.-_b") == "a-b");
  CHECK(normalize_package("vLLM") == "vllm");
}

TEST_CASE("python interpreters and base names", "[deploy][shell]") {
  CHECK(is_python("python3"));
  CHECK(is_python("/usr/bin/python3.12"));
  CHECK(is_python("python"));
  CHECK_FALSE(is_python("pythonx"));
  CHECK(base_name("/opt/venv/bin/vllm") == "vllm");
}
