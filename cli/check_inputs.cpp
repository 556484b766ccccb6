#include "check_inputs.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <system_error>

#include "kb/deployment.h"
#include "kb/diagnostic_codes.h"
#include "kb/file_read.h"

namespace kb::cli {
namespace {

namespace fs = std::filesystem;

Diagnostic problem(Severity s, std::string_view code, const std::string& file, std::string message,
                   std::string hint = {}) {
  return {s, std::string(code), file, 0, 0, std::move(message), std::move(hint), ""};
}

// A failed read of an input as a diagnostic: read_diagnostic's, with advice for a
// deployment instead of a record.
Diagnostic read_problem(const FileRead& read, const std::string& name) {
  Diagnostic d = read_diagnostic(read, name, kMaxDeploymentBytes);
  if (read.failure == ReadFailure::too_large) {
    d.message += " bytes, kb check's limit for one input";
    d.hint = "name the deployment's own files; a generated bundle can be split";
  } else if (read.failure == ReadFailure::not_regular) {
    d.hint = "name a file, or - to read standard input";
  }
  return d;
}

// Reads at most kMaxDeploymentBytes + 1 bytes (so the readers can say "too large").
std::optional<std::string> read_stream(std::istream& in, const std::string& path,
                                       std::vector<Diagnostic>& diags) {
  std::string text(kMaxDeploymentBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    diags.push_back(problem(Severity::error, diag_code("io.read"), path, "cannot read the file"));
    return std::nullopt;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// Whether `p` (absolute, without links or dot segments) is `root` or under it.
bool inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), i = p.begin();
  for (; r != root.end(); ++r, ++i) {
    if (r->empty()) continue;  // the empty last element of a root written with a '/'
    if (i == p.end() || *i != *r) return false;
  }
  return true;
}

// A file the walk found: the name it is reported under, and what is opened (a link's
// target, already known to be inside the directory).
struct Found {
  std::string name;
  fs::path open;
};

// One directory named on the command line, walked without recursion (a deep tree cannot
// exhaust the stack) and without following a link to a directory (it could loop).
class DirectoryWalk {
 public:
  DirectoryWalk(const std::string& top, std::vector<Diagnostic>& diags) : top_(top), diags_(diags) {
    std::error_code ec;
    root_ = fs::canonical(top, ec);
    if (ec) root_ = fs::absolute(top, ec).lexically_normal();
  }

  std::vector<Found> files() {
    std::vector<fs::path> pending{top_};
    while (!pending.empty() && !full_) {
      const fs::path dir = std::move(pending.back());
      pending.pop_back();
      std::error_code ec;
      fs::directory_iterator it(dir, ec), end;
      for (; !ec && it != end && !full_; it.increment(ec)) visit(*it, pending);
      if (ec) {
        diags_.push_back(
            problem(Severity::error, diag_code("io.read"), dir.string(),
                    "cannot list the directory: " + ec.message() + "; its files are not checked",
                    "make it readable, or leave it out of the directory checked"));
      }
    }
    std::sort(found_.begin(), found_.end(),
              [](const Found& a, const Found& b) { return a.name < b.name; });
    return std::move(found_);
  }

 private:
  void visit(const fs::directory_entry& entry, std::vector<fs::path>& pending) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name[0] == '.') return;
    std::error_code ec;
    const fs::file_status own = entry.symlink_status(ec);
    if (fs::is_directory(own)) {
      pending.push_back(entry.path());
      return;
    }
    if (++entries_ > kMaxDirectoryFiles) {
      full_ = true;
      diags_.push_back(problem(Severity::error, diag_code("limits.directory"), top_,
                               "the directory holds more than " +
                                   std::to_string(kMaxDirectoryFiles) +
                                   " files, kb check's limit for one directory",
                               "check the deployment's own folder, or name its files"));
      return;
    }
    const std::string shown = entry.path().string();
    if (fs::is_symlink(own)) {
      link(entry.path(), shown);
    } else if (fs::is_regular_file(own)) {
      found_.push_back({shown, entry.path()});
    } else {
      skipped(shown, "is not a regular file (a FIFO, socket or device)");
    }
  }

  // A link is read only when it ends at a file inside the directory: one pointing out of
  // it could pull any file of the machine (a CI runner's secrets) into the output.
  void link(const fs::path& path, const std::string& shown) {
    std::error_code ec;
    const fs::path target = fs::weakly_canonical(path, ec);
    if (ec || !inside(root_, target)) {
      diags_.push_back(problem(Severity::error, diag_code("file.link-outside"), shown,
                               "the link leads out of " + top_ + "; kb check does not follow it",
                               "copy the file into the directory, or name it on the command line"));
      return;
    }
    const fs::file_status st = fs::status(target, ec);
    if (ec || !fs::exists(st)) {
      diags_.push_back(problem(Severity::error, diag_code("io.read"), shown,
                               "cannot read the file: the link leads to nothing",
                               "fix or remove the link"));
    } else if (fs::is_directory(st)) {
      skipped(shown,
              "is a link to a directory, which kb check does not follow (its files are "
              "read where they are)");
    } else if (fs::is_regular_file(st)) {
      found_.push_back({shown, target});
    } else {
      skipped(shown, "is a link to something other than a regular file");
    }
  }

  void skipped(const std::string& shown, const std::string& why) {
    diags_.push_back(
        problem(Severity::note, diag_code("deploy.skipped"), shown, why + "; skipped"));
  }

  std::string top_;
  fs::path root_;
  std::vector<Diagnostic>& diags_;
  std::vector<Found> found_;
  std::size_t entries_ = 0;
  bool full_ = false;
};

// Reads the files a walk found within the directory's byte budget. A file over the
// per-file limit is refused by its size before a byte of it is read.
void read_found(const std::string& top, const std::vector<Found>& files,
                std::vector<DeployInput>& out, std::vector<Diagnostic>& diags) {
  std::size_t total = 0;
  for (const Found& f : files) {
    // No link is left to follow: the walk resolved them, and one swapped in since is refused.
    FileRead read = read_file(f.open, record_file_policy(kMaxDeploymentBytes));
    if (read.failure) {
      diags.push_back(read.failure == ReadFailure::missing
                          ? problem(Severity::error, diag_code("io.read"), f.name,
                                    "cannot read the file: it vanished while it was read")
                          : read_problem(read, f.name));
      continue;
    }
    total += read.bytes.size();
    if (total > kMaxDirectoryBytes) {
      diags.push_back(problem(
          Severity::error, diag_code("limits.directory"), top,
          "the files of the directory add up to more than " + std::to_string(kMaxDirectoryBytes) +
              " bytes, kb check's limit for one directory; stopped at " + f.name,
          "check the deployment's own folder, or name its files"));
      return;
    }
    out.push_back({f.name, std::move(read.bytes), true});
  }
}

}  // namespace

std::optional<std::string> read_input(const std::string& path, std::vector<Diagnostic>& diags) {
  // Never blocks on a FIFO without a writer, never reads /dev/zero without end.
  FileRead read = read_file(path, named_input_policy(kMaxDeploymentBytes));
  if (read.failure == ReadFailure::missing) {
    diags.push_back(problem(Severity::error, diag_code("io.read"), path,
                            "cannot open the file: no such file", "check the path"));
    return std::nullopt;
  }
  if (read.failure) {
    diags.push_back(read_problem(read, path));
    return std::nullopt;
  }
  return std::move(read.bytes);
}

std::vector<DeployInput> gather(const std::vector<std::string>& paths,
                                std::vector<Diagnostic>& diags) {
  std::vector<DeployInput> out;
  for (const std::string& path : paths) {
    if (path == "-") {
      if (auto text = read_stream(std::cin, "-", diags)) out.push_back({"-", std::move(*text)});
      continue;
    }
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
      if (auto text = read_input(path, diags)) out.push_back({path, std::move(*text)});
      continue;
    }
    const std::vector<Found> files = DirectoryWalk(path, diags).files();
    if (files.empty()) {
      diags.push_back(
          problem(Severity::error, diag_code("io.read"), path, "the directory holds no files"));
    }
    read_found(path, files, out, diags);
  }
  return out;
}

}  // namespace kb::cli
