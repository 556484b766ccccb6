// Every input pays for itself (issue 33): a route reads at most its own body limit, the
// request bytes still arriving are bounded per peer and in all, and a single check is
// budgeted like a batch. Each refusal is a 413 or a 503 with a stable code, the memory
// goes, and /healthz answers meanwhile. The socket guards are against hangs only.

#include <thread>

#include "server_harness.h"

using namespace kbtest;

namespace {

json body_json(const std::string& answer) {
  const auto end = answer.find("\r\n\r\n");
  return json::parse(answer.substr(end + 4), nullptr, false);
}

const std::string kCheckHead =
    "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
const std::string kBatchHead =
    "POST /api/v1/check/batch HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";

// /metrics until it has `line` (asked for a bounded while): what the event loop does on
// its own time is polled, never waited for with a sleep.
std::string metrics_with(const TestServer& s, const std::string& line) {
  std::string body;
  for (int i = 0; i < 200; ++i) {
    body = get(s, "/metrics")->body;
    if (body.find(line) != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  INFO(line);
  CHECK(body.find(line) != std::string::npos);
  return body;
}

// A batch body of exactly `size` bytes: an empty list, padded.
std::string empty_batch(std::size_t size) {
  return "[" + std::string(size - 2, ' ') + "]";
}

}  // namespace

TEST_CASE("a route reads at most its own body limit, declared or chunked", "[server][budget]") {
  TestServer s;  // the server's limit: 8 MiB; POST /api/v1/check's: 1 MiB
  {
    Raw c(s.port());
    c.send(kCheckHead + "Content-Length: 1048577\r\nExpect: 100-continue\r\n\r\n");
    const std::string a = c.answer();
    CHECK(raw_status(a) == 413);
    CHECK(a.find("100 Continue") == std::string::npos);
    CHECK(body_json(a)["error"]["code"] == "too-large");
    CHECK(body_json(a)["error"]["message"] == "the body is larger than 1048576 bytes");
    CHECK(c.closed());
  }
  {
    // 600 KiB, then a chunk that would make it 1.2 MiB: refused at its size line.
    Raw c(s.port());
    c.send(kCheckHead + "Transfer-Encoding: chunked\r\n\r\n96000\r\n" + std::string(0x96000, ' ') +
           "\r\n96000\r\n");
    const std::string a = c.answer();
    CHECK(raw_status(a) == 413);
    CHECK(body_json(a)["error"]["message"] == "the body is larger than 1048576 bytes");
    CHECK(c.closed());
  }
  {
    // The batch route takes up to the server's limit.
    Raw c(s.port());
    c.send(kBatchHead + "Content-Length: 1048577\r\nConnection: close\r\n\r\n" +
           empty_batch(1048577));
    const std::string a = c.answer();
    CHECK(raw_status(a) == 200);
    CHECK(body_json(a)["count"] == 0);
  }
  // A GET's body means nothing: 16 KiB of one is read and ignored, more is refused.
  const std::string get = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  CHECK(raw_status(raw_request(s.port(), get + "Content-Length: 5\r\n\r\nhello")) == 200);
  const std::string a = raw_request(s.port(), get + "Content-Length: 16385\r\n\r\n");
  CHECK(raw_status(a) == 413);
  CHECK(body_json(a)["error"]["message"] == "the body is larger than 16384 bytes");
  CHECK(s.errors().empty());
}

TEST_CASE("request bytes still arriving are bounded per peer, past it a request gets 503",
          "[server][budget]") {
  kb::http::ServeConfig cfg;
  cfg.max_body_bytes = 200 * 1024;
  cfg.max_buffered_bytes_per_peer = 256 * 1024;
  cfg.max_buffered_bytes = 1 << 20;
  TestServer s(cfg);
  const std::string head = kBatchHead + "Content-Length: 150000\r\n\r\n";
  const std::string body = empty_batch(150000);
  Raw first(s.port());
  first.send(head + body.substr(0, 140000));
  metrics_with(s, "kb_http_request_bytes_buffered " + std::to_string(head.size() + 140000) + "\n");
  // The second request from the same address takes the peer past 256 KiB.
  Raw second(s.port());
  second.send(head + body.substr(0, 140000));
  const std::string refused = second.answer();
  CHECK(raw_status(refused) == 503);
  CHECK(refused.find("\r\nRetry-After: 1\r\n") != std::string::npos);
  CHECK(body_json(refused)["error"]["code"] == "overloaded");
  CHECK(body_json(refused)["error"]["message"] ==
        "this address is sending too many request bytes at once; retry in a moment");
  CHECK(second.closed());
  CHECK(get(s, "/healthz")->status == 200);
  // The first is untouched: the rest of its body gets its answer.
  first.send(body.substr(140000));
  CHECK(raw_status(first.answer()) == 200);
  const std::string m = metrics_with(s, "kb_http_request_bytes_buffered 0\n");
  CHECK(m.find("kb_http_requests_refused_buffered_total{limit=\"per_peer\"} 1\n") !=
        std::string::npos);
  CHECK(m.find("kb_http_requests_refused_buffered_total{limit=\"global\"} 0\n") !=
        std::string::npos);
  CHECK(s.errors().empty());
}

TEST_CASE("request bytes still arriving are bounded in all, whoever sends them",
          "[server][budget]") {
  kb::http::ServeConfig cfg;
  cfg.max_body_bytes = 200 * 1024;
  cfg.max_buffered_bytes_per_peer = 256 * 1024;
  cfg.max_buffered_bytes = 300 * 1024;
  TestServer s(cfg);
  const std::string head = kBatchHead + "Content-Length: 150000\r\n\r\n";
  const std::string part = empty_batch(150000).substr(0, 140000);
  Raw one(s.port(), "127.0.0.1");
  one.send(head + part);
  Raw two(s.port(), "127.0.0.2");
  two.send(head + part);
  metrics_with(
      s, "kb_http_request_bytes_buffered " + std::to_string(2 * (head.size() + 140000)) + "\n");
  Raw three(s.port(), "127.0.0.3");
  three.send(head + part);
  const std::string refused = three.answer();
  CHECK(raw_status(refused) == 503);
  CHECK(body_json(refused)["error"]["message"] ==
        "the server holds too many request bytes; retry in a moment");
  CHECK(three.closed());
  CHECK(get(s, "/healthz")->status == 200);
  metrics_with(s, "kb_http_requests_refused_buffered_total{limit=\"global\"} 1\n");
  // What the refused one sent is freed; the other two still hold theirs.
  metrics_with(
      s, "kb_http_request_bytes_buffered " + std::to_string(2 * (head.size() + 140000)) + "\n");
}

TEST_CASE("the budgets of the front end are validated", "[server][budget]") {
  kb::http::ServeConfig cfg;
  cfg.max_buffered_bytes_per_peer = cfg.max_body_bytes - 1;
  CHECK_THROWS_WITH(cfg.validate(),
                    "the buffered request bytes must be at least the body limit per peer, and at "
                    "least that in all");
  cfg = {};
  cfg.max_buffered_bytes = cfg.max_buffered_bytes_per_peer - 1;
  CHECK_THROWS_AS(cfg.validate(), kb::Error);
}
