#pragma once

// What `kb check PATH...` reads: files, stdin and directories walked for files, each
// within a budget (check_inputs.cpp), as DeployInputs for the readers.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kb/deploy.h"
#include "kb/diagnostic.h"

namespace kb::cli {

/// Files one directory of `kb check` may hold; past it the walk stops (limits.directory).
inline constexpr std::size_t kMaxDirectoryFiles = 10000;
/// Bytes the files of one directory may add up to (64 files at the per-file limit).
inline constexpr std::size_t kMaxDirectoryBytes = 64u << 20;

/// One file `kb check` was given by name (links followed, pipes read), at most
/// kMaxDeploymentBytes; nullopt with a diagnostic when it cannot be read or is larger.
std::optional<std::string> read_input(const std::string& path, std::vector<Diagnostic>& diags);

/// Each of `paths`: a file, `-` (stdin) or a directory, whose files are read in path
/// order with hidden names skipped. In a directory, a link is followed only when it ends
/// inside that directory and at a file; one that leads out of it is an error naming the
/// link (file.link-outside), one to a directory is skipped with a note. A subdirectory
/// that cannot be listed, or a file that cannot be read, is an error, never a silent skip.
std::vector<DeployInput> gather(const std::vector<std::string>& paths,
                                std::vector<Diagnostic>& diags);

}  // namespace kb::cli
