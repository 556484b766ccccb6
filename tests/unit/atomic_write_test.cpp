#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "kb/atomic_write.h"
#include "kb/error.h"
#include "test_files.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("kb-atomic-write-" + std::to_string(::getpid()));
  TempDir() { fs::remove_all(dir); }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};

unsigned mode_of(const fs::path& p) {
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("write_atomic creates directories and new files readable by all", "[atomic_write]") {
  TempDir t;
  const fs::path path = t.dir / "gotchas" / "x.yaml";
  CHECK(kb::write_atomic(path, "one\n", kb::IfExists::keep));
  CHECK(kb::test::read_file(path) == "one\n");
  CHECK(mode_of(path) == 0644);
}

TEST_CASE("write_atomic replaces a file and keeps its permissions", "[atomic_write]") {
  TempDir t;
  const fs::path path = t.dir / "x.yaml";
  CHECK(kb::write_atomic(path, "one\n", kb::IfExists::keep));
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  CHECK(kb::write_atomic(path, "two\n", kb::IfExists::replace));
  CHECK(kb::test::read_file(path) == "two\n");
  CHECK(mode_of(path) == 0600);
  CHECK(t.names() == std::vector<std::string>{"x.yaml"});
}

TEST_CASE("write_atomic with IfExists::keep leaves an existing file alone", "[atomic_write]") {
  TempDir t;
  const fs::path path = t.dir / "x.yaml";
  CHECK(kb::write_atomic(path, "one\n", kb::IfExists::keep));
  CHECK_FALSE(kb::write_atomic(path, "two\n", kb::IfExists::keep));
  CHECK(kb::test::read_file(path) == "one\n");
  CHECK(t.names() == std::vector<std::string>{"x.yaml"});
}

TEST_CASE("write_atomic removes its temporary file when the rename fails", "[atomic_write]") {
  TempDir t;
  const fs::path path = t.dir / "x.yaml";
  fs::create_directories(path / "inner");
  try {
    kb::write_atomic(path, "one\n", kb::IfExists::replace);
    FAIL("no error thrown");
  } catch (const kb::Error& e) {
    CHECK(e.code() == kb::Errc::io);
    CHECK(std::string(e.what()).starts_with("cannot replace " + path.string() + ": "));
  }
  CHECK(t.names() == std::vector<std::string>{"x.yaml"});
  CHECK(fs::is_directory(path / "inner"));
}

TEST_CASE("replace_if_unchanged replaces the file read, keeping its permissions",
          "[atomic_write]") {
  TempDir t;
  const fs::path path = t.dir / "x.yaml";
  REQUIRE(kb::write_atomic(path, "one\n", kb::IfExists::keep));
  REQUIRE(::chmod(path.c_str(), 0600) == 0);
  CHECK(kb::replace_if_unchanged(path, "two\n", "one\n") == kb::ReplaceResult::replaced);
  CHECK(kb::test::read_file(path) == "two\n");
  CHECK(mode_of(path) == 0600);
  CHECK(t.names() == std::vector<std::string>{"x.yaml"});
}

TEST_CASE("replace_if_unchanged never overwrites a save made after the read", "[atomic_write]") {
  TempDir t;
  const fs::path path = t.dir / "x.yaml";
  REQUIRE(kb::write_atomic(path, "one\n", kb::IfExists::keep));
  // An editor's atomic save, of the same size: a new file renamed over the one read.
  REQUIRE(kb::write_atomic(t.dir / "editor.tmp", "uno\n", kb::IfExists::keep));
  fs::rename(t.dir / "editor.tmp", path);
  CHECK(kb::replace_if_unchanged(path, "two\n", "one\n") == kb::ReplaceResult::changed);
  CHECK(kb::test::read_file(path) == "uno\n");
  CHECK(t.names() == std::vector<std::string>{"x.yaml"});
  // A link put in the file's place is not the file read either.
  fs::remove(path);
  fs::create_symlink(t.dir / "elsewhere", path);
  CHECK(kb::replace_if_unchanged(path, "two\n", "uno\n") == kb::ReplaceResult::changed);
  CHECK(fs::is_symlink(path));
  fs::remove(path);
  CHECK(kb::replace_if_unchanged(path, "two\n", "uno\n") == kb::ReplaceResult::changed);
  CHECK_FALSE(fs::exists(path));
}
