#pragma once

// The route table (routes.cpp) and what every handler receives. Handlers never see a
// status code: they send through http_status.h or throw ApiError / kb::Error.

#include <httplib.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/snapshot.h"
#include "metrics.h"
#include "response_cache.h"
#include "server.h"

namespace kb::pages {
class Renderer;
}

namespace kb::http {

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

  /// The n-th capture of the route's pattern.
  std::string match(std::size_t n) const {
    return n < req.matches.size() ? req.matches[n].str() : std::string();
  }
};

/// A request handler.
using Handler = void (*)(const Ctx&);

/// One row of the route table.
struct Route {
  std::string_view method;   ///< "GET" (HEAD follows it) or "POST"
  std::string_view pattern;  ///< ECMAScript regex over the decoded path, matched whole
  std::string_view name;     ///< the route as documented; the metrics label
  Handler handler;
  bool cacheable;  ///< answered with the snapshot's ETag; If-None-Match gives 304
};

/// Every route, API first; matched in this order.
const std::vector<Route>& route_table();

}  // namespace kb::http
