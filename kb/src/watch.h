#pragma once

// Waits for changes under a directory tree: inotify on every directory (new directories
// are added as they appear), or plain polling when inotify is unavailable or runs out
// of watches. Private to kb_core.

#include <chrono>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace kb {

/// What DirWatcher::wait saw.
enum class WatchEvent { changed, timeout, stopped };

/// Watches one tree for record file changes.
class DirWatcher {
 public:
  /// Starts watching `root`; falls back to polling when `force_polling` or inotify fails.
  DirWatcher(std::filesystem::path root, bool force_polling);
  ~DirWatcher();
  DirWatcher(const DirWatcher&) = delete;
  DirWatcher& operator=(const DirWatcher&) = delete;

  /// Blocks until a change settled (no further event for `quiet`), `timeout` passed, or
  /// stop() was called. When polling, every timeout counts as a possible change.
  WatchEvent wait(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet);
  /// The record files (relative to the root, '/'-separated) that events named since the
  /// last call; nullopt when only a full rescan can tell what changed: polling, lost
  /// events, a directory created, moved or removed.
  std::optional<std::vector<std::string>> take_changes();
  /// Wakes wait() for good; safe from any thread.
  void stop();
  /// Whether inotify is in use (false: polling).
  bool uses_inotify() const { return inotify_fd_ >= 0; }
  /// Why it polls, when it does and inotify failed; empty otherwise.
  const std::string& fallback_reason() const { return fallback_reason_; }

 private:
  void add_tree(const std::filesystem::path& dir);
  void fall_back(const std::string& reason);
  /// Reads pending events; true when one concerns record files or directories.
  bool drain();
  /// Polls the inotify and stop descriptors; >0 readable inotify, 0 timeout, <0 stopped.
  int poll_once(std::chrono::milliseconds timeout);

  std::filesystem::path root_;
  int inotify_fd_ = -1;
  int stop_fd_ = -1;
  std::unordered_map<int, std::filesystem::path> dirs_;  ///< watch descriptor -> directory
  std::string fallback_reason_;
  std::set<std::string> changed_;  ///< record files named by events since take_changes()
  bool rescan_ = false;            ///< events were lost: only a full scan can tell
};

}  // namespace kb
