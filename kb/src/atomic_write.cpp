#include "atomic_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "kb/error.h"

namespace kb {
namespace {

[[noreturn]] void io_error(const std::string& what, const std::filesystem::path& path, int err) {
  throw Error(Errc::io, what + " " + path.string() + ": " + std::strerror(err));
}

// Owns the temporary file: closes and unlinks it on every path but a successful rename
// (after a link both names exist and the temporary one must still go).
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
    if (!renamed_) ::unlink(path_.c_str());
  }

  void write(std::string_view bytes, mode_t mode) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) io_error("cannot write", path_, n < 0 ? errno : EIO);
      done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd_, mode) != 0 || ::fsync(fd_) != 0) io_error("cannot write", path_, errno);
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) io_error("cannot write", path_, errno);
  }

  // Moves the file over `target`; false (errno set) when rename() fails.
  bool rename_to(const std::filesystem::path& target) {
    renamed_ = ::rename(path_.c_str(), target.c_str()) == 0;
    return renamed_;
  }

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  bool renamed_ = false;
};

// After a rename or link the directory entry itself must reach the disk too.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool write_atomic(const std::filesystem::path& path, std::string_view bytes, IfExists if_exists) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (if_exists == IfExists::keep && fs::exists(path, ec)) return false;
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

}  // namespace kb
