// Answers already built (a record's JSON, a page without parameters, a 304) are written by
// the event loop itself, without a worker: byte for byte what a worker would answer, in
// order behind and before pipelined requests, never from an older snapshot, and never
// while every answer is logged.

#include <thread>

#include "server_harness.h"

using namespace kbtest;

namespace {

std::uint64_t answered_inline(const TestServer& s) {
  const std::string metrics = get(s, "/metrics")->body;
  const std::string name = "kb_http_answered_inline_total ";
  const auto at = metrics.find("\n" + name);
  REQUIRE(at != std::string::npos);
  return std::stoull(metrics.substr(at + 1 + name.size()));
}

// Every header but Date, in order, as one string.
std::string headers_of(const httplib::Response& res) {
  std::string out;
  for (const auto& [k, v] : res.headers)
    if (k != "Date") out += k + ": " + v + "\n";
  return out;
}

// Sends `bytes` on one connection and reads until the server closes it.
std::string exchange(int port, const std::string& bytes) {
  const int fd = connect_loopback(port);
  REQUIRE(::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(bytes.size()));
  std::string out;
  char buf[8192];
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < guard) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a cached answer is written by the loop, identical to the worker's", "[server][inline]") {
  TestServer s;
  const std::string paths[] = {"/api/v1/gotchas/beta-major", "/gotchas/beta-major", "/"};
  std::uint64_t inline_before = answered_inline(s);
  for (const std::string& path : paths) {
    INFO(path);
    auto first = get(s, path);  // built by a worker, and kept
    REQUIRE(first->status == 200);
    CHECK(answered_inline(s) == inline_before);
    auto second = get(s, path);  // the kept bytes, from the loop
    CHECK(answered_inline(s) == inline_before + 1);
    CHECK(second->status == 200);
    CHECK(second->body == first->body);
    CHECK(headers_of(*second) == headers_of(*first));
    inline_before += 1;
  }
  // HEAD of a kept page: the same head, no body.
  auto c = s.client();
  auto head = c.Head("/gotchas/beta-major");
  REQUIRE(head);
  CHECK(head->status == 200);
  CHECK(head->body.empty());
  CHECK(answered_inline(s) == inline_before + 1);
  // A conditional GET with the current ETag: 304 from the loop, even for a record never
  // asked before (as a worker answers it: the ETag is the snapshot's).
  const std::string etag = get(s, "/api/v1/gotchas/beta-major")->get_header_value("ETag");
  const std::uint64_t before_304 = answered_inline(s);
  auto not_modified = get(s, "/api/v1/engines/vllm", {{"If-None-Match", etag}});
  CHECK(not_modified->status == 304);
  CHECK(not_modified->get_header_value("ETag") == etag);
  CHECK(answered_inline(s) == before_304 + 1);
}

TEST_CASE("what the loop cannot answer from what is built goes to a worker", "[server][inline]") {
  TestServer s;
  get(s, "/api/v1/gotchas/beta-major");
  get(s, "/search");
  const std::uint64_t before = answered_inline(s);
  // A strict route's unknown parameter: the worker's 400, with its words.
  auto bad = get(s, "/api/v1/gotchas/beta-major?bogus=1");
  CHECK(bad->status == 400);
  CHECK(json::parse(bad->body)["error"]["code"] == "unknown-parameter");
  // A page with a query is rendered for its request; a missing record is a 404 with
  // candidates; neither is ever kept.
  CHECK(get(s, "/search?q=nixl")->status == 200);
  CHECK(get(s, "/search?q=nixl")->status == 200);
  CHECK(get(s, "/api/v1/gotchas/beta-majr")->status == 404);
  CHECK(get(s, "/api/v1/gotchas/beta-majr")->status == 404);
  // Routes that are not a record or a page: always a worker.
  CHECK(get(s, "/healthz")->status == 200);
  CHECK(get(s, "/healthz")->status == 200);
  CHECK(answered_inline(s) == before);
}

TEST_CASE("pipelined requests around a loop-written answer are answered in order",
          "[server][inline]") {
  TestServer s;
  const std::string record = get(s, "/api/v1/gotchas/beta-major")->body;  // now kept
  const std::string engine = get(s, "/api/v1/engines/vllm")->body;        // now kept
  const std::uint64_t before = answered_inline(s);
  const std::string get_record = "GET /api/v1/gotchas/beta-major HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string out =
      exchange(s.port(), get_record + "GET /api/v1/nope HTTP/1.1\r\nHost: x\r\n\r\n" + get_record +
                             "GET /api/v1/engines/vllm HTTP/1.1\r\nHost: x\r\n\r\n" + get_record +
                             "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  // Six answers, in the order asked.
  REQUIRE(count(out, "HTTP/1.1 ") == 6);
  std::vector<std::size_t> at;
  for (auto p = out.find("HTTP/1.1 "); p != std::string::npos; p = out.find("HTTP/1.1 ", p + 1))
    at.push_back(p);
  at.push_back(out.size());
  std::vector<std::string> answers;
  for (std::size_t i = 0; i + 1 < at.size(); ++i)
    answers.push_back(out.substr(at[i], at[i + 1] - at[i]));
  const auto body = [](const std::string& a) { return a.substr(a.find("\r\n\r\n") + 4); };
  CHECK(raw_status(answers[0]) == 200);
  CHECK(body(answers[0]) == record);
  CHECK(raw_status(answers[1]) == 404);
  CHECK(body(answers[2]) == record);
  CHECK(body(answers[3]) == engine);
  CHECK(body(answers[4]) == record);
  CHECK(raw_status(answers[5]) == 200);
  CHECK(answers[5].find("Connection: close\r\n") != std::string::npos);
  // At least the first came from the loop; behind it the loop hands on to workers
  // rather than writing answers inside answers.
  const std::uint64_t inline_now = answered_inline(s);
  CHECK(inline_now > before);
  CHECK(inline_now <= before + 4);
}

TEST_CASE("a loop-written answer follows an edit like a worker's", "[server][inline]") {
  TreeCopy tree;
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  TestServer s(cfg);
  const std::string before = get(s, "/api/v1/gotchas/beta-major")->body;
  CHECK(get(s, "/api/v1/gotchas/beta-major")->body == before);  // kept
  tree.remove("gotchas/beta-major.yaml");
  const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int status = 200;
  while (status == 200 && std::chrono::steady_clock::now() < guard) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    status = get(s, "/api/v1/gotchas/beta-major")->status;
  }
  CHECK(status == 404);
  // Once gone, never served again from what was kept before.
  for (int i = 0; i < 5; ++i) CHECK(get(s, "/api/v1/gotchas/beta-major")->status == 404);
}

TEST_CASE("with an access log every answer is a worker's, and logged", "[server][inline]") {
  TempDir dir;
  kb::http::ServeConfig cfg;
  cfg.access_log = (dir.path() / "access.log").string();
  TestServer s(cfg);
  for (int i = 0; i < 3; ++i) CHECK(get(s, "/api/v1/gotchas/beta-major")->status == 200);
  CHECK(answered_inline(s) == 0);
  std::ifstream in(cfg.access_log);
  std::string line;
  std::size_t logged = 0;
  while (std::getline(in, line))
    logged += line.find("/api/v1/gotchas/beta-major") != std::string::npos;
  CHECK(logged == 3);
}
