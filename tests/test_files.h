#pragma once

// File helpers shared by the unit, CLI and integration tests.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kb::test {

/// The bytes of `p`; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace kb::test
