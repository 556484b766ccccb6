#include "live/watch.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <system_error>

namespace kb {
namespace fs = std::filesystem;
namespace {

constexpr std::uint32_t kDirMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
                                   IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
// On the root's parent: only the root's name arriving again matters.
constexpr std::uint32_t kParentMask = IN_CREATE | IN_MOVED_TO | IN_ONLYDIR;

bool record_name(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  return ends(".yaml") || ends(".yml");
}

// Editors write swap and backup files beside the one they save; only record files and
// directories can change what the corpus loads, and nothing hidden is ever loaded.
bool relevant_name(std::string_view name) {
  return !name.empty() && name.front() != '.' && record_name(name);
}

}  // namespace

DirWatcher::DirWatcher(fs::path root, bool force_polling) : root_(std::move(root)) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (force_polling) {
    poller_ = std::make_unique<TreePoller>(root_);
    return;
  }
  inotify_fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_fd_ < 0) {
    fall_back(std::string("inotify unavailable: ") + std::strerror(errno));
    return;
  }
  watch_parent();
  reattach();
  rescan_ = false;
}

DirWatcher::~DirWatcher() {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void DirWatcher::fall_back(const std::string& reason) {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  inotify_fd_ = -1;
  root_wd_ = parent_wd_ = -1;
  dirs_.clear();
  fallback_reason_ = reason;
  poller_ = std::make_unique<TreePoller>(root_);
}

std::string DirWatcher::relative(const fs::path& p) const {
  return p.lexically_relative(root_).generic_string();
}

void DirWatcher::watch_parent() {
  fs::path abs = fs::absolute(root_).lexically_normal();
  if (!abs.has_filename()) abs = abs.parent_path();
  root_name_ = abs.filename().string();
  parent_ = abs.parent_path();
  if (root_name_.empty() || parent_ == abs) return;  // "/" has no parent to watch
  parent_wd_ = ::inotify_add_watch(inotify_fd_, parent_.c_str(), kParentMask);
}

// Iterative: a tree may nest deeper than a thread's stack would like.
void DirWatcher::add_tree(const fs::path& top) {
  std::vector<fs::path> todo{top};
  while (!todo.empty() && inotify_fd_ >= 0) {
    const fs::path dir = std::move(todo.back());
    todo.pop_back();
    const int wd = ::inotify_add_watch(inotify_fd_, dir.c_str(), kDirMask);
    if (wd < 0) {
      // The directory may have gone again already; running out of watches is fatal to
      // inotify mode (ENOSPC: fs.inotify.max_user_watches).
      if (errno == ENOENT || errno == ENOTDIR) continue;
      fall_back("cannot watch '" + dir.string() + "': " + std::strerror(errno));
      return;
    }
    if (dir == root_) root_wd_ = wd;
    dirs_[wd] = dir;
    std::error_code ec;
    for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
         !ec && it != end; it.increment(ec)) {
      const auto name = it->path().filename().string();
      if (name.empty() || name.front() == '.') continue;
      if (it->is_directory(ec) && !it->is_symlink(ec)) todo.push_back(it->path());
    }
  }
}

void DirWatcher::forget_tree(const fs::path& dir) {
  const std::string prefix = dir.string() + "/";
  for (auto it = dirs_.begin(); it != dirs_.end();) {
    const std::string& p = it->second.native();
    if (p == dir.native() || p.starts_with(prefix)) {
      ::inotify_rm_watch(inotify_fd_, it->first);
      it = dirs_.erase(it);
    } else {
      ++it;
    }
  }
}

void DirWatcher::root_gone() {
  // The watches follow the directories, wherever they went: events from a tree moved
  // away must not pass for changes under the root's path.
  for (const auto& [wd, dir] : dirs_) ::inotify_rm_watch(inotify_fd_, wd);
  dirs_.clear();
  root_wd_ = -1;
  rescan_ = true;
  reattach();
}

bool DirWatcher::reattach() {
  struct stat st {};
  if (::stat(root_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  add_tree(root_);
  if (root_wd_ < 0) return false;
  root_dev_ = st.st_dev;
  root_ino_ = st.st_ino;
  rescan_ = true;
  return true;
}

int DirWatcher::poll_once(std::chrono::milliseconds timeout) {
  std::array<pollfd, 2> fds{};
  fds[0] = {stop_fd_, POLLIN, 0};
  fds[1] = {inotify_fd_, POLLIN, 0};
  const nfds_t n = inotify_fd_ >= 0 ? 2 : 1;
  int rc = ::poll(fds.data(), n, static_cast<int>(timeout.count()));
  if (rc < 0) return errno == EINTR ? 0 : -1;
  if (fds[0].revents) return -1;
  return n == 2 && fds[1].revents ? 1 : 0;
}

bool DirWatcher::drain() {
  alignas(inotify_event) std::array<char, 64 * 1024> buf;
  bool changed = false;
  for (;;) {
    ssize_t len = ::read(inotify_fd_, buf.data(), buf.size());
    if (len <= 0) break;
    for (ssize_t off = 0; off < len && inotify_fd_ >= 0;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf.data() + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      const std::string_view name = ev->len ? std::string_view(ev->name) : std::string_view();
      if (ev->mask & IN_Q_OVERFLOW) {
        changed = rescan_ = true;
        if (root_wd_ >= 0) {
          add_tree(root_);  // watches for directories created while events were lost
        } else {
          reattach();
        }
        continue;
      }
      if (ev->wd == parent_wd_) {
        if (ev->mask & IN_IGNORED) {
          parent_wd_ = -1;
        } else if (name == root_name_) {
          // A directory arrived under the root's name: moved back, or a link swapped to
          // another tree. Either way the tree at the root's path is not the one watched.
          struct stat st {};
          const bool same = root_wd_ >= 0 && ::stat(root_.c_str(), &st) == 0 &&
                            st.st_ino == root_ino_ && st.st_dev == root_dev_;
          if (!same) {
            if (root_wd_ >= 0) {
              root_gone();
            } else {
              reattach();
            }
            changed = true;
          }
        }
        continue;
      }
      if (ev->wd == root_wd_ && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED))) {
        root_gone();
        changed = true;
        continue;
      }
      auto dir = dirs_.find(ev->wd);
      if (dir == dirs_.end()) continue;  // a watch dropped with a tree that moved away
      if (ev->mask & IN_IGNORED) {
        dirs_.erase(dir);
        continue;
      }
      // A subdirectory's own move or deletion is named by its parent's event.
      if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) continue;
      if (name.empty()) {
        changed = rescan_ = true;
        continue;
      }
      if (name.front() == '.') continue;
      const fs::path path = dir->second / std::string(name);
      if (ev->mask & IN_ISDIR) {
        if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
          add_tree(path);
        } else if (ev->mask & (IN_MOVED_FROM | IN_DELETE)) {
          forget_tree(path);
        }
        changed_.insert(relative(path) + "/");
        changed = true;
      } else if (relevant_name(name)) {
        changed_.insert(relative(path));
        changed = true;
      }
    }
  }
  return changed;
}

WatchEvent DirWatcher::wait(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet) {
  if (inotify_fd_ < 0) {
    if (poll_once(timeout) < 0) return WatchEvent::stopped;
    return poller_->changed() ? WatchEvent::changed : WatchEvent::timeout;
  }
  // Without a watch on its parent, a root that went is looked for once per timeout.
  const bool look_for_root = root_wd_ < 0 && parent_wd_ < 0;
  int rc = poll_once(timeout);
  if (rc < 0) return WatchEvent::stopped;
  if (rc == 0) {
    return look_for_root && reattach() ? WatchEvent::changed : WatchEvent::timeout;
  }
  bool changed = drain();
  // Debounce: a save is often several events (truncate, write, rename); wait until the
  // tree is quiet, but never longer than four quiet periods, so a constant writer still
  // gets its edits picked up.
  auto deadline = std::chrono::steady_clock::now() + quiet * 4;
  while (inotify_fd_ >= 0 && std::chrono::steady_clock::now() < deadline) {
    rc = poll_once(quiet);
    if (rc < 0) return WatchEvent::stopped;
    if (rc == 0) {
      if (changed) break;
      return WatchEvent::timeout;
    }
    changed = drain() || changed;
  }
  return changed || inotify_fd_ < 0 ? WatchEvent::changed : WatchEvent::timeout;
}

std::optional<std::vector<std::string>> DirWatcher::take_changes() {
  std::optional<std::vector<std::string>> out;
  if (inotify_fd_ >= 0 && !rescan_) out.emplace(changed_.begin(), changed_.end());
  changed_.clear();
  rescan_ = false;
  return out;
}

void DirWatcher::stop() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(stop_fd_, &one, sizeof one);
}

}  // namespace kb
