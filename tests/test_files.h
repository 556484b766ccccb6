#pragma once

// File helpers shared by the unit, CLI and integration tests.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace kb::test {

/// The bytes of `p`; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A private copy of a records tree under the temp directory, removed on destruction.
struct TempTree {
  std::filesystem::path dir;
  explicit TempTree(const std::filesystem::path& from) {
    static int counter = 0;
    dir = std::filesystem::temp_directory_path() /
          ("kb-tree-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(dir);
    std::filesystem::copy(from, dir, std::filesystem::copy_options::recursive);
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  /// Writes `text` to `rel` and moves its mtime on, so a reload cannot take the file for
  /// unchanged.
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << text;
    std::filesystem::last_write_time(
        dir / rel, std::filesystem::last_write_time(dir / rel) + std::chrono::seconds(5));
  }
  std::string read(const std::string& rel) const { return read_file(dir / rel); }
};

}  // namespace kb::test
