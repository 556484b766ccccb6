#pragma once

// The dispatcher: what every route shares, wrapped around the handlers of the route
// table (routes.cpp). The front end (server/net/) hands it parsed requests.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string_view>

#include "net/listener.h"
#include "routes.h"

namespace kb::http {

/// Called once per answer: the route's name (the metrics label) and the time taken.
using OnResponse = std::function<void(const httplib::Request&, const httplib::Response&,
                                      std::string_view route, std::chrono::microseconds)>;

/// Answers requests from the route table: pre-routing checks (path length, UTF-8, known
/// methods), the first route whose pattern matches the decoded path (setting
/// Request::matches), one snapshot per request with ETag and 304, 405 with Allow and
/// OPTIONS on known paths, the JSON error shape for every 4xx/5xx, a generic logged 500
/// for exceptions, Cache-Control/nosniff/CORS headers, and `on_response`.
class Router {
 public:
  Router(const Services& services, OnResponse on_response);
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  /// Fills `res` for `req`. Thread-safe; never throws. `gone`, when given, turns true
  /// when the client leaves; long handlers (checks) stop early then.
  void handle(httplib::Request& req, httplib::Response& res,
              const std::atomic<bool>* gone = nullptr) const;

  /// On the event-loop thread: answers `req` if that needs no worker (a GET or HEAD whose
  /// route's peek finds its body already built, or a 304), exactly as handle() would;
  /// returns false, leaving `res` empty, for handle() to answer. Never blocks or throws.
  bool answer_now(httplib::Request& req, httplib::Response& res) const;

  /// On the event-loop thread, once the head of `req` is read: the largest body its route
  /// reads (Route::max_body, at most ServeConfig::max_body_bytes; kNoBodyBytes when no
  /// route takes it). Never blocks or throws.
  std::size_t body_limit(const httplib::Request& req) const;

  /// The workers `req` goes to: the reserved one, never queued behind others, for the
  /// routes a load balancer or a scraper polls (Route::reserved); those kept for pure CPU
  /// work (Route::cpu_bound); else the general ones. Never blocks or throws.
  net::Lane lane(const httplib::Request& req) const;

  /// Fills `res` for a request the front end refused before routing (framing errors,
  /// 408, 503 over the connection limits): the JSON error shape with `status`.
  void refuse(const httplib::Request& req, int status, std::string_view message,
              httplib::Response& res) const;

 private:
  struct Impl;
  std::unique_ptr<const Impl> impl_;
};

}  // namespace kb::http
