// The deployment codes no other test named, each from a small input, and a check that
// every code a deployment can trigger (kb::CodeScope::deployment) is asserted by a test.

#include <filesystem>
#include <regex>

#include "../test_files.h"
#include "kb/diagnostic_codes.h"
#include "unit/deploy_fixture.h"

using namespace kb;
using namespace kb::test;
namespace fs = std::filesystem;

TEST_CASE("deploy.not-compose: a compose file without services", "[deploy][codes]") {
  Read r = read_texts({{"compose.yaml", "version: \"3\"\nvolumes: {cache: {}}\n"}},
                      {.kind = "compose"});
  REQUIRE(r.codes() == std::vector<std::string>{"deploy.not-compose"});
  CHECK(r.diags[0].line == 1);
}

TEST_CASE("deploy.bad-image: a line that is no image reference", "[deploy][codes]") {
  Read r = read_texts({{"images.txt", "vllm/vllm-openai:v0.26.0:extra tag\n"}}, {.kind = "image"});
  REQUIRE(r.codes() == std::vector<std::string>{"deploy.bad-image"});
  CHECK(r.diags[0].line == 1);
}

TEST_CASE("deploy.bad-json: a JSON-valued flag that is not JSON", "[deploy][codes]") {
  Read r = read_texts(
      {{"serve.sh", "vllm serve m --kv-transfer-config '{\"kv_connector\": NixlConnector'\n"}},
      {.kind = "shell"});
  const auto codes = r.codes();
  CHECK(std::count(codes.begin(), codes.end(), "deploy.bad-json") == 1);
}

TEST_CASE("every deployment code is asserted by a test", "[codes]") {
  std::string tests;
  for (const char* dir : {"unit", "cli", "integration"}) {
    for (const auto& e : fs::directory_iterator(fs::path(KB_SOURCE_DIR) / "tests" / dir)) {
      if (e.path().extension() == ".cpp") tests += read_file(e.path());
    }
  }
  for (const CodeInfo& c : diagnostic_codes()) {
    if (c.scope != CodeScope::deployment) continue;
    INFO(c.code << " is named by no test under tests/unit, tests/cli or tests/integration");
    CHECK(tests.find("\"" + std::string(c.code) + "\"") != std::string::npos);
  }
}
