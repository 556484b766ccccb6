// DirWatcher: back on inotify when the root is swapped, directories moved in or away
// named as prefixes (no full rescan), and polling that costs nothing while idle.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <chrono>
#include <filesystem>

#include "live/watch.h"

namespace fs = std::filesystem;
using std::chrono::milliseconds;

namespace {

const fs::path kFixture = fs::path(KB_TEST_DATA) / "serve" / "records";

struct Tree : kb::test::TempTree {
  Tree() : TempTree(kFixture) {}
  // A sibling of the tree, removed with it.
  fs::path beside(const std::string& tag) const { return dir.string() + "-" + tag; }
  ~Tree() {
    std::error_code ec;
    for (const char* tag : {"old", "new", "away"}) fs::remove_all(beside(tag), ec);
  }
};

kb::WatchEvent settle(kb::DirWatcher& w, milliseconds timeout = milliseconds(3000)) {
  return w.wait(timeout, milliseconds(50));
}

void append(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::app) << text;
}

}  // namespace

TEST_CASE("a root moved away and replaced is watched again with inotify", "[watch][reload]") {
  // Before: the watcher fell back to polling for good once the root moved.
  Tree t;
  kb::DirWatcher w(t.dir, false);
  REQUIRE(w.uses_inotify());
  fs::rename(t.dir, t.beside("old"));
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK_FALSE(w.take_changes());  // the tree at the root's path is gone: rescan
  CHECK(w.uses_inotify());
  CHECK_FALSE(w.watching_root());
  // The tree that moved away is watched no more.
  append(t.beside("old") / "gotchas/beta-major.yaml", "notes: old\n");
  CHECK(settle(w, milliseconds(300)) == kb::WatchEvent::timeout);

  fs::copy(kFixture, t.beside("new"), fs::copy_options::recursive);
  fs::rename(t.beside("new"), t.dir);
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK_FALSE(w.take_changes());  // a new tree: rescan once
  CHECK(w.uses_inotify());
  CHECK(w.watching_root());
  // Every directory of the new tree is watched.
  append(t.dir / "engines/vllm.yaml", "notes: new\n");
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK(w.take_changes() == std::vector<std::string>{"engines/vllm.yaml"});
}

TEST_CASE("a root deleted and created again is watched again", "[watch][reload]") {
  Tree t;
  kb::DirWatcher w(t.dir, false);
  fs::remove_all(t.dir);
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  w.take_changes();
  CHECK_FALSE(w.watching_root());
  fs::create_directories(t.dir / "gotchas");
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK_FALSE(w.take_changes());
  CHECK(w.watching_root());
  t.write("gotchas/x.yaml", "title: x\n");
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK(w.take_changes() == std::vector<std::string>{"gotchas/x.yaml"});
}

TEST_CASE("a directory moved away or in is named as a prefix, not a rescan", "[watch][reload]") {
  // Before: any directory event asked for a full rescan of the tree.
  Tree t;
  kb::DirWatcher w(t.dir, false);
  fs::rename(t.dir / "gotchas", t.beside("away"));
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK(w.take_changes() == std::vector<std::string>{"gotchas/"});
  // Its watches went with it: an edit there is no change here.
  append(t.beside("away") / "beta-major.yaml", "notes: away\n");
  CHECK(settle(w, milliseconds(300)) == kb::WatchEvent::timeout);

  fs::rename(t.beside("away"), t.dir / "gotchas");
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK(w.take_changes() == std::vector<std::string>{"gotchas/"});
  append(t.dir / "gotchas/beta-major.yaml", "notes: back\n");
  REQUIRE(settle(w) == kb::WatchEvent::changed);
  CHECK(w.take_changes() == std::vector<std::string>{"gotchas/beta-major.yaml"});

  // Hidden directories are never loaded, so they are never a change.
  fs::create_directories(t.dir / ".git" / "objects");
  append(t.dir / ".git/objects/x.yaml", "x");
  CHECK(settle(w, milliseconds(300)) == kb::WatchEvent::timeout);
}

TEST_CASE("polling reports a change only when the tree differs, cheaply", "[watch][reload]") {
  // Before: every poll counted as a change and cost a full reload (5k files: 144% CPU).
  Tree t;
  kb::DirWatcher w(t.dir, true);
  CHECK_FALSE(w.uses_inotify());
  const auto poll = [&] { return w.wait(milliseconds(20), milliseconds(5)); };
  CHECK(poll() == kb::WatchEvent::timeout);
  CHECK(poll() == kb::WatchEvent::timeout);
  // A save by rename changes the directory: seen at the next look.
  std::ofstream(t.dir / "gotchas/.beta-major.yaml.tmp") << "title: saved\n";
  fs::rename(t.dir / "gotchas/.beta-major.yaml.tmp", t.dir / "gotchas/beta-major.yaml");
  CHECK(poll() == kb::WatchEvent::changed);
  CHECK_FALSE(w.take_changes());
  CHECK(poll() == kb::WatchEvent::timeout);
  // A write in place does not change the directory: seen at the next full look, which
  // comes every 2 s at most for a tree this small.
  append(t.dir / "engines/vllm.yaml", "notes: in place\n");
  int looks = 0;
  while (poll() != kb::WatchEvent::changed && ++looks < 1000) {
  }
  CHECK(looks < 1000);
  CHECK(poll() == kb::WatchEvent::timeout);
  fs::rename(t.dir / "gotchas", t.beside("away"));
  CHECK(poll() == kb::WatchEvent::changed);
}
