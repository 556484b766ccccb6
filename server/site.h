#pragma once

// `kb site`: the static export of every page, written beside the target and swapped in.

#include <cstddef>
#include <filesystem>

#include "kb/lint.h"

namespace kb::site {

/// Where the site goes and where its templates come from.
struct SiteOptions {
  std::filesystem::path out;      ///< the site directory; replaced as a whole
  std::filesystem::path web_dir;  ///< templates and static files; empty: compiled-in
};

/// What was written.
struct SiteReport {
  std::size_t pages = 0;  ///< HTML pages
  std::size_t files = 0;  ///< every file, pages included
};

/// Name of the marker file in every site directory: `out` is only ever replaced when it
/// holds one (or is empty), so a mistyped --out cannot delete unrelated files.
inline constexpr const char* kSiteMarker = ".kb-site";

/// Writes the static site of `linted` into a new directory beside `options.out`, then
/// swaps it in (old renamed away, new renamed in, old removed). Links are relative, so
/// the site works from any path prefix and from file://. Throws kb::Error(io) when a
/// file cannot be written or `out` is a directory kb did not write.
SiteReport write_site(const Linted& linted, const SiteOptions& options);

}  // namespace kb::site
