#pragma once

// Open descriptors shared by the reader (file_read.cpp) and the guarded writer
// (atomic_write.cpp) of files kb did not write. Private to kb_core.

#include <unistd.h>

#include <filesystem>
#include <utility>

#include "kb/file_read.h"

namespace kb {

/// Owns an open descriptor; closes it on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

/// read_file, keeping the file open in `held` when the read succeeded: while it is held
/// its inode cannot be freed, so no other file can take its (device, inode) number.
FileRead read_file_held(const std::filesystem::path& path, const ReadPolicy& policy, Fd& held);

}  // namespace kb
