#pragma once

// `kb site`: the static export of every page, staged beside each file and moved into
// place; only files kb wrote are ever replaced or removed (site_manifest.h).

#include <cstddef>
#include <filesystem>

#include "kb/lint.h"
#include "site_manifest.h"

namespace kb::site {

/// Where the site goes and where its templates come from.
struct SiteOptions {
  std::filesystem::path out;      ///< the site directory; other files in it are kept
  std::filesystem::path web_dir;  ///< templates and static files; empty: compiled-in
  bool force = false;             ///< overwrite files of the same name kb did not write
  /// Where the site is served from, for 404.html: a static host answers any missing path
  /// with it, so its links start at this path ("/", or "/REPO/" on GitHub project pages)
  /// instead of being relative to a path that does not exist.
  std::string base_path = "/";
};

/// What was written.
struct SiteReport {
  std::size_t pages = 0;  ///< HTML pages
  std::size_t files = 0;  ///< every file, pages included
};

/// Writes the static site of `linted` into `options.out`: every file is first written to
/// a hidden name beside its place, and only once all are written are they moved into
/// place, files of the previous build no longer produced removed, and the manifest
/// updated; a failure before that leaves the previous site as it was. Links are
/// relative, so the site works from any path prefix and from file://. Throws
/// kb::Error(invalid_argument) when it would overwrite a file it did not write (unless
/// `force`), kb::Error(io) when a file cannot be written.
SiteReport write_site(const Linted& linted, const SiteOptions& options);

}  // namespace kb::site
