// read_file: the one way kb reads files it did not write. Never blocks on a FIFO, never
// reads a device without end, never follows a link where a record file should be.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "kb/file_read.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path dir = fs::temp_directory_path() / ("kb-file-read-" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  }
};

}  // namespace

TEST_CASE("read_file reads a regular file whole, up to its limit", "[file_read]") {
  TempDir t;
  const auto p = t.write("x.yaml", "title: x\n");
  auto r = kb::read_file(p, kb::record_file_policy(100));
  REQUIRE_FALSE(r.failure);
  CHECK(r.bytes == "title: x\n");
  CHECK(r.size == 9);

  auto exact = kb::read_file(p, kb::record_file_policy(9));
  REQUIRE_FALSE(exact.failure);
  CHECK(exact.bytes == "title: x\n");
  auto over = kb::read_file(p, kb::record_file_policy(8));
  REQUIRE(over.failure == kb::ReadFailure::too_large);
  CHECK(over.bytes.empty());
  auto d = kb::read_diagnostic(over, "gotchas/x.yaml", 8);
  CHECK(d.code == "limits.file-size");
  CHECK(d.message == "file is 9 bytes; the limit is 8");
}

TEST_CASE("read_file refuses a link to a FIFO at once instead of blocking", "[file_read]") {
  // Before: the loader reopened a record path with std::ifstream, which followed the link
  // and blocked in open() until a writer came, for good.
  TempDir t;
  const fs::path fifo = t.dir / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0644) == 0);
  fs::create_symlink(fifo, t.dir / "x.yaml");
  auto linked = kb::read_file(t.dir / "x.yaml", kb::record_file_policy(100));
  REQUIRE(linked.failure == kb::ReadFailure::not_regular);
  CHECK(linked.detail == "a symbolic link");
  auto direct = kb::read_file(fifo, kb::record_file_policy(100));
  REQUIRE(direct.failure == kb::ReadFailure::not_regular);
  CHECK(direct.detail == "a FIFO");
  auto d = kb::read_diagnostic(direct, "gotchas/x.yaml", 100);
  CHECK(d.code == "file.not-regular");
  CHECK(d.message == "the file is a FIFO, not a regular file");
  CHECK_FALSE(d.hint.empty());
}

TEST_CASE("read_file never reads a device without end", "[file_read]") {
  auto strict = kb::read_file("/dev/zero", kb::record_file_policy(1000));
  REQUIRE(strict.failure == kb::ReadFailure::not_regular);
  CHECK(strict.detail == "a character device");
  // A named input may be a pipe or device, but is still read up to the limit + 1 only.
  auto named = kb::read_file("/dev/zero", kb::named_input_policy(1000));
  REQUIRE(named.failure == kb::ReadFailure::too_large);
  CHECK(named.detail == "more than 1000 bytes");
}

TEST_CASE("read_file names directories, missing files and links it may follow", "[file_read]") {
  TempDir t;
  auto dir = kb::read_file(t.dir, kb::record_file_policy(100));
  REQUIRE(dir.failure == kb::ReadFailure::not_regular);
  CHECK(dir.detail == "a directory");
  auto missing = kb::read_file(t.dir / "nope.yaml", kb::record_file_policy(100));
  REQUIRE(missing.failure == kb::ReadFailure::missing);
  CHECK(kb::read_diagnostic(missing, "nope.yaml", 100).code == "io.read");
  CHECK(kb::read_failure_text(missing, 100) == "no such file");

  const auto target = t.write("real.xml", "<testsuite/>");
  fs::create_symlink(target, t.dir / "report.xml");
  auto followed = kb::read_file(t.dir / "report.xml", kb::named_input_policy(100));
  REQUIRE_FALSE(followed.failure);
  CHECK(followed.bytes == "<testsuite/>");
  CHECK(kb::read_file(t.dir / "report.xml", kb::record_file_policy(100)).failure ==
        kb::ReadFailure::not_regular);
}
