#pragma once

// The one way kb writes a file that readers (the loader, `kb serve --watch`) may be
// reading at the same time: a hidden temporary file in the same directory, fsync, then
// rename over the target or link into place. Readers see the old bytes or the new ones,
// never a mix, even across a crash.

#include <filesystem>
#include <string_view>

namespace kb {

/// What `write_atomic` does when the target already exists.
enum class IfExists { replace, keep };

/// Writes `bytes` to `path`, creating its parent directories. With `IfExists::replace` the
/// file is renamed over any existing one and keeps that file's permissions (new files get
/// 0644); with `IfExists::keep` it is linked into place, so an existing file, even one
/// created concurrently, is never overwritten, and the result is false. The temporary file
/// is removed on every path. Throws Error{Errc::io} when writing fails.
bool write_atomic(const std::filesystem::path& path, std::string_view bytes, IfExists if_exists);

}  // namespace kb
