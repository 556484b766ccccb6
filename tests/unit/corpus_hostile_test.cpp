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
