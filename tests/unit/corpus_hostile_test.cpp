// A tree edited by someone hostile while it is reloaded: a record file swapped for a link
// to a FIFO between the scan and the read must be a diagnostic, never a reload that
// blocks for good.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>

#include "kb/corpus.h"

namespace fs = std::filesystem;

TEST_CASE("a record swapped for a link to a FIFO mid-reload is file.not-regular",
          "[corpus][reload][hostile]") {
  // Before: scan() saw a regular file, then load_file() reopened the path with an
  // ifstream that followed the new link and blocked on the FIFO (here a helper thread
  // keeps opening the FIFO for writing, so the old code read it empty instead of hanging).
  kb::test::TempTree t(fs::path(KB_TEST_DATA) / "serve" / "records");
  const fs::path fifo = t.dir.string() + "-fifo";
  fs::remove(fifo);
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string rel = "gotchas/beta-major.yaml";
  const fs::path file = t.dir / rel;
  const std::string good = t.read(rel);
  auto prev = kb::Corpus::load(t.dir);

  std::atomic<bool> done{false};
  std::thread unblock([&] {
    while (!done) {
      const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd >= 0) ::close(fd);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  std::thread swap([&] {
    const fs::path tmp = t.dir / "gotchas/.swap";
    for (int i = 0; !done; ++i) {
      fs::remove(tmp);
      if (i % 2) {
        fs::create_symlink(fifo, tmp);
      } else {
        std::ofstream(tmp, std::ios::binary) << good;
      }
      fs::rename(tmp, file);
    }
  });
  int not_regular = 0;
  int read_through = 0;
  std::string other;
  for (int i = 0; i < 3000 && not_regular < 5; ++i) {
    auto next = kb::Corpus::reload(*prev, {});
    for (const auto& d : next->diagnostics()) {
      if (d.file != rel) continue;
      if (d.code == "file.not-regular") {
        ++not_regular;
      } else {
        ++read_through;
        other = d.code + ": " + d.message;
      }
    }
  }
  done = true;
  swap.join();
  unblock.join();
  fs::remove(fifo);
  INFO(other);
  CHECK(read_through == 0);
  CHECK(not_regular > 0);  // the race was hit: scan saw a file, the read found the link
}

// A file the scan listed and that is deleted before it is read is gone, as if the scan had
// not seen it: before, it stayed in that snapshot as a file that cannot be read (an
// io.read diagnostic, and a share of the content hash that no record in an export has).
// One thread loads the files in path order, so deleting the later file while the earlier
// one is handed over hits the window every time.
TEST_CASE("a file deleted between scan and read is gone, not unreadable",
          "[corpus][reload][hostile]") {
  kb::test::TempTree t(fs::path(KB_TEST_DATA) / "serve" / "records");
  const std::string first = "gotchas/alpha-blocker.yaml";
  const std::string later = "gotchas/beta-major.yaml";
  auto whole = kb::Corpus::load(t.dir);
  REQUIRE(whole->find("gotchas/beta-major") != nullptr);

  kb::LoadOptions opts;
  opts.threads = 1;
  opts.on_loaded = [&](const kb::FileResult& f) {
    if (f.file == first) fs::remove(t.dir / later);
  };
  auto check = [&](const kb::Corpus& c) {
    for (const auto& f : c.files()) CHECK(f->file != later);
    for (const auto& d : c.diagnostics()) CHECK(d.file != later);
    CHECK(c.find("gotchas/beta-major") == nullptr);
    CHECK(c.find("gotchas/alpha-blocker") != nullptr);
    CHECK(c.files().size() + 1 == whole->files().size());
  };

  SECTION("a first load") {
    check(*kb::Corpus::load(t.dir, opts));
  }
  SECTION("a reload of the whole tree") {
    t.write(first, t.read(first) + "\n");
    t.write(later, t.read(later) + "\n");
    check(*kb::Corpus::reload(*whole, opts));
  }
  SECTION("a reload of the paths an event named") {
    t.write(first, t.read(first) + "\n");
    t.write(later, t.read(later) + "\n");
    const std::vector<std::string> only = {first, later};
    auto next = kb::Corpus::reload(*whole, opts, &only);
    check(*next);
    // The same as a corpus loaded from the tree as it is now.
    CHECK(next->content_hash() == kb::Corpus::load(t.dir)->content_hash());
  }
}
