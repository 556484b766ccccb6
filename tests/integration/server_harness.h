#pragma once

// In-process servers on a free port for the integration tests, a temp copy of a records
// tree to edit, and a raw-socket client for requests httplib::Client will not send.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>

#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <thread>

#include <httplib.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "kb/error.h"
#include "kb/snapshot.h"
#include "server.h"

namespace kbtest {

namespace fs = std::filesystem;
using nlohmann::json;

inline const fs::path kServeFixture = fs::path(KB_TEST_DATA) / "serve" / "records";

/// A fresh directory removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "kb-itest-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

/// A copy of the fixture records under a temp dir, for tests that edit files.
class TreeCopy {
 public:
  TreeCopy() { fs::copy(kServeFixture, root(), fs::copy_options::recursive); }
  fs::path root() const { return dir_.path() / "records"; }
  /// Writes `text` to `rel` atomically (temp file + rename), as editors do.
  void write(const std::string& rel, const std::string& text) const {
    fs::path target = root() / rel;
    fs::create_directories(target.parent_path());
    fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp");
    {
      std::ofstream out(tmp, std::ios::binary);
      out << text;
    }
    fs::rename(tmp, target);
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(root() / rel, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void remove(const std::string& rel) const { fs::remove(root() / rel); }

 private:
  TempDir dir_;
};

/// The lint date the tests use, so evidence staleness never depends on the day.
inline kb::LintOptions test_lint() {
  kb::LintOptions o;
  o.today = "2026-10-05";
  return o;
}

/// A server configuration serving the bundled records/ (what operators get).
inline kb::http::ServeConfig shipped_records() {
  kb::http::ServeConfig cfg;
  cfg.records = std::string(KB_SOURCE_DIR) + "/records";
  return cfg;
}

/// A log one shipped gotcha's signature names (line 2).
inline constexpr const char* kNixlMismatchLog =
    "INFO 10-20 12:00:01 engine started\n"
    "ERROR Remote NIXL agent engine ID mismatch. Expected abc, received def.\n";

/// A server on a free loopback port; errors it logs are kept for assertions.
class TestServer {
 public:
  explicit TestServer(kb::http::ServeConfig cfg = {}) {
    if (cfg.records == "records" && cfg.db.empty()) cfg.records = kServeFixture;
    cfg.port = 0;
    cfg.threads = cfg.threads == 8 ? 4 : cfg.threads;
    if (cfg.lint.today.empty()) cfg.lint = test_lint();
    cfg.error_log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mu_);
      errors_.push_back(line);
    };
    server_ = std::make_unique<kb::http::Server>(std::move(cfg));
    port_ = server_->start();
  }
  ~TestServer() { server_->stop(); }

  int port() const { return port_; }
  kb::http::Server& server() { return *server_; }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
  }
  std::vector<std::string> errors() const {
    std::lock_guard<std::mutex> lock(mu_);
    return errors_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> errors_;
  std::unique_ptr<kb::http::Server> server_;
  int port_ = 0;
};

/// GET `path`, requiring an answer.
inline httplib::Result get(const TestServer& s, const std::string& path,
                           const httplib::Headers& headers = {}) {
  auto c = s.client();
  auto res = c.Get(path.c_str(), headers);
  REQUIRE(res);
  return res;
}

/// GET `path` expecting `status` and a JSON body; returns the body.
inline json get_json(const TestServer& s, const std::string& path, int status = 200) {
  auto res = get(s, path);
  INFO("GET " << path << " -> " << res->status << " " << res->body);
  REQUIRE(res->status == status);
  REQUIRE(res->get_header_value("Content-Type") == "application/json");
  return json::parse(res->body);
}

/// POST `body` as `type`, requiring an answer.
inline httplib::Result post(const TestServer& s, const std::string& path, const std::string& body,
                            const std::string& type = "application/json") {
  auto c = s.client();
  auto res = c.Post(path.c_str(), body, type.c_str());
  REQUIRE(res);
  return res;
}

/// A TCP connection to the loopback `port`, from the loopback address `from` (another
/// peer, such as 127.0.0.2) when given; the caller closes it.
inline int connect_loopback(int port, const char* from = nullptr) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  if (from != nullptr) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    REQUIRE(::inet_pton(AF_INET, from, &source.sin_addr) == 1);
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) == 0);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

/// Sends raw bytes and returns everything the server answers before closing (or 5 s).
inline std::string raw_request(int port, const std::string& bytes, bool half_close = false) {
  const int fd = connect_loopback(port);
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    // A complete response is enough: after a malformed request the server cannot know
    // the client asked to close, and keeps the connection until its keep-alive timeout.
    auto end = out.find("\r\n\r\n");
    auto length = out.find("Content-Length: ");
    if (end != std::string::npos && length != std::string::npos && length < end) {
      std::size_t body = std::strtoul(out.c_str() + length + 16, nullptr, 10);
      if (out.size() >= end + 4 + body) break;
    }
  }
  ::close(fd);
  return out;
}

/// A raw client connection with a guard timeout on every read.
class Raw {
 public:
  explicit Raw(int port, const char* from = nullptr) : fd_(connect_loopback(port, from)) {}
  ~Raw() { close(); }
  void send(const std::string& bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(bytes.size()));
  }
  /// Closes the connection now (the destructor then does nothing).
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  /// Reads until `marker` has arrived (or EOF, or the guard runs out); returns all read.
  std::string read_until(const std::string& marker) {
    while (got_.find(marker) == std::string::npos && read_more(kGuardMs)) {
    }
    return got_;
  }
  /// Takes one whole answer (head, and the Content-Length body unless it answers a HEAD).
  std::string answer(bool to_head = false) {
    read_until("\r\n\r\n");
    const auto head_end = got_.find("\r\n\r\n");
    if (head_end == std::string::npos) return take(got_.size());
    std::size_t length = 0;
    const auto cl = got_.find("Content-Length: ");
    if (!to_head && cl != std::string::npos && cl < head_end)
      length = std::strtoul(got_.c_str() + cl + 16, nullptr, 10);
    while (got_.size() < head_end + 4 + length && read_more(kGuardMs)) {
    }
    return take(std::min(got_.size(), head_end + 4 + length));
  }
  /// Whether the server closed the connection (EOF) within the guard.
  bool closed() {
    while (!eof_ && read_more(kGuardMs)) {
    }
    return eof_;
  }

 private:
  static constexpr int kGuardMs = 4000;
  // Reads what is there; false on EOF or when nothing came within the guard.
  bool read_more(int guard_ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, guard_ms) <= 0) return false;
    char buf[16384];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    got_.append(buf, static_cast<std::size_t>(n));
    return true;
  }
  std::string take(std::size_t n) {
    std::string out = got_.substr(0, n);
    got_.erase(0, n);
    return out;
  }
  int fd_ = -1;
  std::string got_;
  bool eof_ = false;
};

/// The status code of a raw HTTP response, 0 when there is none.
/// Polls `done` every 2 ms for up to 5 s; whether it came true. For what a server does
/// after it answers (counting a request, finishing a reload): never a fixed sleep.
template <class F>
bool eventually(F done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

inline int raw_status(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0 || response.size() < 12) return 0;
  return std::atoi(response.substr(9, 3).c_str());
}

}  // namespace kbtest
