#pragma once

// Which record files a tree holds and what a reload of it has to read: the scanning and
// planning half of Corpus::load and Corpus::reload (corpus.cpp). Private to kb_core.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kb/corpus.h"

namespace kb::corpus_files {

namespace fs = std::filesystem;

struct FileStat {
  std::string rel;  ///< "gotchas/x.yaml"; a directory's ends with '/'
  fs::path path;
  std::int64_t mtime_ns = 0;
  std::uint64_t size = 0;
  /// Not empty for a directory the scan could not list or would not enter (a link):
  /// why. Loading it gives a file with an `io.read` error, never a silent gap.
  std::string unreadable;
};

/// Every record file under `dir`, or under its subdirectory `sub` only (then a missing
/// subdirectory holds nothing, and throws nothing), and every directory under it that
/// cannot be listed or is a link. Throws kb::Error(io) when `dir` cannot be listed.
std::vector<FileStat> scan(const fs::path& dir, const std::string& sub = {});
/// Whether a path relative to the tree passes through a hidden name, which scan() skips.
bool hidden_component(const std::string& rel);
/// The one file `rel` names, as scan() would have listed it; nullopt when scan() would not.
std::optional<FileStat> stat_one(const fs::path& dir, const std::string& rel);

// What a reload has to do: the new file list with unchanged files shared with the
// previous corpus, and the files to (re)load into it.
struct ReloadPlan {
  struct Load {
    std::size_t index;
    FileStat stat;
    const FileResult* old;  ///< the previous version of this file, if any
  };
  std::vector<std::shared_ptr<const FileResult>> files;
  std::vector<Load> loads;
  bool same_paths = true;  ///< the same files as before, in the same order

  void keep(const std::shared_ptr<const FileResult>& f) { files.push_back(f); }
  void add(FileStat st, const std::shared_ptr<const FileResult>* old) {
    if (old && (*old)->size == st.size && (*old)->mtime_ns == st.mtime_ns) {
      files.push_back(*old);
      return;
    }
    same_paths = same_paths && old != nullptr;
    loads.push_back({files.size(), std::move(st), old ? old->get() : nullptr});
    files.emplace_back();
  }
};

/// Walks the previous files (sorted by path) beside `seen` (sorted, unique): a path in
/// `seen` with a stat is there now, without one it is gone; other previous files stay
/// as they were when `seen_all` is false and are gone when it is true.
ReloadPlan plan_reload(const std::vector<std::shared_ptr<const FileResult>>& prev,
                       std::vector<std::pair<std::string, std::optional<FileStat>>> seen,
                       bool seen_all);

/// Reads and loads one scanned file; never follows a link or blocks (see corpus_files.cpp).
/// Empty when the file was deleted since the scan.
std::optional<FileResult> load_file(const FileStat& st, const LoadOptions& options);

}  // namespace kb::corpus_files
