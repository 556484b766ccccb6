#pragma once

// The one way kb writes a file that readers (the loader, `kb serve --watch`) may be
// reading at the same time: a hidden temporary file in the same directory, fsync, then
// rename over the target or link into place. Readers see the old bytes or the new ones,
// never a mix, even across a crash. A user's file that kb rewrites (repair, import-text
// --force) goes through replace_if_unchanged, which never overwrites a save it did not read.
//
// Two writers rename a temporary into place without these functions, because what they
// write is not one string in memory: the index (store.cpp, replace_index_file) is a SQLite
// database that SQLite itself fills page by page in a temporary file, which kb then
// fsyncs and renames; and `kb site` (site.cpp, site_manifest.cpp) writes hundreds of
// files from several threads and renames them into place only once every one is written,
// so a build that fails halfway leaves the old site whole, not half replaced.

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

/// What replace_if_unchanged did.
enum class ReplaceResult {
  replaced,  ///< `path` now holds the new bytes
  changed,   ///< `path` is not the file that was read (an editor saved): nothing overwritten
};

/// Replaces the regular file at `path`, which must still hold exactly `expected` (read
/// again here, and held open so its inode stays its own), with `bytes`, keeping its
/// permissions. The new bytes are swapped in with renameat2(RENAME_EXCHANGE), then the
/// file swapped out is checked to be the one read, unwritten since; if not, an editor
/// saved in between: its file is swapped back and the result is `changed`. Nothing is
/// ever deleted but the file read and kb's own temporary file; a file that lost a race
/// several saves deep is kept beside `path` as `<name>.kb-conflict-XXXXXX` (named in the
/// error). Where RENAME_EXCHANGE is unsupported it compares, then renames. Throws
/// Error{Errc::io} when writing fails.
ReplaceResult replace_if_unchanged(const std::filesystem::path& path, std::string_view bytes,
                                   std::string_view expected);

}  // namespace kb
