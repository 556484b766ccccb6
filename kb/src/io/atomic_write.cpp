#include "kb/atomic_write.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "io/file_descriptor.h"
#include "kb/error.h"

namespace kb {
namespace {

[[noreturn]] void io_error(const std::string& what, const std::filesystem::path& path, int err) {
  throw Error(Errc::io, what + " " + path.string() + ": " + std::strerror(err));
}

// What identifies a file while a descriptor holds it open (device and inode), and what
// shows a write into it (size and modification time; not the change time, which the
// exchange itself moves on).
struct Stamp {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  off_t size = 0;
  timespec mtime{};
  mode_t mode = 0644;

  bool same_file(const Stamp& o) const {
    return exists && o.exists && dev == o.dev && ino == o.ino;
  }
  bool same_content(const Stamp& o) const {
    return same_file(o) && size == o.size && mtime.tv_sec == o.mtime.tv_sec &&
           mtime.tv_nsec == o.mtime.tv_nsec;
  }
};

Stamp stamp_from(const struct stat& st) {
  Stamp s;
  s.exists = true;
  s.dev = st.st_dev;
  s.ino = st.st_ino;
  s.size = st.st_size;
  s.mtime = st.st_mtim;
  s.mode = st.st_mode & 07777;
  return s;
}

Stamp stamp_of(int fd) {
  struct stat st {};
  return fd >= 0 && ::fstat(fd, &st) == 0 ? stamp_from(st) : Stamp{};
}

Stamp stamp_at(const std::filesystem::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? stamp_from(st) : Stamp{};
}

// Owns the temporary file: closes and unlinks it on every path but a successful rename
// (after a link both names exist and the temporary one must still go). After an exchange
// the name holds another file, which only the caller may decide to remove.
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& target)
      : path_((target.parent_path() /
               std::string(".").append(target.filename().string()).append(".tmp-XXXXXX"))
                  .string()) {
    fd_ = ::mkstemp(path_.data());
    if (fd_ < 0) io_error("cannot create a temporary file next to", target, errno);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (owned_) ::unlink(path_.c_str());
  }

  // Writes and syncs; the descriptor stays open until the end, so the file's inode
  // number cannot be taken by another file while it is compared against.
  void write(std::string_view bytes, mode_t mode) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) io_error("cannot write", path_, n < 0 ? errno : EIO);
      done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd_, mode) != 0 || ::fsync(fd_) != 0) io_error("cannot write", path_, errno);
  }

  // Moves the file over `target`; false (errno set) when rename() fails.
  bool rename_to(const std::filesystem::path& target) {
    owned_ = ::rename(path_.c_str(), target.c_str()) != 0;
    return !owned_;
  }

  // Swaps this name's file with `target`'s; 0, or the errno of renameat2.
  int exchange_with(const std::filesystem::path& target) {
    if (::renameat2(AT_FDCWD, path_.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0)
      return errno;
    owned_ = !owned_;
    return 0;
  }

  // Whether the file now at this name is the one write() wrote.
  bool holds_own() const { return stamp_of(fd_).same_file(stamp_at(path_)); }

  // The name holds a file that is not kb's and must not be unlinked by the destructor.
  void disown() { owned_ = false; }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool owned_ = true;  // the name holds our file (unlink it unless it was moved into place)
};

// After a rename or link the directory entry itself must reach the disk too.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// Keeps a file that lost a race beside `path` under a name no loader reads, and says so.
[[noreturn]] void keep_conflict(TempFile& tmp, const std::filesystem::path& path) {
  std::string name = path.string() + ".kb-conflict-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd >= 0) ::close(fd);
  if (fd < 0 || ::rename(tmp.path().c_str(), name.c_str()) != 0) name = tmp.path();
  tmp.disown();
  throw Error(Errc::io, path.string() +
                            " was saved several times while kb replaced it; the "
                            "newest save is in place, an earlier one was kept as " +
                            name);
}

}  // namespace

bool write_atomic(const std::filesystem::path& path, std::string_view bytes, IfExists if_exists) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (if_exists == IfExists::keep && fs::exists(fs::symlink_status(path, ec))) return false;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) io_error("cannot create the directory of", path, ec.value());
  }

  mode_t mode = 0644;
  struct stat st {};
  if (if_exists == IfExists::replace && ::stat(path.c_str(), &st) == 0) mode = st.st_mode & 07777;

  TempFile tmp(path);
  tmp.write(bytes, mode);
  if (if_exists == IfExists::replace) {
    if (!tmp.rename_to(path)) io_error("cannot replace", path, errno);
  } else if (::link(tmp.path().c_str(), path.c_str()) != 0) {
    // link() never replaces an existing file, so one that appeared since the check above
    // is still not overwritten.
    if (errno == EEXIST) return false;
    io_error("cannot create", path, errno);
  }
  sync_directory(path.parent_path());
  return true;
}

ReplaceResult replace_if_unchanged(const std::filesystem::path& path, std::string_view bytes,
                                   std::string_view expected) {
  // Held from here to the end: the file read cannot be freed, so no other file can take
  // its inode number, and "the file at the temporary name is the one read" is a fact.
  Fd held;
  const FileRead now = read_file_held(path, record_file_policy(expected.size()), held);
  if (now.failure || now.bytes != expected) return ReplaceResult::changed;
  const Stamp read = stamp_of(held.get());
  TempFile tmp(path);
  tmp.write(bytes, read.mode);
  if (const int err = tmp.exchange_with(path); err != 0) {
    if (err != EINVAL && err != ENOSYS && err != EOPNOTSUPP) io_error("cannot replace", path, err);
    // No RENAME_EXCHANGE here (an older kernel, some network file systems): the same
    // check as close to the rename as it gets.
    if (!read.same_file(stamp_at(path)) || !read.same_content(stamp_of(held.get())))
      return ReplaceResult::changed;
    if (!tmp.rename_to(path)) io_error("cannot replace", path, errno);
    sync_directory(path.parent_path());
    return ReplaceResult::replaced;
  }
  // The temporary name now holds the file that was at `path` an instant ago: the one read,
  // unless an editor saved in between (or wrote into it in place).
  const Stamp displaced = stamp_at(tmp.path());
  if (read.same_file(displaced) && read.same_content(stamp_of(held.get()))) {
    ::unlink(tmp.path().c_str());
    tmp.disown();
    sync_directory(path.parent_path());
    return ReplaceResult::replaced;
  }
  // The editor's file goes back into place. Held too, to know it again below.
  Fd saved(::open(tmp.path().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (const int err = tmp.exchange_with(path); err != 0) {
    tmp.disown();
    io_error("cannot put back the file saved meanwhile (kept as " + tmp.path() + ") at", path, err);
  }
  if (tmp.holds_own()) {
    sync_directory(path.parent_path());
    return ReplaceResult::changed;  // the destructor removes the new bytes
  }
  // A second save replaced ours in the instant between the two exchanges: it is newer
  // than the one just put back, so it goes into place, and the older one, which that save
  // superseded, is dropped if it is still the one put back.
  tmp.disown();
  if (!saved || tmp.exchange_with(path) != 0 ||
      !stamp_of(saved.get()).same_file(stamp_at(tmp.path()))) {
    keep_conflict(tmp, path);
  }
  ::unlink(tmp.path().c_str());
  tmp.disown();
  sync_directory(path.parent_path());
  return ReplaceResult::changed;
}

}  // namespace kb
