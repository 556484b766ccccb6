// ctest learns the test cases from Catch2 (catch_discover_tests) as a CMake list, where
// `;` separates items: a test case whose name holds one became two ctest entries that
// match no test case, and both "passed" without running anything. No name may hold one.

#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "../test_files.h"

namespace fs = std::filesystem;

TEST_CASE("no test case name holds a semicolon, which ctest would split in two", "[tests]") {
  const std::regex name(R"re(TEST_CASE\(\s*"((?:[^"\\]|\\.)*)")re");
  std::vector<std::string> bad;
  std::size_t seen = 0;
  for (const char* dir : {"unit", "integration", "cli", "oracle"}) {
    const fs::path root = fs::path(KB_SOURCE_DIR) / "tests" / dir;
    if (!fs::is_directory(root)) continue;
    for (const auto& e : fs::directory_iterator(root)) {
      if (e.path().extension() != ".cpp") continue;
      const std::string text = kb::test::read_file(e.path());
      for (auto it = std::sregex_iterator(text.begin(), text.end(), name);
           it != std::sregex_iterator(); ++it) {
        ++seen;
        if ((*it)[1].str().find(';') != std::string::npos) {
          bad.push_back(e.path().filename().string() + ": " + (*it)[1].str());
        }
      }
    }
  }
  CHECK(seen > 500);  // the scan found the suite
  CHECK(bad == std::vector<std::string>{});
}
