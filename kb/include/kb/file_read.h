#pragma once

// The one way kb reads a file it did not write: never blocks (a FIFO, a device), never
// reads more than a limit (/dev/zero), and, for files of a records tree, never follows
// a symbolic link out of it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "kb/diagnostic.h"

namespace kb {

/// How to open a file.
struct ReadPolicy {
  std::size_t max_bytes = 4u << 20;  ///< bytes read at most; a file with more is too large
  bool follow_links = false;         ///< false: a symbolic link (last component) is refused
  bool regular_only = true;          ///< false: pipes and character devices are read too
};

/// A record file in a tree: no link, regular files only.
inline ReadPolicy record_file_policy(std::size_t max_bytes) {
  return {max_bytes, false, true};
}
/// A file a user named on the command line: links followed, pipes read (`<(cmd)`).
inline ReadPolicy named_input_policy(std::size_t max_bytes) {
  return {max_bytes, true, false};
}

/// Why a read gave no bytes.
enum class ReadFailure {
  missing,      ///< no such file (or a directory on the way is missing)
  not_regular,  ///< a link, directory, FIFO, device or socket where a file was expected
  too_large,    ///< more than `max_bytes`
  unreadable,   ///< permission denied, I/O error
};

/// What read_file found.
struct FileRead {
  std::optional<ReadFailure> failure;  ///< empty: `bytes` holds the whole file
  std::string bytes;
  std::uint64_t size = 0;  ///< what fstat said of a regular file (also when too large)
  std::string detail;      ///< what it is or what failed: "a FIFO", "Permission denied", ...
};

/// Opens `path` with O_NONBLOCK|O_CLOEXEC (and O_NOFOLLOW unless `follow_links`), checks
/// with fstat what it is, and reads at most `max_bytes` + 1 bytes. Never throws for a bad
/// file: the failure says why.
FileRead read_file(const std::filesystem::path& path, const ReadPolicy& policy);

/// A failed read as a diagnostic on `file`: `io.read`, `file.not-regular` or
/// `limits.file-size`, with a hint.
Diagnostic read_diagnostic(const FileRead& read, const std::string& file, std::size_t max_bytes);

/// One line for a failed read of `path` ("is a FIFO, not a regular file").
std::string read_failure_text(const FileRead& read, std::size_t max_bytes);

}  // namespace kb
