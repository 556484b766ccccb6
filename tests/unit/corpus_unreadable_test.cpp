// A folder of the records tree that kb will not enter (a link to a directory) is an
// io.read error on FOLDER/ in a load, a full rescan and a reload told about its parent,
// and goes away with the link: live reloads see the gap appear and close.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <filesystem>

#include "kb/corpus.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(KB_TEST_DATA) / "serve" / "records";

std::vector<std::string> io_errors(const kb::Corpus& c) {
  std::vector<std::string> out;
  for (const auto& d : c.diagnostics()) {
    if (d.code == "io.read") out.push_back(d.file + " " + d.message);
  }
  return out;
}

const std::string kLinked =
    "gotchas/linked/ cannot read the directory: it is a link to a directory, which kb does not "
    "follow in a records tree; the records under it are not loaded";

}  // namespace

TEST_CASE("a link to a folder in the records tree is an error in loads and reloads",
          "[corpus][reload]") {
  kb::test::TempTree t(kFixture);
  const fs::path elsewhere = t.dir.string() + "-elsewhere";
  fs::create_directories(elsewhere);
  auto clean = kb::Corpus::load(t.dir);
  REQUIRE(io_errors(*clean).empty());

  fs::create_directory_symlink(elsewhere, t.dir / "gotchas" / "linked");
  auto loaded = kb::Corpus::load(t.dir);
  CHECK(io_errors(*loaded) == std::vector<std::string>{kLinked});
  CHECK(loaded->records().size() == clean->records().size());
  CHECK(loaded->content_hash() != clean->content_hash());

  const std::vector<std::string> parent{"gotchas/"};
  auto told = kb::Corpus::reload(*clean, {}, &parent);
  CHECK(io_errors(*told) == std::vector<std::string>{kLinked});
  CHECK(told->content_hash() == loaded->content_hash());
  auto rescanned = kb::Corpus::reload(*clean, {});
  CHECK(io_errors(*rescanned) == std::vector<std::string>{kLinked});

  fs::remove(t.dir / "gotchas" / "linked");
  auto closed = kb::Corpus::reload(*told, {}, &parent);
  CHECK(io_errors(*closed).empty());
  CHECK(closed->content_hash() == clean->content_hash());
  fs::remove_all(elsewhere);
}
