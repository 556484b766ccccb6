// Replays inputs the fuzzers (fuzz/) once crashed on or broke an invariant with, saved
// under tests/data/fuzz/<target>/, through the same target bodies the fuzzers run, and
// checks the invariants on the test data they are seeded with. Every target that
// fuzz/CMakeLists.txt builds (KB_FUZZ_TARGETS) must be in the replay table below and have
// at least one saved input, so a new fuzzer cannot be added without its replay.

#include <algorithm>
#include <catch2/catch.hpp>

#include "../test_files.h"
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../fuzz/targets/deployment_target.h"
#include "../../fuzz/targets/http_target.h"
#include "../../fuzz/targets/markdown_target.h"
#include "../../fuzz/targets/readers_target.h"
#include "../../fuzz/targets/record_loader_target.h"
#include "../../fuzz/targets/search_target.h"
#include "../../fuzz/targets/version_target.h"

namespace fs = std::filesystem;

namespace {

using kb::test::read_file;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

using Target = std::string (*)(std::string_view);

// Every fuzz target body, by the name fuzz/CMakeLists.txt gives it.
const std::vector<std::pair<std::string, Target>>& targets() {
  static const std::vector<std::pair<std::string, Target>> kTargets = {
      {"record_loader", kb::fuzz::record_loader},
      {"deployment", kb::fuzz::deployment},
      {"readers", kb::fuzz::readers},
      {"version", kb::fuzz::version},
      {"markdown", kb::fuzz::markdown},
      {"search", kb::fuzz::search},
      {"http", kb::fuzz::http},
  };
  return kTargets;
}

// The names in `set(KB_FUZZ_TARGETS ...)` of fuzz/CMakeLists.txt.
std::vector<std::string> built_targets() {
  const std::string cmake = read_file(fs::path(KB_SOURCE_DIR) / "fuzz" / "CMakeLists.txt");
  const std::string key = "set(KB_FUZZ_TARGETS ";
  const auto at = cmake.find(key);
  if (at == std::string::npos) return {};
  std::istringstream names(cmake.substr(at + key.size(), cmake.find(')', at) - at - key.size()));
  std::vector<std::string> out;
  for (std::string n; names >> n;) out.push_back(n);
  return out;
}

}  // namespace

TEST_CASE("fuzz: every fuzz target replays its saved inputs") {
  const auto built = built_targets();
  REQUIRE(built.size() == 7);
  for (const auto& name : built) {
    INFO("target " << name);
    const auto it = std::find_if(targets().begin(), targets().end(),
                                 [&](const auto& t) { return t.first == name; });
    REQUIRE(it != targets().end());
    const auto inputs = files_in(fs::path(KB_TEST_DATA) / "fuzz" / name);
    CHECK(inputs.size() >= 1);
    for (const auto& p : inputs) {
      INFO(name << ": " << p.filename().string());
      CHECK(it->second(read_file(p)) == "");
    }
  }
  // And nothing in the table that the fuzz build no longer has.
  CHECK(targets().size() == built.size());
}

TEST_CASE("fuzz: invariants hold on the invalid-record fixtures the loader is seeded with") {
  const auto inputs = files_in(fs::path(KB_TEST_DATA) / "invalid");
  REQUIRE(inputs.size() >= 10);
  for (const auto& p : inputs) {
    INFO(p.filename().string());
    CHECK(kb::fuzz::record_loader(read_file(p)) == "");
  }
}

TEST_CASE("fuzz: invariants hold on the deployment fixtures") {
  const auto inputs = files_in(fs::path(KB_TEST_DATA) / "deployments");
  REQUIRE(inputs.size() >= 5);
  for (const auto& p : inputs) {
    INFO(p.filename().string());
    CHECK(kb::fuzz::deployment(read_file(p)) == "");
  }
}

TEST_CASE("fuzz: invariants hold on the deployment-artifact fixtures, read as every kind") {
  std::vector<fs::path> inputs;
  for (const auto& p : files_in(fs::path(KB_TEST_DATA) / "deploy")) inputs.push_back(p);
  REQUIRE(inputs.size() >= 10);
  for (const auto& p : inputs) {
    for (char kind = 0; kind < 7; ++kind) {
      INFO(p.filename().string() << " as kind " << int(kind));
      CHECK(kb::fuzz::readers(std::string(1, kind) + read_file(p)) == "");
    }
  }
  CHECK(kb::fuzz::readers("") == "");
  CHECK(kb::fuzz::readers(std::string(1, 6) + "sh -c \"sh -c 'sh -c \\\"vllm serve m -tp 2\\\"'\"") == "");
}

TEST_CASE("fuzz: the version target compares equal versions and ranges") {
  CHECK(kb::fuzz::version("0.28\n0.28.0\n==0.28.*") == "");
  CHECK(kb::fuzz::version("0.27.1rc2\n0.27.1\n>=0.26, <0.28") == "");
  CHECK(kb::fuzz::version("1!2.0+cu128\nv2.0\n~=2.0") == "");
}

TEST_CASE("fuzz: the search target finds the fixture and survives FTS5 operators") {
  CHECK(kb::fuzz::search("mooncake") == "");
  CHECK(kb::fuzz::search("\"unbalanced") == "");
  CHECK(kb::fuzz::search("NEAR(a b) OR ^x -y col:z *") == "");
  auto hits = kb::fuzz::detail::search_fixture().search("mooncake", 10);
  std::vector<std::string> ids;
  for (const auto& h : hits) ids.push_back(h.id);
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{"engines/mooncake", "gotchas/kv", "gotchas/rdma"});
  CHECK(kb::fuzz::detail::search_fixture().search(std::string("kv\0cache", 8), 10).size() == 1);
}
