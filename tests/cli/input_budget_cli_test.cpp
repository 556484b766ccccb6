// Every input pays for itself (issue 33): `kb check` and `kb oracle run` against hostile
// servers, and `kb check` on directories with links out and oversized files, each run of
// kb under an address-space cap so that unbounded memory fails fast instead of swapping.

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>

#include "cli_support.h"
#include "oracle/hostile_server.h"

using namespace kb_test;

namespace {

// 1 GiB of address space: kb checking a deployment needs a fraction of it; 1,500 files
// kept at 1 MiB each, or an answer read to its end, do not fit.
constexpr long kCapKiB = 1L << 20;

std::string q(const fs::path& p) {
  return "'" + p.string() + "'";
}

Run kb_capped(const fs::path& dir, const std::string& args) {
  const fs::path script = dir / "run.sh";
  spit(script, "ulimit -v " + std::to_string(kCapKiB) + "\nexec '" + KB_BINARY + "' " + args +
                   " </dev/null >'" + (dir / "stdout").string() + "' 2>'" +
                   (dir / "stderr").string() + "'\n");
  const int status = std::system(("sh '" + script.string() + "'").c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "stdout");
  r.err = slurp(dir / "stderr");
  return r;
}

std::string check_records() {
  return " --records " + q(fs::path(KB_TEST_DATA) / "check" / "records");
}

std::string deploy_records() {
  return " --records " + q(fs::path(KB_TEST_DATA) / "deploy" / "records");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A file of `size` bytes that takes no room on disk.
void sparse(const fs::path& p, off_t size) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, size) == 0);
  ::close(fd);
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("kb check --endpoint refuses JSON nested 100,000 deep (exit 2, no crash)",
          "[cli][check][endpoint][budget]") {
  HostileServer server(HostileServer::Mode::deep);
  auto dir = scratch("budget_deep");
  Run r = kb_capped(dir, "check --endpoint " + server.url() + check_records());
  CHECK(r.code == 2);
  CHECK(r.err == server.url() +
                     ": error[limits.endpoint-answer]: kb stopped asking the server: the answer "
                     "of " +
                     server.url() +
                     "/v1/models nests deeper than 64 levels, kb's limit for a JSON answer\n"
                     "  hint: check that the URL is the server's; raise --endpoint-timeout for a "
                     "slow one\n");
}

TEST_CASE("kb check --endpoint stops an endless chunked answer at 4 MiB",
          "[cli][check][endpoint][budget]") {
  HostileServer server(HostileServer::Mode::endless);
  auto dir = scratch("budget_endless");
  const auto start = std::chrono::steady_clock::now();
  Run r = kb_capped(
      dir, "check --endpoint " + server.url() + check_records() + " --endpoint-timeout 30");
  CHECK(seconds_since(start) < 20);
  CHECK(r.code == 2);
  CHECK(r.err.find(": error[limits.endpoint-answer]: kb stopped asking the server: the answer of " +
                   server.url() +
                   "/v1/models is larger than 4194304 bytes, kb's limit for an answer\n") ==
        server.url().size());
}

TEST_CASE("kb check --endpoint stops a server sending headers without end",
          "[cli][check][endpoint][budget]") {
  HostileServer server(HostileServer::Mode::headers);
  auto dir = scratch("budget_headers");
  const auto start = std::chrono::steady_clock::now();
  Run r = kb_capped(
      dir, "check --endpoint " + server.url() + check_records() + " --endpoint-timeout 60");
  CHECK(seconds_since(start) < 20);
  CHECK(r.code == 2);
  CHECK(r.err.find(": error[limits.endpoint-answer]: kb stopped asking the server: the answer of " +
                   server.url() + "/v1/models took more than 9437184 bytes on the wire") ==
        server.url().size());
}

TEST_CASE("kb check --endpoint-timeout 2 is the deadline for a server that trickles",
          "[cli][check][endpoint][budget]") {
  HostileServer server(HostileServer::Mode::trickle);
  auto dir = scratch("budget_trickle");
  const auto start = std::chrono::steady_clock::now();
  Run r = kb_capped(dir,
                    "check --endpoint " + server.url() + check_records() + " --endpoint-timeout 2");
  const double took = seconds_since(start);
  CHECK(took < 4);
  CHECK(r.code == 2);
  CHECK(r.err.find("error[limits.endpoint-answer]: kb stopped asking the server: " + server.url() +
                   "/v1/models gave no complete answer within 2 s, kb's deadline for a "
                   "request\n") != std::string::npos);
}

TEST_CASE("kb oracle run --timeout 2 gives up on a trickling server within the deadline",
          "[cli][oracle][budget]") {
  HostileServer server(HostileServer::Mode::trickle);
  auto dir = scratch("budget_oracle");
  const std::string data = std::string(KB_TEST_DATA) + "/oracle/";
  const auto start = std::chrono::steady_clock::now();
  Run r = kb_capped(dir, "oracle run cold-vs-warm --subject " + server.url() +
                             " --timeout 2 --date 2026-10-05 --prompts '" + data +
                             "prompts.jsonl' --records '" + data + "records'");
  CHECK(seconds_since(start) < 4);
  CHECK(r.code == 2);
  CHECK(r.err == "kb oracle run: --subject " + server.url() + ": " + server.url() +
                     "/v1/models gave no complete answer within 2 s, kb's deadline for a "
                     "request\n");
}

TEST_CASE("kb check DIR does not follow a link out of DIR", "[cli][check][budget]") {
  auto dir = scratch("budget_link");
  const fs::path outside = dir / "runner" / "secret.yaml";
  spit(outside, "engines:\n  - {engine: vllm, version: 0.26.0}\nconfig: {SECRET-TOKEN-123: x}\n");
  const fs::path tree = dir / "pr";
  fs::copy(fs::path(KB_TEST_DATA) / "deploy" / "sglang-dir", tree);
  fs::create_symlink(outside, tree / "leak.yaml");
  fs::create_symlink("../runner", tree / "runner");
  fs::create_symlink("launch.sh", tree / "again.sh");  // inside: read like the file
  fs::create_directories(tree / "sub");
  fs::create_directory_symlink("..", tree / "sub" / "up");  // inside, but a directory
  Run r = kb_capped(dir, "check " + q(tree) + deploy_records());
  CHECK(r.code == 2);
  CHECK(r.out.find("SECRET") == std::string::npos);
  CHECK(r.err.find("SECRET") == std::string::npos);
  CHECK(r.err.find(tree.string() +
                   "/leak.yaml: error["
                   "file.link-outside"
                   "]: the link leads out of " +
                   tree.string() + "; kb check does not follow it\n") != std::string::npos);
  CHECK(r.err.find(tree.string() + "/runner: error[file.link-outside]: ") != std::string::npos);
  CHECK(r.err.find(tree.string() + "/sub/up: note[deploy.skipped]: is a link to a directory") !=
        std::string::npos);
  CHECK(count(r.err, "error[") == 2);

  fs::remove(tree / "leak.yaml");
  fs::remove(tree / "runner");
  Run inside = kb_capped(dir, "check " + q(tree) + deploy_records() + " --format json");
  INFO(inside.err);
  CHECK(inside.code == 1);
  CHECK(inside.out.find("\"file\": \"" + tree.string() + "/again.sh\"") != std::string::npos);
}

TEST_CASE("kb check DIR refuses oversized files by their size, whatever their number",
          "[cli][check][budget]") {
  auto dir = scratch("budget_sparse");
  const fs::path tree = dir / "tree";
  fs::create_directories(tree);
  for (int i = 0; i < 1500; ++i)
    sparse(tree / ("big-" + std::to_string(10000 + i) + ".yaml"), 2 << 20);
  Run r = kb_capped(dir, "check " + q(tree) + deploy_records());
  CHECK(r.code == 2);
  CHECK(count(r.err, "error[limits.file-size]") == 1500);
  CHECK(r.err.rfind(tree.string() + "/big-10000.yaml: error[limits.file-size]: file is 2097152 "
                                    "bytes; the limit is 1048576 bytes, kb check's limit for one "
                                    "input\n",
                    0) == 0);
}

TEST_CASE("kb check DIR reads at most 64 MiB and 10,000 files of one directory",
          "[cli][check][budget]") {
  auto dir = scratch("budget_total");
  const fs::path tree = dir / "tree";
  fs::create_directories(tree);
  for (int i = 0; i < 65; ++i)
    sparse(tree / ("part-" + std::to_string(100 + i) + ".yaml"), 1 << 20);
  Run r = kb_capped(dir, "check " + q(tree) + deploy_records());
  CHECK(r.code == 2);
  CHECK(r.err.find(tree.string() +
                   ": error["
                   "limits.directory"
                   "]: the files of the directory add up "
                   "to more than 67108864 bytes, kb check's limit for one "
                   "directory; stopped at " +
                   tree.string() + "/part-164.yaml\n") != std::string::npos);

  const fs::path many = dir / "many";
  fs::create_directories(many);
  for (int i = 0; i < 10001; ++i) spit(many / (std::to_string(i) + ".txt"), "");
  Run m = kb_capped(dir, "check " + q(many) + deploy_records());
  CHECK(m.code == 2);
  CHECK(m.err.find(many.string() + ": error[limits.directory]: the directory holds more than "
                                   "10000 files, kb check's limit for one directory\n") !=
        std::string::npos);
}
