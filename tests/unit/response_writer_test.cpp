// The bytes of an answer: status line, Date, our Content-Length and Connection whatever a
// handler set, and no body for HEAD, 204 and 304.

#include <catch2/catch.hpp>

#include <chrono>

#include "net/response_writer.h"

using kb::http::net::http_date;
using kb::http::net::serialize_response;

namespace {

httplib::Request request(const std::string& method, const std::string& version = "HTTP/1.1") {
  httplib::Request r;
  r.method = method;
  r.version = version;
  return r;
}

}  // namespace

TEST_CASE("an answer has its status line, Date, length and body", "[net][writer]") {
  httplib::Response res;
  res.status = 404;
  res.set_content("{\"a\":1}", "application/json");
  res.set_header("Content-Length", "999");
  res.set_header("Connection", "keep-alive");
  const std::string out = serialize_response(request("GET"), res, true);
  CHECK(out.rfind("HTTP/1.1 404 Not Found\r\n", 0) == 0);
  CHECK(out.find("Content-Type: application/json\r\n") != std::string::npos);
  CHECK(out.find("Content-Length: 7\r\n") != std::string::npos);
  CHECK(out.find("999") == std::string::npos);
  CHECK(out.find("Connection") == std::string::npos);
  CHECK(out.find("\r\nDate: ") != std::string::npos);
  CHECK(out.substr(out.size() - 11) == "\r\n\r\n{\"a\":1}");
}

TEST_CASE("HEAD, 204 and 304 carry no body, closing and HTTP/1.0 say so", "[net][writer]") {
  httplib::Response res;
  res.status = 200;
  res.set_content("hello", "text/plain");
  std::string out = serialize_response(request("HEAD"), res, false);
  CHECK(out.find("Content-Length: 5\r\n") != std::string::npos);
  CHECK(out.find("Connection: close\r\n") != std::string::npos);
  CHECK(out.substr(out.size() - 4) == "\r\n\r\n");
  out = serialize_response(request("GET", "HTTP/1.0"), res, true);
  CHECK(out.find("Connection: keep-alive\r\n") != std::string::npos);
  res.status = 204;
  res.body.clear();
  out = serialize_response(request("OPTIONS"), res, true);
  CHECK(out.rfind("HTTP/1.1 204 No Content\r\n", 0) == 0);
  CHECK(out.find("Content-Length") == std::string::npos);
  res.status = 304;
  out = serialize_response(request("GET"), res, true);
  CHECK(out.find("Content-Length: 0\r\n") != std::string::npos);
  CHECK(out.substr(out.size() - 4) == "\r\n\r\n");
}

TEST_CASE("a header value with a line break is never written", "[net][writer]") {
  httplib::Response res;
  res.status = 200;
  res.headers.emplace("X-Evil", "a\r\nSet-Cookie: x=1");
  const std::string out = serialize_response(request("GET"), res, true);
  CHECK(out.find("Set-Cookie") == std::string::npos);
  CHECK(out.rfind("HTTP/1.1 200 OK\r\n", 0) == 0);
}

TEST_CASE("Date is an IMF-fixdate", "[net][writer]") {
  CHECK(http_date(std::chrono::system_clock::from_time_t(784111777)) ==
        "Sun, 06 Nov 1994 08:49:37 GMT");
}
