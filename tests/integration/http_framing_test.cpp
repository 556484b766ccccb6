// The front end's strict framing on the real server, over raw sockets: every leniency
// that matters behind a proxy is answered with its status at once, then the connection
// closes. The socket timeouts are guards against hangs, not measurements.

#include <thread>

#include "server_harness.h"

using namespace kbtest;

namespace {

int status_of(const std::string& answer) {
  return raw_status(answer);
}

json body_of(const std::string& answer) {
  const auto end = answer.find("\r\n\r\n");
  return json::parse(answer.substr(end + 4), nullptr, false);
}

// Sends `bytes` on a kept-alive connection (no Connection: close) and returns the answer,
// checking the server closed the connection after it.
std::string refused(int port, const std::string& bytes) {
  Raw c(port);
  c.send(bytes);
  std::string a = c.answer();
  INFO(bytes.substr(0, 120) << " -> " << a.substr(0, 300));
  CHECK(a.find("Connection: close\r\n") != std::string::npos);
  CHECK(c.closed());
  return a;
}

const std::string kPost =
    "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";

}  // namespace

TEST_CASE("framing leniencies are refused at once with their status", "[server][framing]") {
  kb::http::ServeConfig cfg;
  cfg.max_body_bytes = 64 * 1024;
  TestServer s(cfg);
  struct Case {
    std::string bytes;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {kPost + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}", 400,
       "invalid-argument"},
      {kPost + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "invalid-argument"},
      {kPost + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400, "invalid-argument"},
      {kPost + "Content-Length: 2, 2\r\n\r\n{}", 400, "invalid-argument"},
      {kPost + "Content-Length: -2\r\n\r\n{}", 400, "invalid-argument"},
      {kPost + "\r\n", 411, "length-required"},
      {kPost + "Transfer-Encoding: gzip\r\n\r\n", 501, "not-implemented"},
      {kPost + "Content-Length: 100000000\r\n\r\n", 413, "too-large"},
      {kPost + "Content-Length: 2\r\nExpect: something\r\n\r\n", 417, "expectation-failed"},
      {"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505, "http-version-not-supported"},
      {"GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n", 400, "invalid-argument"},
      {"GET /healthz HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n", 400, "invalid-argument"},
      {"GET /healthz HTTP/1.1\rHost: x\r\n\r\n", 400, "invalid-argument"},
      {"GET /healthz HTTP/1.1\r\nX-Big: " + std::string(17000, 'a') + "\r\n\r\n", 431,
       "headers-too-large"},
  };
  for (const auto& c : cases) {
    const std::string a = refused(s.port(), c.bytes);
    INFO(c.bytes.substr(0, 100) << " -> " << a.substr(0, 300));
    CHECK(status_of(a) == c.status);
    CHECK(a.find("Content-Type: application/json\r\n") != std::string::npos);
    CHECK(body_of(a)["error"]["code"] == c.code);
    CHECK(a.find("\r\nDate: ") != std::string::npos);
  }
  std::string fields = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 101; ++i) fields += "X-" + std::to_string(i) + ": 1\r\n";
  CHECK(status_of(refused(s.port(), fields + "\r\n")) == 431);
  CHECK(s.errors().empty());
}

TEST_CASE("413 comes before the body and without 100 Continue, 100 only when it is read",
          "[server][framing]") {
  kb::http::ServeConfig cfg;
  cfg.max_body_bytes = 64 * 1024;
  TestServer s(cfg);
  {
    Raw c(s.port());
    c.send(kPost + "Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n");
    const std::string a = c.answer();
    CHECK(a.rfind("HTTP/1.1 413 ", 0) == 0);
    CHECK(a.find("100 Continue") == std::string::npos);
    CHECK(c.closed());
  }
  {
    Raw c(s.port());
    const std::string body = R"({"engines": [{"engine": "vllm", "version": "0.26.0"}]})";
    c.send(kPost + "Content-Length: " + std::to_string(body.size()) +
           "\r\nExpect: 100-continue\r\n\r\n");
    const std::string interim = c.read_until("\r\n\r\n");
    CHECK(interim == "HTTP/1.1 100 Continue\r\n\r\n");
    c.answer();  // takes the interim answer off the stream
    c.send(body);
    const std::string a = c.answer();
    CHECK(status_of(a) == 200);
    CHECK(body_of(a)["findings"].is_array());
  }
}

TEST_CASE("a request that does not arrive in time gets 408 and the connection closes",
          "[server][framing]") {
  kb::http::ServeConfig cfg;
  cfg.request_timeout = std::chrono::milliseconds(500);
  TestServer s(cfg);
  Raw c(s.port());
  c.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  const std::string a = c.answer();
  CHECK(status_of(a) == 408);
  CHECK(body_of(a)["error"]["code"] == "request-timeout");
  CHECK(c.closed());
  Raw body(s.port());
  body.send(kPost + "Content-Length: 100\r\n\r\n{");
  CHECK(status_of(body.answer()) == 408);
  const std::string metrics = get(s, "/metrics")->body;
  CHECK(metrics.find("kb_http_request_timeouts_total 2\n") != std::string::npos);
  CHECK(metrics.find("kb_http_connections_timed_out_total{deadline=\"request\"} 2\n") !=
        std::string::npos);
}

TEST_CASE("keep-alive, pipelining in order, HTTP/1.0 and the request cap", "[server][framing]") {
  TestServer s;
  {
    Raw c(s.port());
    c.send(
        "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /api/v1/nope HTTP/1.1\r\nHost: x\r\n\r\n"
        "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        "GET /api/v1/engines/vllm HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    const std::string first = c.answer();
    const std::string second = c.answer();
    const std::string third = c.answer(true);
    const std::string fourth = c.answer();
    CHECK(status_of(first) == 200);
    CHECK(first.find("Connection: close") == std::string::npos);
    CHECK(status_of(second) == 404);
    CHECK(body_of(second)["error"]["code"] == "not-found");
    CHECK(status_of(third) == 200);
    CHECK(third.substr(third.size() - 4) == "\r\n\r\n");
    CHECK(status_of(fourth) == 200);
    CHECK(body_of(fourth)["id"] == "engines/vllm");
    CHECK(fourth.find("Connection: close\r\n") != std::string::npos);
    CHECK(c.closed());
  }
  {
    Raw c(s.port());
    c.send("GET /healthz HTTP/1.0\r\n\r\n");
    const std::string a = c.answer();
    CHECK(status_of(a) == 200);
    CHECK(a.find("Connection: close\r\n") != std::string::npos);
    CHECK(c.closed());
  }
  {
    Raw c(s.port());
    c.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    CHECK(c.answer().find("Connection: keep-alive\r\n") != std::string::npos);
    c.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    CHECK(status_of(c.answer()) == 200);
  }
  {
    // At most 1000 requests per connection: the 1000th answer closes it.
    Raw c(s.port());
    std::string batch;
    for (int i = 0; i < 100; ++i) batch += "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    int answered = 0;
    std::string last;
    for (int round = 0; round < 10; ++round) {
      c.send(batch);
      for (int i = 0; i < 100; ++i) {
        last = c.answer();
        if (status_of(last) == 200) ++answered;
      }
    }
    CHECK(answered == 1000);
    CHECK(last.find("Connection: close\r\n") != std::string::npos);
    CHECK(c.closed());
  }
}

TEST_CASE("error answers stay small whatever the path", "[server][framing]") {
  TestServer s;
  std::string deep;
  while (deep.size() < 2000) deep += "/a";
  for (const std::string& path :
       {deep, "/gotchas" + deep, "/api/v1" + deep, "/" + std::string(2000, 'x'),
        "/gotchas/" + std::string(2000, 'x')}) {
    auto res = get(s, path);
    INFO(path.substr(0, 40) << " -> " << res->status << ", " << res->body.size() << " bytes");
    CHECK(res->status == 404);
    CHECK(res->body.size() < 8 * 1024);
  }
}

TEST_CASE("connection figures appear in /metrics", "[server][framing]") {
  TestServer s;
  Raw idle(s.port());
  Raw reading(s.port());
  reading.send("GET /healthz HTTP/1.1\r\nHo");
  auto client = s.client();
  client.set_keep_alive(true);  // one connection: the one being answered
  std::string m;
  // The loop takes the bytes asynchronously: ask until it counted them (bounded).
  for (int i = 0; i < 100; ++i) {
    auto res = client.Get("/metrics");
    REQUIRE(res);
    m = res->body;
    if (m.find("kb_http_connections{state=\"reading\"} 1\n") != std::string::npos &&
        m.find("kb_http_connections{state=\"idle\"} 1\n") != std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(m.find("kb_http_connections{state=\"reading\"} 1\n") != std::string::npos);
  CHECK(m.find("kb_http_connections{state=\"idle\"} 1\n") != std::string::npos);
  CHECK(m.find("kb_http_connections{state=\"handling\"} 1\n") != std::string::npos);
  CHECK(m.find("kb_http_connection_limit{scope=\"per_peer\"} 256\n") != std::string::npos);
  CHECK(m.find("kb_http_connections_evicted_total{limit=\"per_peer\"} 0\n") != std::string::npos);
  CHECK(m.find("kb_http_connections_refused_total{limit=\"global\"} 0\n") != std::string::npos);
  CHECK(m.find("kb_http_connections_accepted_total ") != std::string::npos);
}

TEST_CASE("the front end's settings are validated", "[server][framing]") {
  auto rejects = [](auto edit) {
    kb::http::ServeConfig cfg;
    cfg.records = kServeFixture;
    edit(cfg);
    try {
      cfg.validate();
    } catch (const kb::Error& e) {
      return e.code() == kb::Errc::invalid_argument;
    }
    return false;
  };
  CHECK(rejects([](auto& c) { c.request_timeout = std::chrono::milliseconds(0); }));
  CHECK(rejects([](auto& c) { c.idle_timeout = std::chrono::hours(2); }));
  CHECK(rejects([](auto& c) { c.write_timeout = std::chrono::milliseconds(-1); }));
  CHECK(rejects([](auto& c) { c.max_connections_per_peer = 0; }));
  CHECK(rejects([](auto& c) { c.max_connections = 2000000; }));
  CHECK_FALSE(rejects([](auto& c) { c.max_connections = 0; }));
}
