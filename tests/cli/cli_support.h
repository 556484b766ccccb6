#pragma once

// Runs the built `kb` binary for CLI tests: exit code, stdout and stderr.

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace kb_test {

namespace fs = std::filesystem;

/// A gotcha that lints clean next to an engine record `vllm`.
inline const char* kGotcha = R"(title: Something goes wrong
severity: major
status: open
symptom: |
  It breaks.
affects: [vllm]
)";

struct Run {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void spit(const fs::path& p, const std::string& s) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << s;
}

/// A fresh, empty scratch directory named after the test.
inline fs::path scratch(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("kb_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

/// Runs `kb ARGS` (ARGS is shell text) with output captured under `dir`.
inline Run kb(const fs::path& dir, const std::string& args) {
  std::string cmd = std::string("'") + KB_BINARY + "' " + args + " </dev/null >'" +
                    (dir / "stdout").string() + "' 2>'" + (dir / "stderr").string() + "'";
  int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "stdout");
  r.err = slurp(dir / "stderr");
  return r;
}

/// Runs `kb ARGS` with `input` (a file) as its standard input.
inline Run kb_stdin(const fs::path& dir, const std::string& args, const fs::path& input) {
  std::string cmd = std::string("'") + KB_BINARY + "' " + args + " <'" + input.string() + "' >'" +
                    (dir / "stdout").string() + "' 2>'" + (dir / "stderr").string() + "'";
  int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "stdout");
  r.err = slurp(dir / "stderr");
  return r;
}

/// Runs `kb ARGS` from the working directory `cwd` (where kb looks for .kb.yaml and
/// .kbignore.yaml), with its output captured under `cwd`.
inline Run kb_in(const fs::path& cwd, const std::string& args) {
  const std::string cmd = "cd '" + cwd.string() + "' && '" + KB_BINARY + "' " + args +
                          " </dev/null >'" + (cwd / "stdout").string() + "' 2>'" +
                          (cwd / "stderr").string() + "'";
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(cwd / "stdout");
  r.err = slurp(cwd / "stderr");
  return r;
}

/// Copies the shipped records/ tree into `dir`/records and returns that path.
inline fs::path copy_records(const fs::path& dir) {
  fs::path out = dir / "records";
  fs::copy(fs::path(KB_SOURCE_DIR) / "records", out, fs::copy_options::recursive);
  return out;
}

}  // namespace kb_test
