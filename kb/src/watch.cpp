#include "watch.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace kb {
namespace fs = std::filesystem;
namespace {

constexpr std::uint32_t kDirMask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
                                   IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

// Editors write swap and backup files beside the one they save; only record files and
// directories can change what the corpus loads.
bool relevant_name(std::string_view name) {
  if (name.empty()) return true;
  if (name.front() == '.') return false;
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  return ends(".yaml") || ends(".yml");
}

}  // namespace

DirWatcher::DirWatcher(fs::path root, bool force_polling) : root_(std::move(root)) {
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (force_polling) return;
  inotify_fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_fd_ < 0) {
    fall_back(std::string("inotify unavailable: ") + std::strerror(errno));
    return;
  }
  add_tree(root_);
}

DirWatcher::~DirWatcher() {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

void DirWatcher::fall_back(const std::string& reason) {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  inotify_fd_ = -1;
  dirs_.clear();
  fallback_reason_ = reason;
}

void DirWatcher::add_tree(const fs::path& dir) {
  if (inotify_fd_ < 0) return;
  int wd = ::inotify_add_watch(inotify_fd_, dir.c_str(), kDirMask);
  if (wd < 0) {
    // The directory may have gone again already; running out of watches is fatal to
    // inotify mode (ENOSPC: fs.inotify.max_user_watches).
    if (errno == ENOENT || errno == ENOTDIR) return;
    fall_back("cannot watch '" + dir.string() + "': " + std::strerror(errno));
    return;
  }
  dirs_[wd] = dir;
  std::error_code ec;
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename().string();
    if (name.empty() || name.front() == '.') continue;
    if (it->is_directory(ec) && !it->is_symlink(ec)) add_tree(it->path());
    if (inotify_fd_ < 0) return;
  }
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
    for (ssize_t off = 0; off < len;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf.data() + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      std::string_view name = ev->len ? std::string_view(ev->name) : std::string_view();
      if (ev->mask & IN_Q_OVERFLOW) {
        changed = true;
        rescan_ = true;
        add_tree(root_);  // watches for directories created while events were lost
        continue;
      }
      auto dir = dirs_.find(ev->wd);
      if (ev->mask & IN_IGNORED) {
        if (dir != dirs_.end()) dirs_.erase(dir);
        continue;
      }
      if ((ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) && dir != dirs_.end() &&
          dir->second == root_) {
        fall_back("the watched directory '" + root_.string() + "' was removed or moved");
        return true;
      }
      if ((ev->mask & IN_ISDIR) && (ev->mask & (IN_CREATE | IN_MOVED_TO)) && dir != dirs_.end() &&
          !name.empty() && name.front() != '.') {
        add_tree(dir->second / std::string(name));
        if (inotify_fd_ < 0) return true;
        changed = true;
        rescan_ = true;
        continue;
      }
      if ((ev->mask & IN_ISDIR) || name.empty()) {
        changed = rescan_ = true;
      } else if (relevant_name(name)) {
        changed = true;
        if (dir == dirs_.end()) {
          rescan_ = true;
        } else {
          changed_.insert((dir->second / std::string(name)).lexically_relative(root_).generic_string());
        }
      }
    }
  }
  return changed;
}

WatchEvent DirWatcher::wait(std::chrono::milliseconds timeout, std::chrono::milliseconds quiet) {
  if (inotify_fd_ < 0) {
    return poll_once(timeout) < 0 ? WatchEvent::stopped : WatchEvent::changed;
  }
  int rc = poll_once(timeout);
  if (rc < 0) return WatchEvent::stopped;
  if (rc == 0) return WatchEvent::timeout;
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
