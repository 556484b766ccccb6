#pragma once

// The route table (routes.cpp) and what every handler receives. Handlers never see a
// status code: they send through http_status.h or throw ApiError / kb::Error.

#include <httplib.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kb/snapshot.h"
#include "metrics.h"
#include "response_cache.h"
#include "route_params.h"
#include "server.h"

namespace kb::pages {
class Renderer;
}

namespace kb::http {

struct Route;

/// What the handlers share for the server's lifetime.
struct Services {
  LiveKb& kb;
  const ServeConfig& config;
  Metrics& metrics;
  std::function<void(const std::string&)> log_error;
  const pages::Renderer* renderer = nullptr;  ///< the HTML pages, when they are served
  ResponseCache* responses = nullptr;         ///< per-snapshot bodies of record GETs, if any
};

/// One request: the request, the response to fill, the one snapshot it is answered
/// from (held until the response is written) and the server's services.
struct Ctx {
  const httplib::Request& req;
  httplib::Response& res;
  const Snapshot& snap;
  const Services& svc;
  const Route* route = nullptr;  ///< the row answering; null when a test calls a handler
  /// The snapshot, shared: a streamed answer holds it until its last byte is written.
  std::shared_ptr<const Snapshot> hold = {};
  /// The pattern's captures when the router matched it without std::regex (the path,
  /// then each group); null when `req.matches` holds them.
  const std::vector<std::string_view>* captures = nullptr;
  /// Turns true when the client has gone (see net::Callbacks::handle); null when a test
  /// or the event loop calls a handler.
  const std::atomic<bool>* gone = nullptr;

  /// The integer parameter `name` with the default and cap its route declares.
  std::size_t integer(std::string_view name) const;

  /// How many captures match() has: the whole path and each group of the pattern.
  std::size_t match_count() const { return captures ? captures->size() : req.matches.size(); }
  /// The n-th capture of the route's pattern.
  std::string match(std::size_t n) const {
    if (captures) return n < captures->size() ? std::string((*captures)[n]) : std::string();
    return n < req.matches.size() ? req.matches[n].str() : std::string();
  }
};

/// A request handler.
using Handler = void (*)(const Ctx&);
/// A handler's answer from what is already built (the snapshot's response cache), for
/// the event-loop thread: true when it answered, false (having set nothing) when only the
/// handler can. Must not block, build a body or throw.
using Peek = bool (*)(const Ctx&);

/// What a route that takes no body still reads of one (and ignores): a GET's body means
/// nothing, and a larger one is refused (413) before it is buffered.
inline constexpr std::size_t kNoBodyBytes = 16 * 1024;
/// A route whose body may be as large as the server's limit (ServeConfig::max_body_bytes).
inline constexpr std::size_t kServerBodyLimit = static_cast<std::size_t>(-1);

/// One row of the route table.
struct Route {
  std::string_view method;  ///< "GET" (HEAD follows it) or "POST"
  std::string pattern;      ///< ECMAScript regex over the decoded path, matched whole
  std::string_view name;    ///< the route as documented; the metrics label
  Handler handler;
  bool cacheable;                 ///< answered with the snapshot's ETag; If-None-Match gives 304
  std::string_view summary = {};  ///< one line for the OpenAPI document
  /// The query parameters it takes; on a strict route any other is refused.
  std::vector<Param> params = {};
  bool strict = true;   ///< false for HTML pages, whose links pick up tracking parameters
  Peek peek = nullptr;  ///< answers cached GETs without a worker (see Router::answer_now)
  /// The largest body it reads (at most the server's limit): a larger declared or
  /// decoded one is refused (413) as it arrives, before it is buffered.
  std::size_t max_body = kNoBodyBytes;
  /// Answered by a worker of its own, never queued behind slow requests: what a load
  /// balancer or a scraper polls must answer while every other worker is busy.
  bool reserved = false;
  /// Pure CPU work (a search): answered by the workers kept for such requests, one per
  /// core, in the order they came (net::Lane::cpu).
  bool cpu_bound = false;
};

/// The declaration of `name` among the route's parameters, or null.
const Param* declared(const Route* route, std::string_view name);

/// Every route, API first; matched in this order.
const std::vector<Route>& route_table();

}  // namespace kb::http
