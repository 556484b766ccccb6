#pragma once

// Waits for changes under a directory tree: inotify on every directory (new directories
// are added as they appear, directories moved away are dropped) and on the root's parent,
// so a root that is moved or deleted and comes back is watched again; or, when inotify is
// unavailable or runs out of watches, polling (watch_poll.h) that reports a change only
// when something differs. Private to kb_core.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "live/watch_poll.h"

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
  /// stop() was called. When polling, `timeout` is the interval between looks at the tree.
  WatchEvent wait(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet);
  /// What events named since the last call, relative to the root and '/'-separated:
  /// record files, and directories (ending in '/') whose whole content may have changed
  /// (moved in, moved away, deleted). nullopt when only a full rescan can tell: polling,
  /// lost events, the root replaced.
  std::optional<std::vector<std::string>> take_changes();
  /// Wakes wait() for good; safe from any thread.
  void stop();
  /// Whether inotify is in use (false: polling).
  bool uses_inotify() const { return inotify_fd_ >= 0; }
  /// Whether the root is being watched (false while it is gone).
  bool watching_root() const { return root_wd_ >= 0; }
  /// Why it polls, when it does and inotify failed; empty otherwise.
  const std::string& fallback_reason() const { return fallback_reason_; }

 private:
  void add_tree(const std::filesystem::path& dir);
  void watch_parent();
  /// Drops the watches of `dir` and every directory under it.
  void forget_tree(const std::filesystem::path& dir);
  /// Drops every watch of the tree after the root went; re-attaches if it is back already.
  void root_gone();
  /// Watches the root again if a directory stands at its path; true when it does.
  bool reattach();
  void fall_back(const std::string& reason);
  /// Reads pending events; true when one concerns record files or directories.
  bool drain();
  /// Polls the inotify and stop descriptors; >0 readable inotify, 0 timeout, <0 stopped.
  int poll_once(std::chrono::milliseconds timeout);
  std::string relative(const std::filesystem::path& p) const;

  std::filesystem::path root_;
  std::filesystem::path parent_;  ///< the root's parent directory, absolute
  std::string root_name_;         ///< the root's last path component
  int inotify_fd_ = -1;
  int stop_fd_ = -1;
  int root_wd_ = -1;    ///< -1 while the root is gone
  int parent_wd_ = -1;  ///< -1 when the parent cannot be watched (then the root is polled)
  ino_t root_ino_ = 0;
  dev_t root_dev_ = 0;
  std::unordered_map<int, std::filesystem::path> dirs_;  ///< watch descriptor -> directory
  std::string fallback_reason_;
  std::set<std::string> changed_;       ///< files and directories named since take_changes()
  bool rescan_ = false;                 ///< only a full scan can tell what changed
  std::unique_ptr<TreePoller> poller_;  ///< when polling
};

}  // namespace kb
