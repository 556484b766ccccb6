#include "live/watch_poll.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

namespace kb {
namespace {

bool record_name(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  return ends(".yaml") || ends(".yml");
}

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ULL) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

bool same_time(const timespec& a, const timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

}  // namespace

TreePoller::TreePoller(std::filesystem::path root) : root_(std::move(root)) {
  fingerprint_ = full_look();
}

// One fstatat per entry and no path objects. Entries are summed, so the order readdir
// returns them in does not matter.
std::uint64_t TreePoller::full_look() {
  const auto start = std::chrono::steady_clock::now();
  dirs_.clear();
  struct stat st {};
  std::uint64_t sum = 0;
  if (::stat(root_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    sum = 1;
    dirs_.push_back({root_.string(), st.st_ino, st.st_mtim});
    for (std::size_t next = 0; next < dirs_.size(); ++next) {
      const std::string dir = dirs_[next].path;
      DIR* d = ::opendir(dir.c_str());
      if (d == nullptr) continue;
      while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name.empty() || name.front() == '.') continue;
        if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        const bool is_dir = S_ISDIR(st.st_mode);
        if (!is_dir && !record_name(name)) continue;
        std::string path = dir;
        path += '/';
        path += name;
        char meta[64];
        std::snprintf(meta, sizeof meta, "|%o|%llu|%lld|%lld.%ld",
                      static_cast<unsigned>(st.st_mode), static_cast<unsigned long long>(st.st_ino),
                      static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                      st.st_mtim.tv_nsec);
        sum += fnv1a(meta, fnv1a(path));
        if (is_dir) dirs_.push_back({std::move(path), st.st_ino, st.st_mtim});
      }
      ::closedir(d);
    }
  }
  const auto now = std::chrono::steady_clock::now();
  next_full_ = now + std::max<std::chrono::steady_clock::duration>(std::chrono::seconds(2),
                                                                   (now - start) * 50);
  return sum;
}

bool TreePoller::dirs_changed() const {
  struct stat st {};
  for (const auto& d : dirs_) {
    if (::stat(d.path.c_str(), &st) != 0 || st.st_ino != d.ino || !same_time(st.st_mtim, d.mtime))
      return true;
  }
  // A root that was missing may have come back.
  return dirs_.empty() && ::stat(root_.c_str(), &st) == 0;
}

bool TreePoller::changed() {
  if (!dirs_changed() && std::chrono::steady_clock::now() < next_full_) return false;
  const std::uint64_t now = full_look();
  if (now == fingerprint_) return false;
  fingerprint_ = now;
  return true;
}

}  // namespace kb
