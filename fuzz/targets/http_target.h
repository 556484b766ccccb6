#pragma once

// Fuzz target body: the bytes a client sends on one connection (after a first byte that
// picks how they are split), read by the HTTP request parser as the event loop reads
// them, each request's body limit taken from the route pattern its path matches (the
// router's matcher, checked against std::regex). Invariants: the same requests and the
// same refusal come out however the bytes are split; no body passes its route's limit;
// the bytes held stay within the limits; the matcher agrees with std::regex.

#include <algorithm>
#include <cstddef>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "net/request_parser.h"
#include "route_pattern.h"

namespace kb::fuzz {

namespace detail_http {

// Route shapes of server/routes.cpp (literal, alternation, optional suffix, `[^/]+`,
// `.+`, a negative lookahead), with small body limits the fuzzer can reach.
struct RouteShape {
  const char* pattern;
  std::size_t body_limit;
};
inline constexpr RouteShape kRoutes[] = {
    {"/api/v1/check", 1024},
    {"/api/v1/check/batch", 4096},
    {"/api/v1/gotchas(?:\\.(json|csv|ndjson))?", 0},
    {"/api/v1/(gotchas|engines|oracles)/([^/]+)", 16},
    {"/(gotchas|engines)/(.+)", 64},
    {"/(?!api/|api$|healthz$|metrics$).*", 32},
};
inline constexpr std::size_t kUnmatchedLimit = 8;
inline constexpr std::size_t kMaxBody = 2048;
// std::regex recurses per character: longer paths are matched by RoutePattern alone.
inline constexpr std::size_t kMaxRegexPath = 512;

struct Route {
  http::RoutePattern plain;
  std::regex re;
  std::size_t limit;
};

inline const std::vector<Route>& routes() {
  static const std::vector<Route> out = [] {
    std::vector<Route> r;
    for (const auto& s : kRoutes)
      r.push_back({*http::RoutePattern::compile(s.pattern), std::regex(s.pattern), s.body_limit});
    return r;
  }();
  return out;
}

// The route's limit for `path`; `problem` says where the matcher and std::regex disagree.
inline std::size_t limit_for(const std::string& path, std::string& problem) {
  for (const Route& r : routes()) {
    std::vector<std::string_view> captures;
    const bool matched = r.plain.match(path, &captures);
    if (path.size() <= kMaxRegexPath) {
      std::smatch m;
      const bool re_matched = std::regex_match(path, m, r.re);
      if (matched != re_matched) {
        problem = "RoutePattern and std::regex disagree on whether a path matches";
      } else if (matched) {
        for (std::size_t i = 0; i < m.size() && i < captures.size(); ++i) {
          if (m[i].str() != captures[i])
            problem = "RoutePattern and std::regex capture differently";
        }
        if (m.size() != captures.size()) problem = "RoutePattern and std::regex count groups apart";
      }
    }
    if (matched) return r.limit;
  }
  return kUnmatchedLimit;
}

struct Outcome {
  int status = 0;  // 0: complete, else the refusal's
  std::string method, target, path, body;
  bool keep_alive = false;
  bool operator==(const Outcome&) const = default;
};

// The requests of `data` fed in pieces of `piece` bytes (0: all at once).
inline std::vector<Outcome> read_all(std::string_view data, std::size_t piece,
                                     std::string& problem) {
  std::size_t route_limit = 0;
  http::net::ParserLimits limits;
  limits.max_head_bytes = 1024;
  limits.max_header_fields = 16;
  limits.max_body_bytes = kMaxBody;
  limits.route_body_limit = [&](const httplib::Request& req) {
    route_limit = std::min(limit_for(req.path, problem), kMaxBody);
    return route_limit;
  };
  http::net::RequestParser parser(limits);
  std::vector<Outcome> out;
  std::string held;  // given to the parser, not taken yet (the connection's buffer)
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::size_t n = piece == 0 ? data.size() - pos : std::min(piece, data.size() - pos);
    held.append(data.substr(pos, n));
    pos += n;
    for (;;) {
      const std::size_t used = parser.feed(held);
      if (used > held.size()) problem = "the parser took more bytes than it was given";
      held.erase(0, std::min(used, held.size()));
      const httplib::Request& req = parser.request();
      if (parser.buffered() > limits.max_head_bytes + kMaxBody + 2048)
        problem = "the parser holds more than its limits";
      if (parser.complete() || parser.failed()) {
        Outcome o{parser.failed() ? parser.error().status : 0,
                  req.method,
                  req.target,
                  req.path,
                  req.body,
                  parser.keep_alive()};
        if (o.status == 0 && o.body.size() > route_limit)
          problem = "a body larger than its route's limit was read whole";
        if (parser.failed() && (o.status < 400 || o.status > 599))
          problem = "a refusal without a 4xx or 5xx status";
        if (parser.failed() && parser.error().message.empty())
          problem = "a refusal without a message";
        out.push_back(std::move(o));
        if (parser.failed()) return out;  // the connection closes after a refusal
        parser.reset();
        continue;
      }
      if (used == 0 || held.empty()) break;
    }
  }
  return out;
}

}  // namespace detail_http

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string http(std::string_view data) {
  if (data.empty()) return "";
  const std::size_t piece = 1 + static_cast<unsigned char>(data[0]) % 61;
  data.remove_prefix(1);
  std::string problem;
  const auto whole = detail_http::read_all(data, 0, problem);
  const auto bytes = detail_http::read_all(data, 1, problem);
  const auto pieces = detail_http::read_all(data, piece, problem);
  if (!problem.empty()) return problem;
  if (whole != bytes || whole != pieces) return "the requests depend on how the bytes were split";
  return "";
}

}  // namespace kb::fuzz
