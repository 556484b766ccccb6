#pragma once

// What `kb site` owns in its output directory: the files it wrote and the directories it
// created, listed in the directory's `.kb-site` manifest. A rebuild replaces and removes
// only those; a gh-pages `.git/`, a `CNAME` or notes beside them are never touched.

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace kb::site {

/// Name of the manifest file in every site directory.
inline constexpr const char* kSiteMarker = ".kb-site";

/// The site directory and what kb owns in it.
class SiteDir {
 public:
  /// Reads `dir`'s manifest; none (or an unreadable one) owns nothing. Throws
  /// Error(invalid_argument) when `dir` exists and is not a directory.
  explicit SiteDir(std::filesystem::path dir);

  /// Refuses (Error(invalid_argument), exit 2) to overwrite a file kb did not write, naming
  /// each such file, unless `force`; and any planned file or directory whose place holds a
  /// directory, a link to one or a special file, even with `force`.
  void check(const std::vector<std::string>& planned, bool force) const;
  /// Creates the directories the planned files need; those it creates become kb's. When
  /// the site directory does not exist yet, they are made in a new hidden directory
  /// beside it (`.NAME.kb-new-SUFFIX`), which commit() renames into place whole: files
  /// are then written at their own names in there, and none is moved one by one.
  void make_dirs(const std::vector<std::string>& planned, const std::string& suffix);
  /// After a failed build: removes the directories make_dirs created, when empty, or
  /// the whole new directory.
  void undo_dirs();
  /// Moves each staged file (relative path, temporary path beside it) into place, removes
  /// the previous manifest's files that were not staged again and the directories kb
  /// created that this leaves empty, then writes the new manifest. A crash at any point
  /// leaves a manifest that lists every file kb may have written. For a new directory:
  /// writes the manifest into it and renames it into place; a crash before leaves only
  /// the hidden directory.
  void commit(const std::vector<std::pair<std::string, std::filesystem::path>>& staged);

  const std::filesystem::path& dir() const { return dir_; }
  /// Where files are written: the new directory when there is one, else dir().
  const std::filesystem::path& root() const { return fresh_.empty() ? dir_ : fresh_; }
  /// Whether files are written into a new directory, at their own names.
  bool fresh() const { return !fresh_.empty(); }

 private:
  void write_manifest(const std::set<std::string>& files) const;
  void remove_file(const std::string& rel) const;

  std::filesystem::path dir_;
  std::filesystem::path fresh_;       ///< the new directory renamed into place, if any
  bool absent_ = false;               ///< nothing was at dir_ when this was made
  bool legacy_ = false;               ///< a marker of a kb that replaced the whole directory
  std::set<std::string> files_;       ///< files kb wrote, per the manifest
  std::set<std::string> dirs_;        ///< directories kb created (manifest, then this run)
  std::vector<std::string> created_;  ///< directories created by this run, in order
};

}  // namespace kb::site
