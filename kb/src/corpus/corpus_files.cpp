// Which record files a tree holds and what a reload of it has to read (corpus_files.h).

#include "corpus/corpus_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>

#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/file_read.h"

namespace kb::corpus_files {
namespace {

bool is_record_file(const fs::path& p) {
  auto ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml";
}

FileStat unreadable_dir(const fs::path& dir, const fs::path& path, std::string why) {
  FileStat st;
  st.path = path;
  st.rel = path.lexically_relative(dir).generic_string() + "/";
  st.unreadable = std::move(why);
  return st;
}

// Lists one directory of the tree into `out` (record files, and what cannot be read),
// queueing its subdirectories. Returns the error when the directory cannot be listed.
std::error_code list_one(const fs::path& dir, const fs::path& path, std::vector<FileStat>& out,
                         std::vector<fs::path>& pending) {
  std::error_code ec;
  fs::directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const auto& entry = *it;
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name[0] == '.') continue;
    std::error_code kind_ec;
    const fs::file_status own = entry.symlink_status(kind_ec);
    if (fs::is_directory(own)) {
      pending.push_back(entry.path());
      continue;
    }
    // A link to a directory is not followed (it could leave the tree or loop), but its
    // records are missing, which must show.
    if (fs::is_symlink(own) && !is_record_file(entry.path()) &&
        fs::is_directory(fs::status(entry.path(), kind_ec))) {
      out.push_back(unreadable_dir(dir, entry.path(),
                                   "it is a link to a directory, which kb does "
                                   "not follow in a records tree"));
      continue;
    }
    if (!is_record_file(entry.path())) continue;
    // Links, FIFOs and devices named like records are listed too: loading reports them
    // (file.not-regular) instead of dropping them without a word. One lstat, where
    // file_size() and last_write_time() cost a stat each.
    struct stat info {};
    if (::lstat(entry.path().c_str(), &info) != 0) continue;
    FileStat st;
    st.path = entry.path();
    // Lexical: fs::relative resolves links with a readlink per path component, which
    // made a rescan of 100k files cost most of a reload.
    st.rel = entry.path().lexically_relative(dir).generic_string();
    st.size = static_cast<std::uint64_t>(info.st_size);
    st.mtime_ns =
        static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
    out.push_back(std::move(st));
  }
  return ec;
}

}  // namespace

// Walked with a list of directories to do rather than recursion, one directory at a
// time, so that one that cannot be listed (permissions, an I/O error) is reported where it
// is and the rest of the tree still loads.
std::vector<FileStat> scan(const fs::path& dir, const std::string& sub) {
  std::error_code ec;
  const fs::path top = sub.empty() ? dir : dir / sub;
  if (!sub.empty() && !fs::is_directory(fs::symlink_status(top, ec))) return {};
  if (!fs::is_directory(dir, ec)) {
    throw Error(Errc::io,
                "records directory '" + dir.string() + "' does not exist or is not a directory");
  }
  std::vector<FileStat> out;
  std::vector<fs::path> pending{top};
  while (!pending.empty()) {
    const fs::path path = std::move(pending.back());
    pending.pop_back();
    ec = list_one(dir, path, out, pending);
    if (!ec) continue;
    if (path == dir) throw Error(Errc::io, "cannot read '" + dir.string() + "': " + ec.message());
    // A subtree that went while it was listed holds nothing now; any other failure is a
    // directory whose records are missing.
    if (ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory) continue;
    out.push_back(unreadable_dir(dir, path, ec.message()));
  }
  std::sort(out.begin(), out.end(),
            [](const FileStat& a, const FileStat& b) { return a.rel < b.rel; });
  return out;
}

bool hidden_component(const std::string& rel) {
  for (const auto& part : fs::path(rel)) {
    if (!part.empty() && part.string()[0] == '.') return true;
  }
  return false;
}

std::optional<FileStat> stat_one(const fs::path& dir, const std::string& rel) {
  FileStat st;
  st.path = dir / rel;
  st.rel = rel;
  struct stat info {};
  if (!is_record_file(st.path) || hidden_component(rel) || ::lstat(st.path.c_str(), &info) != 0 ||
      S_ISDIR(info.st_mode)) {
    return std::nullopt;
  }
  st.size = static_cast<std::uint64_t>(info.st_size);
  st.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
  return st;
}

ReloadPlan plan_reload(const std::vector<std::shared_ptr<const FileResult>>& prev,
                       std::vector<std::pair<std::string, std::optional<FileStat>>> seen,
                       bool seen_all) {
  ReloadPlan plan;
  plan.files.reserve(prev.size() + seen.size());
  auto s = seen.begin();
  for (const auto& f : prev) {
    for (; s != seen.end() && s->first < f->file; ++s) {
      if (s->second) plan.add(std::move(*s->second), nullptr);
    }
    if (s != seen.end() && s->first == f->file) {
      if (s->second) {
        plan.add(std::move(*s->second), &f);
      } else {
        plan.same_paths = false;
      }
      ++s;
    } else if (seen_all) {
      plan.same_paths = false;
    } else {
      plan.keep(f);
    }
  }
  for (; s != seen.end(); ++s) {
    if (s->second) plan.add(std::move(*s->second), nullptr);
  }
  return plan;
}

// Opened without following a link and without blocking, then read up to the limit: a
// record swapped for a link to a FIFO or /dev/zero between scan and read is a diagnostic,
// never a reload that hangs or eats memory. A file deleted between scan and read is gone,
// as if the scan had not seen it: not a file that fails to load.
std::optional<FileResult> load_file(const FileStat& st, const LoadOptions& options) {
  if (!st.unreadable.empty()) {
    FileResult r;
    r.file = st.rel;
    r.diagnostics.push_back(
        {Severity::error, diag_code("io.read"), st.rel, 0, 0,
         "cannot read the directory: " + st.unreadable + "; the records under it are not loaded",
         "make it readable, or move the records into the tree", ""});
    return r;
  }
  FileRead read = read_file(st.path, record_file_policy(options.max_file_bytes));
  if (read.failure == ReadFailure::missing) return std::nullopt;
  FileResult r;
  if (read.failure) {
    r.diagnostics.push_back(read_diagnostic(read, st.rel, options.max_file_bytes));
  } else {
    r = load_record_text(st.rel, read.bytes, options);
  }
  r.file = st.rel;
  r.size = st.size;
  r.mtime_ns = st.mtime_ns;
  after_load(r, options);
  return r;
}

}  // namespace kb::corpus_files
