// The front end's request parser: every framing rule with its exact status, chunked
// bodies, pipelining, and the same results whether bytes come at once or one by one.

#include <catch2/catch.hpp>

#include <string>

#include "net/request_parser.h"

using kb::http::net::ParserLimits;
using kb::http::net::RequestParser;

namespace {

// Feeds `bytes` in pieces of `step` bytes (0: all at once); returns the bytes taken.
std::size_t feed(RequestParser& p, const std::string& bytes, std::size_t step = 0) {
  std::size_t used = 0;
  if (step == 0) return p.feed(bytes);
  while (used < bytes.size() && !p.complete() && !p.failed()) {
    const std::size_t n = std::min(step, bytes.size() - used);
    const std::size_t took = p.feed(std::string_view(bytes).substr(used, n));
    used += took;
    if (took < n) break;
  }
  return used;
}

// The status a request is refused with, 0 when it parses (complete), -1 when incomplete.
int status_of(const std::string& bytes, ParserLimits limits = {}, std::size_t step = 0) {
  RequestParser p(limits);
  feed(p, bytes, step);
  if (p.failed()) return p.error().status;
  return p.complete() ? 0 : -1;
}

const std::string kPost = "POST /api/v1/check HTTP/1.1\r\nHost: x\r\n";

}  // namespace

TEST_CASE("a GET parses into method, target, decoded path, params and headers", "[net][parser]") {
  for (std::size_t step : {0, 1, 7}) {
    RequestParser p;
    const std::string bytes =
        "GET /a%20b/c?q=x%41&q=2&flag&y=1+2 HTTP/1.1\r\nHost: example\r\nX-Thing:  v  \r\n\r\n";
    CHECK(feed(p, bytes, step) == bytes.size());
    REQUIRE(p.complete());
    auto& r = p.request();
    CHECK(r.method == "GET");
    CHECK(r.target == "/a%20b/c?q=x%41&q=2&flag&y=1+2");
    CHECK(r.path == "/a b/c");
    CHECK(r.version == "HTTP/1.1");
    CHECK(r.get_param_value_count("q") == 2);
    CHECK(r.get_param_value("q", 0) == "xA");
    CHECK(r.get_param_value("y") == "1 2");
    CHECK(r.has_param("flag"));
    CHECK(r.get_header_value("host") == "example");
    CHECK(r.get_header_value("X-Thing") == "v");
    CHECK(r.body.empty());
    CHECK(p.keep_alive());
  }
}

TEST_CASE("the request target may be absolute or *", "[net][parser]") {
  RequestParser p;
  feed(p, "GET http://kb.example:8080/api/v1?q=1 HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(p.complete());
  CHECK(p.request().path == "/api/v1");
  CHECK(p.request().get_param_value("q") == "1");
  RequestParser star;
  feed(star, "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(star.complete());
  CHECK(star.request().path == "*");
  CHECK(status_of("GET * HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("GET api HTTP/1.1\r\n\r\n") == 400);
}

TEST_CASE("the request line: only HTTP/1.0 and 1.1, one space apart", "[net][parser]") {
  CHECK(status_of("GET / HTTP/1.0\r\n\r\n") == 0);
  CHECK(status_of("GET / HTTP/2.0\r\n\r\n") == 505);
  CHECK(status_of("GET / HTTP/9.9\r\n\r\n") == 505);
  CHECK(status_of("GET / HTTP/2\r\n\r\n") == 505);
  CHECK(status_of("GET / HTTP/1.1x\r\n\r\n") == 400);
  CHECK(status_of("GET / http/1.1\r\n\r\n") == 400);
  CHECK(status_of("GET  / HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1 \r\n\r\n") == 400);
  CHECK(status_of("GET /\r\n\r\n") == 400);
  CHECK(status_of("GARBAGE\r\n\r\n") == 400);
  CHECK(status_of("G(T / HTTP/1.1\r\n\r\n") == 400);
  CHECK(status_of("GET /a\x01 HTTP/1.1\r\n\r\n") == 400);
  // Unknown but well-formed methods parse; the dispatcher answers them 405.
  CHECK(status_of("PROPFIND / HTTP/1.1\r\n\r\n") == 0);
  // Up to four empty lines before the request line are ignored (RFC 9112 2.2).
  CHECK(status_of("\r\n\r\nGET / HTTP/1.1\r\n\r\n") == 0);
  CHECK(status_of("\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n") == 400);
}

TEST_CASE("line endings: a bare CR or a bare LF is refused at once", "[net][parser]") {
  CHECK(status_of("GET / HTTP/1.1\rHost: x\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nHost: x\ry\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\nHost: x\n\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nHost: x\n") == 400);
  // Decided on the byte after the CR, not at the end of the head.
  CHECK(status_of("GET / HTTP/1.1\rX", {}, 1) == 400);
}

TEST_CASE("header fields: no space before the colon, no obs-fold, no controls", "[net][parser]") {
  CHECK(status_of("GET / HTTP/1.1\r\nHost : x\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nHost\t: x\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nX-A: 1\r\n 2\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nX-A: 1\r\n\t2\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\n: x\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nno colon\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nX(A): 1\r\n\r\n") == 400);
  static const char kNul[] = "GET / HTTP/1.1\r\nX-A: a\0b\r\n\r\n";
  CHECK(status_of(std::string(kNul, sizeof kNul - 1)) == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nX-A: a\x7f\r\n\r\n") == 400);
  CHECK(status_of("GET / HTTP/1.1\r\nX-A: a\tb\r\n\r\n") == 0);
  CHECK(status_of("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n") == 400);
}

TEST_CASE("head limits: 16 KiB (431, or 414 for the request line) and 100 fields",
          "[net][parser]") {
  const std::string big(17 * 1024, 'a');
  CHECK(status_of("GET /" + big + " HTTP/1.1\r\n\r\n") == 414);
  CHECK(status_of("GET / HTTP/1.1\r\nX-Big: " + big + "\r\n\r\n") == 431);
  std::string many = "GET / HTTP/1.1\r\n";
  for (int i = 0; i < 100; ++i) many += "X-" + std::to_string(i) + ": 1\r\n";
  CHECK(status_of(many + "\r\n") == 0);
  CHECK(status_of(many + "X-101: 1\r\n\r\n") == 431);
  // Refused as soon as the limit is passed, without waiting for the end of the head.
  RequestParser p;
  feed(p, "GET / HTTP/1.1\r\nX-Big: " + big);
  CHECK(p.failed());
  CHECK(p.error().status == 431);
  // The limits are the caller's.
  ParserLimits small;
  small.max_head_bytes = 64;
  small.max_header_fields = 2;
  CHECK(status_of("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", small) == 431);
  CHECK(status_of("GET / HTTP/1.1\r\nA: " + std::string(60, 'x') + "\r\n\r\n", small) == 431);
}

TEST_CASE("Content-Length: one decimal number, never with Transfer-Encoding", "[net][parser]") {
  CHECK(status_of(kPost + "Content-Length: 2\r\n\r\n{}") == 0);
  CHECK(status_of(kPost + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n") == 400);
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n") == 400);
  CHECK(status_of(kPost + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}") == 400);
  CHECK(status_of(kPost + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}") == 400);
  CHECK(status_of(kPost + "Content-Length: 2, 2\r\n\r\n{}") == 400);
  CHECK(status_of(kPost + "Content-Length: -1\r\n\r\n") == 400);
  CHECK(status_of(kPost + "Content-Length: +2\r\n\r\n{}") == 400);
  CHECK(status_of(kPost + "Content-Length: 0x10\r\n\r\n") == 400);
  CHECK(status_of(kPost + "Content-Length: two\r\n\r\n") == 400);
  CHECK(status_of(kPost + "Content-Length:\r\n\r\n") == 400);
}

TEST_CASE("a body needs a length, within the limit, refused before it is sent", "[net][parser]") {
  CHECK(status_of(kPost + "\r\n") == 411);
  CHECK(status_of("PUT /x HTTP/1.1\r\nHost: x\r\n\r\n") == 411);
  CHECK(status_of("PATCH /x HTTP/1.1\r\nHost: x\r\n\r\n") == 411);
  CHECK(status_of("DELETE /x HTTP/1.1\r\nHost: x\r\n\r\n") == 0);
  CHECK(status_of(kPost + "Content-Length: 0\r\n\r\n") == 0);
  ParserLimits limits;
  limits.max_body_bytes = 1024;
  CHECK(status_of(kPost + "Content-Length: 1024\r\n\r\n" + std::string(1024, 'x'), limits) == 0);
  // Over the limit: 413 when the head ends, before any body byte, with no 100 Continue.
  RequestParser p(limits);
  feed(p, kPost + "Content-Length: 1025\r\nExpect: 100-continue\r\n\r\n");
  CHECK(p.failed());
  CHECK(p.error().status == 413);
  CHECK_FALSE(p.take_continue());
  CHECK(status_of(kPost + "Content-Length: 99999999999999999999999999\r\n\r\n") == 413);
}

TEST_CASE("Expect: 100-continue only when the body will be read, others 417", "[net][parser]") {
  RequestParser p;
  feed(p, kPost + "Content-Length: 2\r\nExpect: 100-continue\r\n\r\n");
  CHECK_FALSE(p.complete());
  CHECK(p.take_continue());
  CHECK_FALSE(p.take_continue());
  feed(p, "{}");
  CHECK(p.complete());
  CHECK(p.request().body == "{}");
  RequestParser empty;
  feed(empty, kPost + "Content-Length: 0\r\nExpect: 100-continue\r\n\r\n");
  CHECK(empty.complete());
  CHECK_FALSE(empty.take_continue());
  CHECK(status_of(kPost + "Content-Length: 2\r\nExpect: 200-ok\r\n\r\n") == 417);
  CHECK(status_of("POST / HTTP/1.0\r\nContent-Length: 2\r\nExpect: 200-ok\r\n\r\n{}") == 0);
}

TEST_CASE("Transfer-Encoding: exactly chunked, decoded, trailers ignored", "[net][parser]") {
  CHECK(status_of(kPost + "Transfer-Encoding: gzip\r\n\r\n") == 501);
  CHECK(status_of(kPost + "Transfer-Encoding: gzip, chunked\r\n\r\n") == 501);
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n") ==
        501);
  CHECK(status_of("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n") == 400);
  const std::string body = "5\r\nhello\r\n6;name=val\r\n world\r\nA\r\n0123456789\r\n0\r\n";
  for (std::size_t step : {0, 1, 3}) {
    RequestParser p;
    const std::string bytes =
        kPost + "Transfer-Encoding: Chunked\r\n\r\n" + body + "X-Trailer: 1\r\n\r\nGET";
    CHECK(feed(p, bytes, step) == bytes.size() - 3);
    REQUIRE(p.complete());
    CHECK(p.request().body == "hello world0123456789");
  }
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\n\r\nzz\r\n") == 400);
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\n\r\n5 x\r\n") == 400);
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n") == 400);
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n") == 413);
  ParserLimits limits;
  limits.max_body_bytes = 1024;
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\n\r\n400\r\n" + std::string(1024, 'x') +
                      "\r\n0\r\n\r\n",
                  limits) == 0);
  CHECK(status_of(kPost + "Transfer-Encoding: chunked\r\n\r\n400\r\n" + std::string(1024, 'x') +
                      "\r\n1\r\n",
                  limits) == 413);
}

TEST_CASE("keep-alive: HTTP/1.1 unless close, HTTP/1.0 only when asked", "[net][parser]") {
  auto keeps = [](const std::string& bytes) {
    RequestParser p;
    feed(p, bytes);
    REQUIRE(p.complete());
    return p.keep_alive();
  };
  CHECK(keeps("GET / HTTP/1.1\r\n\r\n"));
  CHECK_FALSE(keeps("GET / HTTP/1.1\r\nConnection: close\r\n\r\n"));
  CHECK_FALSE(keeps("GET / HTTP/1.1\r\nConnection: Upgrade, Close\r\n\r\n"));
  CHECK_FALSE(keeps("GET / HTTP/1.0\r\n\r\n"));
  CHECK(keeps("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
  RequestParser failed;
  feed(failed, "GET / HTTP/1.1\r\nHost : x\r\n\r\n");
  CHECK_FALSE(failed.keep_alive());
}

TEST_CASE("pipelined requests are taken one at a time", "[net][parser]") {
  const std::string first = kPost + "Content-Length: 2\r\n\r\n{}";
  const std::string second = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  const std::string bytes = first + second + "GET /partial";
  RequestParser p;
  CHECK(p.feed(bytes) == first.size());
  REQUIRE(p.complete());
  CHECK(p.request().body == "{}");
  CHECK(p.feed(bytes) == 0);  // nothing more until reset
  p.reset();
  CHECK_FALSE(p.started());
  CHECK(p.feed(std::string_view(bytes).substr(first.size())) == second.size());
  REQUIRE(p.complete());
  CHECK(p.request().path == "/healthz");
  p.reset();
  CHECK(p.feed("GET /partial") == 12);
  CHECK(p.started());
  CHECK_FALSE(p.complete());
  CHECK_FALSE(p.failed());
}

TEST_CASE("started() turns true with the first byte of a request line", "[net][parser]") {
  RequestParser p;
  p.feed("\r\n");
  CHECK_FALSE(p.started());
  p.feed("G");
  CHECK(p.started());
}

TEST_CASE("a route's body limit applies when the head ends and as chunks arrive", "[net][parser]") {
  ParserLimits limits;
  limits.max_body_bytes = 1000;
  std::string asked;
  limits.route_body_limit = [&](const httplib::Request& req) -> std::size_t {
    asked = req.method + " " + req.path;
    return req.path == "/small" ? 10 : 5000;
  };
  RequestParser p(limits);
  feed(p, "POST /small HTTP/1.1\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n");
  CHECK(asked == "POST /small");
  CHECK(p.failed());
  CHECK(p.error().status == 413);
  CHECK(p.error().message == "the body is larger than 10 bytes");
  CHECK_FALSE(p.take_continue());
  // The server's limit caps a route's larger one.
  CHECK(status_of("POST /big HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", limits) == 413);
  CHECK(status_of("POST /small HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789", limits) == 0);
  // Chunked: refused at the size line of the chunk that passes the limit, before its data.
  for (std::size_t step : {0, 1}) {
    RequestParser c(limits);
    const std::string head = "POST /small HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    const std::size_t used = feed(c, head + "6\r\nabcdef\r\n5\r\nghijk\r\n", step);
    CHECK(c.failed());
    CHECK(c.error().message == "the body is larger than 10 bytes");
    CHECK(used == head.size() + 14);
    CHECK(c.request().body == "abcdef");
  }
}

TEST_CASE("buffered() counts the request's head and body as they arrive", "[net][parser]") {
  RequestParser p;
  const std::string head = "POST /x HTTP/1.1\r\nContent-Length: 10\r\n\r\n";
  feed(p, "POST /x HTT");
  CHECK(p.buffered() == 11);
  feed(p, std::string(head).substr(11) + "01234");
  CHECK(p.buffered() == head.size() + 5);
  feed(p, "56789");
  CHECK(p.complete());
  CHECK(p.buffered() == head.size() + 10);
  p.reset();
  CHECK(p.buffered() == 0);
  // The memory goes too, not only the count.
  CHECK(p.request().body.capacity() < 100);
}
