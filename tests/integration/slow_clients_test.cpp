// Slow clients cost a connection, never a worker: with more slow clients than workers a
// fresh GET /healthz is answered, and over the per-peer limit the oldest slow connection
// makes room. Kept small for CI; bench/slow_clients.py runs 70 and 200.

#include <atomic>
#include <thread>

#include "server_harness.h"

using namespace kbtest;

namespace {

/// Clients that each started a request and send one more byte per `every`, from one thread.
class SlowClients {
 public:
  SlowClients(int port, int headers, int bodies, std::chrono::milliseconds every) {
    for (int i = 0; i < headers; ++i) {
      fds_.push_back(connect_loopback(port));
      send(fds_.back(), "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ");
    }
    for (int i = 0; i < bodies; ++i) {
      fds_.push_back(connect_loopback(port));
      send(fds_.back(),
           "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
           "Content-Length: 100000\r\n\r\n{");
    }
    trickle_ = std::thread([this, every] {
      while (!stop_) {
        for (int fd : fds_) send(fd, " ");
        for (auto waited = std::chrono::milliseconds(0); waited < every && !stop_;
             waited += std::chrono::milliseconds(10))
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  ~SlowClients() {
    stop_ = true;
    trickle_.join();
    for (int fd : fds_) ::close(fd);
  }
  int fd(std::size_t i) const { return fds_.at(i); }

  static void send(int fd, const std::string& bytes) {
    [[maybe_unused]] auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }

 private:
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::thread trickle_;
};

// Whether the server closed `fd` (EOF or reset) within the guard.
bool closed_by_server(int fd, int guard_ms = 4000) {
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, guard_ms) <= 0) return false;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return true;
  }
}

// /metrics, on a kept-alive client; `line` must be in it (asked until it is, bounded).
std::string metrics_with(httplib::Client& client, const std::string& line) {
  std::string body;
  for (int i = 0; i < 100; ++i) {
    auto res = client.Get("/metrics");
    REQUIRE(res);
    body = res->body;
    if (body.find(line) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return body;
}

}  // namespace

TEST_CASE("40 slow clients and 4 workers: /healthz still answers", "[server][slow]") {
  kb::http::ServeConfig cfg;
  cfg.threads = 4;
  TestServer s(cfg);
  SlowClients slow(s.port(), 34, 6, std::chrono::milliseconds(1000));
  auto client = s.client();
  client.set_keep_alive(true);
  client.set_read_timeout(5);  // a guard: fail rather than hang
  // Every slow client is connected and mid-request before the probe.
  const std::string m = metrics_with(client, "kb_http_connections{state=\"reading\"} 40\n");
  CHECK(m.find("kb_http_connections{state=\"reading\"} 40\n") != std::string::npos);
  httplib::Client fresh("127.0.0.1", s.port());
  fresh.set_connection_timeout(5);
  fresh.set_read_timeout(5);
  for (int i = 0; i < 3; ++i) {
    auto res = fresh.Get("/healthz");
    REQUIRE(res);
    CHECK(res->status == 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  auto check =
      fresh.Post("/api/v1/check", R"({"engines": [{"engine": "vllm"}]})", "application/json");
  REQUIRE(check);
  CHECK(check->status == 200);
}

TEST_CASE("over the per-peer limit the oldest slow connection makes room", "[server][slow]") {
  kb::http::ServeConfig cfg;
  cfg.threads = 2;
  cfg.max_connections_per_peer = 8;
  TestServer s(cfg);
  SlowClients slow(s.port(), 8, 0, std::chrono::milliseconds(1000));
  {
    // All eight are in before the ninth arrives (each holds a partial request).
    httplib::Client probe("127.0.0.1", s.port());
    probe.set_keep_alive(true);
    probe.set_read_timeout(5);
    // The probe itself is the ninth connection: it evicts the oldest slow one.
    auto res = probe.Get("/healthz");
    REQUIRE(res);
    CHECK(res->status == 200);
    CHECK(closed_by_server(slow.fd(0)));
    const std::string m = metrics_with(probe, "kb_http_connections_evicted_total");
    CHECK(m.find("kb_http_connections_evicted_total{limit=\"per_peer\"} 1\n") != std::string::npos);
    CHECK(m.find("kb_http_connections_refused_total{limit=\"per_peer\"} 0\n") != std::string::npos);
    CHECK(m.find("kb_http_connection_limit{scope=\"per_peer\"} 8\n") != std::string::npos);
  }
  // A second fresh client evicts the next oldest, and is answered too.
  httplib::Client again("127.0.0.1", s.port());
  again.set_read_timeout(5);
  auto res = again.Get("/healthz");
  REQUIRE(res);
  CHECK(res->status == 200);
}

namespace {

// A connection from `source` (any 127.0.0.0/8 address is this machine), so a test can
// be a second peer.
int connect_from(const char* source, int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  REQUIRE(::inet_pton(AF_INET, source, &local.sin_addr) == 1);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

// Everything `fd` receives until the server closes it (or the guard runs out).
std::string read_all(int fd, int guard_ms = 4000) {
  std::string out;
  char buf[4096];
  pollfd p{fd, POLLIN, 0};
  while (::poll(&p, 1, guard_ms) > 0) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// /metrics asked as peer 127.0.0.2 until it holds `line` (bounded); returns the last.
std::string metrics_from_other_peer(int port, const std::string& line) {
  std::string body;
  for (int i = 0; i < 100; ++i) {
    const int fd = connect_from("127.0.0.2", port);
    SlowClients::send(fd, "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    body = read_all(fd);
    ::close(fd);
    if (body.find(line) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return body;
}

}  // namespace

TEST_CASE("when no connection can make room the new one gets 503, a stalled answer is dropped",
          "[server][slow]") {
  kb::http::ServeConfig cfg;
  cfg.threads = 2;
  cfg.max_connections_per_peer = 1;
  cfg.write_timeout = std::chrono::milliseconds(2000);
  TestServer s(cfg);
  // One client pipelines exports (14 KB each, 20 MB in all) and reads none: its answers
  // fill the socket buffers and the connection stays `writing`, which is never evicted.
  const int stuck = connect_loopback(s.port());
  std::string requests;
  for (int i = 0; i < 1500; ++i) requests += "GET /api/v1/export HTTP/1.1\r\nHost: x\r\n\r\n";
  SlowClients::send(stuck, requests);
  std::string m = metrics_from_other_peer(s.port(), "kb_http_connections{state=\"writing\"} 1\n");
  REQUIRE(m.find("kb_http_connections{state=\"writing\"} 1\n") != std::string::npos);

  const int refused = connect_loopback(s.port());
  SlowClients::send(refused, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
  const std::string answer = read_all(refused);
  ::close(refused);
  INFO(answer);
  CHECK(raw_status(answer) == 503);
  CHECK(answer.find("Retry-After: 1\r\n") != std::string::npos);
  CHECK(answer.find("Connection: close\r\n") != std::string::npos);
  CHECK(answer.find("\"code\":\"overloaded\"") != std::string::npos);

  // No write progress for write_timeout: the stalled answer is dropped, room again.
  m = metrics_from_other_peer(s.port(),
                              "kb_http_connections_timed_out_total{deadline=\"write\"} 1\n");
  CHECK(m.find("kb_http_connections_timed_out_total{deadline=\"write\"} 1\n") != std::string::npos);
  CHECK(m.find("kb_http_connections_refused_total{limit=\"per_peer\"} 1\n") != std::string::npos);
  ::close(stuck);
  httplib::Client fresh("127.0.0.1", s.port());
  fresh.set_read_timeout(5);
  auto res = fresh.Get("/healthz");
  REQUIRE(res);
  CHECK(res->status == 200);
}
