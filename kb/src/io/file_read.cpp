#include "kb/file_read.h"
#include "kb/diagnostic_codes.h"

#include "io/file_descriptor.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace kb {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

FileRead failed(ReadFailure why, std::string detail) {
  FileRead r;
  r.failure = why;
  r.detail = std::move(detail);
  return r;
}

bool readable_kind(mode_t mode, const ReadPolicy& policy) {
  return S_ISREG(mode) || (!policy.regular_only && (S_ISFIFO(mode) || S_ISCHR(mode)));
}

}  // namespace

FileRead read_file(const std::filesystem::path& path, const ReadPolicy& policy) {
  Fd fd;
  return read_file_held(path, policy, fd);
}

FileRead read_file_held(const std::filesystem::path& path, const ReadPolicy& policy, Fd& held) {
  // Looked at before it is opened: opening a device can do things (rewind a tape).
  struct stat before {};
  const int looked =
      policy.follow_links ? ::stat(path.c_str(), &before) : ::lstat(path.c_str(), &before);
  if (looked == 0 && !readable_kind(before.st_mode, policy)) {
    return failed(ReadFailure::not_regular, kind_of(before.st_mode));
  }
  int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  if (!policy.follow_links) flags |= O_NOFOLLOW;
  int raw = -1;
  do {
    raw = ::open(path.c_str(), flags);
  } while (raw < 0 && errno == EINTR);
  if (raw < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return failed(ReadFailure::missing, "no such file");
    // O_NOFOLLOW on a link fails with ELOOP; opening a directory read-only succeeds, so
    // EISDIR only comes from odd file systems.
    if (err == ELOOP) return failed(ReadFailure::not_regular, "a symbolic link");
    if (err == EISDIR) return failed(ReadFailure::not_regular, "a directory");
    if (err == ENXIO) return failed(ReadFailure::not_regular, kind_of(S_IFSOCK));
    return failed(ReadFailure::unreadable, std::strerror(err));
  }
  Fd fd(raw);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return failed(ReadFailure::unreadable, std::strerror(errno));
  // Checked again on what was opened: the name may have been swapped since the lstat.
  const bool regular = S_ISREG(st.st_mode);
  if (!readable_kind(st.st_mode, policy))
    return failed(ReadFailure::not_regular, kind_of(st.st_mode));
  FileRead out;
  if (regular) {
    out.size = static_cast<std::uint64_t>(st.st_size);
    if (out.size > policy.max_bytes) {
      out.failure = ReadFailure::too_large;
      out.detail = std::to_string(out.size) + " bytes";
      return out;
    }
  } else {
    // A pipe named on purpose (`<(cmd)`) is read to its end, blocking like any reader.
    ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  }
  // One byte past the limit tells "exactly at the limit" from "too large", whatever
  // fstat said (a file can grow while it is read; /proc and devices report no size).
  const std::size_t want = policy.max_bytes + (policy.max_bytes < SIZE_MAX ? 1 : 0);
  out.bytes.resize(regular ? std::min<std::size_t>(want, out.size + 1) : 64 * 1024);
  std::size_t got = 0;
  for (;;) {
    if (got == out.bytes.size()) {
      if (got >= want) break;
      out.bytes.resize(std::min(want, std::max<std::size_t>(got * 2, 4096)));
    }
    const ssize_t n = ::read(fd.get(), out.bytes.data() + got, out.bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return failed(ReadFailure::unreadable, std::strerror(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.bytes.resize(got);
  if (got > policy.max_bytes) {
    out.bytes.clear();
    out.bytes.shrink_to_fit();
    out.failure = ReadFailure::too_large;
    out.detail = "more than " + std::to_string(policy.max_bytes) + " bytes";
    return out;
  }
  held = std::move(fd);
  return out;
}

std::string read_failure_text(const FileRead& read, std::size_t max_bytes) {
  if (!read.failure) return {};
  switch (*read.failure) {
    case ReadFailure::missing:
      return "no such file";
    case ReadFailure::not_regular:
      return "is " + read.detail + ", not a regular file";
    case ReadFailure::too_large:
      return "is " + read.detail + "; the limit is " + std::to_string(max_bytes) + " bytes";
    case ReadFailure::unreadable:
      return "cannot read it: " + read.detail;
  }
  return "cannot read it";
}

Diagnostic read_diagnostic(const FileRead& read, const std::string& file, std::size_t max_bytes) {
  Diagnostic d;
  d.file = file;
  d.code = diag_code("io.read");
  d.message = "cannot read the file: " + read.detail;
  if (read.failure == ReadFailure::not_regular) {
    d.code = diag_code("file.not-regular");
    d.message = "the file is " + read.detail + ", not a regular file";
    d.hint = "a record is a regular file in the tree; replace the link or special file with one";
  } else if (read.failure == ReadFailure::too_large) {
    d.code = diag_code("limits.file-size");
    d.message = "file is " + read.detail + "; the limit is " + std::to_string(max_bytes);
    d.hint = "a record is a few KB; split long text or raise --max-file-bytes";
  } else if (read.failure == ReadFailure::missing) {
    d.message = "the file vanished while it was read";
    d.hint = "it was probably moved or deleted; the next reload settles it";
  }
  return d;
}

}  // namespace kb
