#include "site_manifest.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "kb/atomic_write.h"
#include "kb/error.h"
#include "kb/file_read.h"

namespace kb::site {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kHeader = "# kb site manifest";
constexpr std::size_t kMaxManifestBytes = 256u << 20;

// A manifest line kb may act on: relative, '/'-separated, no empty, "." or ".." part.
// Anything else is ignored, so an edited manifest cannot point kb outside the directory.
bool safe_relative(std::string_view rel) {
  if (rel.empty() || rel.front() == '/' || rel.find('\0') != std::string_view::npos) return false;
  while (!rel.empty()) {
    const auto slash = rel.find('/');
    const std::string_view part = rel.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    rel.remove_prefix(slash + 1);
  }
  return true;
}

// lstat's view of `p`: 0 when nothing is there.
mode_t kind_at(const fs::path& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0 ? (st.st_mode & S_IFMT) : 0;
}

// Every proper parent directory of `rel`, shortest first: "a/b/c.html" -> "a", "a/b".
std::vector<std::string> parents(const std::string& rel) {
  std::vector<std::string> out;
  for (auto slash = rel.find('/'); slash != std::string::npos; slash = rel.find('/', slash + 1))
    out.push_back(rel.substr(0, slash));
  return out;
}

}  // namespace

SiteDir::SiteDir(fs::path dir) : dir_(std::move(dir)), absent_(kind_at(dir_) == 0) {
  std::error_code ec;
  const auto status = fs::status(dir_, ec);
  if (fs::exists(status) && !fs::is_directory(status))
    throw Error(Errc::invalid_argument, dir_.string() + " exists and is not a directory");
  FileRead read = read_file(dir_ / kSiteMarker, record_file_policy(kMaxManifestBytes));
  if (read.failure) return;
  std::string_view text = read.bytes;
  if (!text.starts_with(kHeader)) {
    // Written by a kb that replaced the whole directory: every file it would write
    // again is its own, but which others were is unknown, so none is removed.
    legacy_ = true;
    return;
  }
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (line.empty() || line.front() == '#') continue;
    const bool is_dir = line.back() == '/';
    if (is_dir) line.remove_suffix(1);
    if (!safe_relative(line)) continue;
    (is_dir ? dirs_ : files_).emplace(line);
  }
}

void SiteDir::check(const std::vector<std::string>& planned, bool force) const {
  // A site directory that did not exist is built beside it and renamed into place,
  // which fails rather than replace anything that appeared there meanwhile.
  if (absent_) return;
  std::vector<std::string> foreign;
  std::set<std::string> checked_dirs;
  for (const auto& rel : planned) {
    for (const auto& parent : parents(rel)) {
      if (!checked_dirs.insert(parent).second) continue;
      const mode_t k = kind_at(dir_ / parent);
      if (k != 0 && k != S_IFDIR) {
        throw Error(Errc::invalid_argument,
                    (dir_ / parent).string() + " is " + (k == S_IFLNK ? "a link" : "a file") +
                        " where kb site writes a directory; move it away first");
      }
    }
    const mode_t k = kind_at(dir_ / rel);
    if (k == 0) continue;
    if (k != S_IFREG && k != S_IFLNK) {
      throw Error(Errc::invalid_argument, (dir_ / rel).string() +
                                              " is a directory or special file where kb site "
                                              "writes a file; move it away first");
    }
    if (!force && !legacy_ && files_.count(rel) == 0) foreign.push_back(rel);
  }
  if (foreign.empty()) return;
  std::string list;
  for (std::size_t i = 0; i < foreign.size() && i < 10; ++i)
    list += (i ? ", " : "") + (dir_ / foreign[i]).string();
  if (foreign.size() > 10) list += " and " + std::to_string(foreign.size() - 10) + " more";
  throw Error(Errc::invalid_argument, "kb site did not write " + list +
                                          "; refusing to overwrite (pass --force to replace " +
                                          (foreign.size() == 1 ? "it)" : "them)"));
}

void SiteDir::make_dirs(const std::vector<std::string>& planned, const std::string& suffix) {
  std::error_code ec;
  if (absent_) {
    const fs::path parent = dir_.parent_path();
    fs::create_directories(parent, ec);
    if (ec) throw Error(Errc::io, "cannot create " + parent.string() + ": " + ec.message());
    const fs::path fresh = parent / ("." + dir_.filename().string() + ".kb-new-" + suffix);
    if (::mkdir(fresh.c_str(), 0755) != 0)
      throw Error(Errc::io, "cannot create " + fresh.string() + ": " + std::strerror(errno));
    fresh_ = fresh;
  }
  std::set<std::string> seen;
  for (const auto& rel : planned) {
    for (const auto& parent : parents(rel)) {
      if (!seen.insert(parent).second) continue;
      const fs::path p = root() / parent;
      if (::mkdir(p.c_str(), 0755) == 0) {
        created_.push_back(parent);
        dirs_.insert(parent);
      } else if (errno != EEXIST || kind_at(p) != S_IFDIR) {
        throw Error(Errc::io, "cannot create " + p.string() + ": " + std::strerror(errno));
      }
    }
  }
}

void SiteDir::undo_dirs() {
  if (fresh()) {
    // Made by this run under a name of its own: nothing in it is anyone else's.
    std::error_code ec;
    fs::remove_all(fresh_, ec);
    for (const auto& rel : created_) dirs_.erase(rel);
    created_.clear();
    fresh_.clear();
    return;
  }
  for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
    if (::rmdir((dir_ / *it).c_str()) == 0) dirs_.erase(*it);
  }
  created_.clear();
}

void SiteDir::remove_file(const std::string& rel) const {
  // Only through directories, never through a link that may lead out of the site.
  for (const auto& parent : parents(rel)) {
    if (kind_at(dir_ / parent) != S_IFDIR) return;
  }
  const mode_t k = kind_at(dir_ / rel);
  if (k == S_IFREG || k == S_IFLNK) ::unlink((dir_ / rel).c_str());
}

void SiteDir::write_manifest(const std::set<std::string>& files) const {
  std::string text = std::string(kHeader) +
                     ": kb site wrote the files and created the directories (ending in /) listed "
                     "below.\n# A rebuild replaces or removes only these; it leaves everything "
                     "else in this directory alone.\n";
  for (const auto& d : dirs_) text += d + "/\n";
  for (const auto& f : files) text += f + "\n";
  write_atomic(root() / kSiteMarker, text, IfExists::replace);
}

// Not write_atomic per file (kb/atomic_write.h): the files were written beside their
// places by Writer (site.cpp) and are only renamed here, all together, once every one of
// them is written, so a failed build never leaves a half-replaced site.
void SiteDir::commit(const std::vector<std::pair<std::string, fs::path>>& staged) {
  std::set<std::string> now;
  for (const auto& [rel, tmp] : staged) now.insert(rel);
  if (fresh()) {
    files_ = std::move(now);
    write_manifest(files_);
    if (::rename(fresh_.c_str(), dir_.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      std::error_code ec;
      fs::remove_all(fresh_, ec);
      fresh_.clear();
      created_.clear();  // they were in the new directory: none is at dir_ to undo
      throw Error(Errc::io, "cannot move the new site into place at " + dir_.string() + ": " + why);
    }
    fresh_.clear();
    return;
  }
  std::set<std::string> either = files_;
  either.insert(now.begin(), now.end());
  write_manifest(either);
  for (std::size_t i = 0; i < staged.size(); ++i) {
    const auto& [rel, tmp] = staged[i];
    if (::rename(tmp.c_str(), (dir_ / rel).c_str()) != 0) {
      const std::string why = std::strerror(errno);
      for (std::size_t j = i; j < staged.size(); ++j) ::unlink(staged[j].second.c_str());
      throw Error(Errc::io, "cannot move " + tmp.string() + " into place: " + why);
    }
  }
  for (const auto& rel : files_) {
    if (now.count(rel) == 0) remove_file(rel);
  }
  // Deepest first, so a directory emptied by removing its subdirectories goes too. Only
  // kb's own directories, and only when empty: a user's file in one keeps it.
  for (auto it = dirs_.rbegin(); it != dirs_.rend();) {
    const std::string prefix = *it + "/";
    const auto under = now.lower_bound(prefix);
    const bool used = under != now.end() && under->starts_with(prefix);
    const fs::path p = dir_ / *it;
    bool gone = kind_at(p) != S_IFDIR;
    if (!used && !gone) gone = ::rmdir(p.c_str()) == 0;
    it = gone ? std::make_reverse_iterator(dirs_.erase(std::next(it).base())) : std::next(it);
  }
  files_ = std::move(now);
  write_manifest(files_);
}

}  // namespace kb::site
