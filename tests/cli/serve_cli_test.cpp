// `kb serve` as a process: serves the shipped records/ and a fixture, logs each request,
// stops cleanly on SIGTERM and SIGINT, refuses bad usage with exit 2.

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// One GET over a fresh connection; empty when nothing answers.
std::string http_get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return {};
  }
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string out;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, 3000) > 0) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Served {
  pid_t pid = -1;
  int port = 0;
  fs::path dir;
};

Served spawn(const std::vector<std::string>& args) {
  Served s;
  s.port = free_port();
  s.dir = fs::temp_directory_path() /
          ("kb_serve_cli_" + std::to_string(::getpid()) + "_" + std::to_string(s.port));
  fs::remove_all(s.dir);
  fs::create_directories(s.dir);
  std::vector<std::string> argv = {KB_BINARY, "serve", "--port", std::to_string(s.port)};
  argv.insert(argv.end(), args.begin(), args.end());
  s.pid = ::fork();
  REQUIRE(s.pid >= 0);
  if (s.pid == 0) {
    std::freopen((s.dir / "stdout").c_str(), "w", stdout);
    std::freopen((s.dir / "stderr").c_str(), "w", stderr);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    ::execv(KB_BINARY, cargv.data());
    std::_Exit(127);
  }
  return s;
}

bool wait_healthy(const Served& s) {
  auto deadline = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < deadline) {
    if (http_get(s.port, "/healthz").rfind("HTTP/1.1 200", 0) == 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// Sends `sig` and returns the exit code, -1 when it did not exit within 10 s.
int stop(const Served& s, int sig) {
  ::kill(s.pid, sig);
  auto deadline = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(s.pid, &status, WNOHANG) == s.pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(s.pid, SIGKILL);
  ::waitpid(s.pid, nullptr, 0);
  return -1;
}

}  // namespace

TEST_CASE("kb serve serves the shipped records and stops on SIGTERM") {
  Served s = spawn({"--records", std::string(KB_SOURCE_DIR) + "/records"});
  REQUIRE(wait_healthy(s));
  CHECK(http_get(s.port, "/api/v1/engines/vllm").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(http_get(s.port, "/api/v1/gotchas").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(stop(s, SIGTERM) == 0);
  CHECK(slurp(s.dir / "stderr").find("kb serve: stopping") != std::string::npos);
  fs::remove_all(s.dir);
}

TEST_CASE("kb serve writes one access log line per request and stops on SIGINT") {
  const fs::path log =
      fs::temp_directory_path() / ("kb_serve_cli_access_" + std::to_string(::getpid()) + ".log");
  fs::remove(log);
  Served s = spawn(
      {"--records", std::string(KB_TEST_DATA) + "/serve/records", "--access-log", log.string()});
  REQUIRE(wait_healthy(s));
  CHECK(http_get(s.port, "/api/v1/gotchas/alpha-blocker").rfind("HTTP/1.1 200", 0) == 0);
  CHECK(http_get(s.port, "/api/v1/gotchas/nope").rfind("HTTP/1.1 404", 0) == 0);
  CHECK(stop(s, SIGINT) == 0);
  const std::string text = slurp(log);
  CHECK(text.find("\"GET /api/v1/gotchas/alpha-blocker\" 200 ") != std::string::npos);
  CHECK(text.find("\"GET /api/v1/gotchas/nope\" 404 ") != std::string::npos);
  CHECK(text.find("us\n") != std::string::npos);
  fs::remove(log);
  fs::remove_all(s.dir);
}

TEST_CASE("kb serve refuses bad usage with exit 2") {
  auto run = [](const std::string& args) {
    std::string cmd = std::string("'") + KB_BINARY + "' serve " + args + " >/dev/null 2>&1";
    int status = std::system(cmd.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(run("--records /nonexistent/kb-records --port 0") == 2);
  CHECK(run("--records a --db b") == 2);
  CHECK(run("--db /nonexistent/kb.db --port 0") == 2);
  CHECK(run("--port 70000") == 2);
  CHECK(run("--request-timeout 0 --port 0") == 2);
  CHECK(run("--idle-timeout -1 --port 0") == 2);
  CHECK(run("--write-timeout 4000 --port 0") == 2);
  CHECK(run("--max-connections-per-peer 0 --port 0") == 2);
  CHECK(run("--max-connections 2000000 --port 0") == 2);
  CHECK(run("--threads 0 --port 0") == 2);
  CHECK(run("--max-buffered-mib 7 --port 0") == 2);
  CHECK(run("--max-buffered-mib 64 --max-buffered-mib-per-peer 65 --port 0") == 2);
  CHECK(run("--check-time-limit 0 --port 0") == 2);
}
