#pragma once

// Polling for a tree inotify cannot watch (DirWatcher's fallback). Private to kb_core.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

namespace kb {

/// Tells whether a tree changed, at little cost while it does not: each look stats the
/// directories only (a save by rename, a new, moved or removed file changes its
/// directory), and every file only when a directory changed or at most every so often
/// (at least 2 s apart, and 50 times as long as the last full look took, so an idle tree
/// costs about 2% of a core at most, whatever its size) for writes in place.
class TreePoller {
 public:
  /// Takes the first full look at `root`.
  explicit TreePoller(std::filesystem::path root);
  /// Whether the tree differs from the last full look.
  bool changed();

 private:
  struct Dir {
    std::string path;
    ino_t ino = 0;
    timespec mtime{};
  };
  /// A fingerprint of every directory and record file, as scan() would list them; fills
  /// `dirs_`.
  std::uint64_t full_look();
  bool dirs_changed() const;

  std::filesystem::path root_;
  std::vector<Dir> dirs_;
  std::uint64_t fingerprint_ = 0;
  std::chrono::steady_clock::time_point next_full_;
};

}  // namespace kb
