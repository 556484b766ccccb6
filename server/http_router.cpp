// What every route shares, wrapped around the handlers of the route table: one snapshot
// per request, conditional GET, CORS, 405/OPTIONS, JSON errors and the response hook.

#include "http_router.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>

#include "http_request.h"
#include "http_status.h"
#include "json.h"
#include "kb/error.h"
#include "kb/text.h"
#include "route_pattern.h"

namespace kb::http {
namespace {

using httplib::Request;
using httplib::Response;

constexpr const char* kApiCacheControl = "no-cache";
constexpr std::string_view kUnmatched = "unmatched";
constexpr std::string_view kKnownMethods[] = {"GET",   "HEAD",   "POST",   "PUT",
                                              "PATCH", "DELETE", "OPTIONS"};
// What an error message echoes of the path, so an answer stays small whatever was asked.
constexpr std::size_t kMaxEchoedPath = 200;

// The literal text every path a pattern matches starts with: up to its first regex
// syntax, less a character a quantifier makes optional.
std::string literal_prefix(std::string_view pattern) {
  std::string out;
  for (char ch : pattern) {
    if (ch == '?' || ch == '*' || ch == '{') {
      if (!out.empty()) out.pop_back();
      break;
    }
    if (std::string_view("\\()[].+|^$").find(ch) != std::string_view::npos) break;
    out += ch;
  }
  return out;
}

struct CompiledRoute {
  const Route* route;
  std::regex re;
  std::string prefix;  ///< literal_prefix() of the pattern: a cheap test before the regex
  /// The pattern without std::regex, when it is in RoutePattern's subset (every pattern
  /// of the table is: a test says so).
  std::optional<RoutePattern> plain;

  /// Captures go to `captures` when `plain` matched, else to `m`.
  bool match(const std::string& path, std::vector<std::string_view>& captures,
             std::smatch& m) const {
    if (!path.starts_with(prefix)) return false;
    captures.clear();
    return plain ? plain->match(path, &captures) : std::regex_match(path, m, re);
  }
};

struct PatternInfo {
  std::string pattern;
  std::string_view name;
  std::regex re;
  std::vector<std::string_view> methods;  ///< as in the table, GET implying HEAD
  std::string allow;
};

std::vector<PatternInfo> collect_patterns() {
  std::vector<PatternInfo> out;
  for (const auto& r : route_table()) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const PatternInfo& p) { return p.pattern == r.pattern; });
    if (it == out.end()) {
      out.push_back({std::string(r.pattern), r.name, std::regex(std::string(r.pattern)), {}, ""});
      it = out.end() - 1;
    }
    it->methods.push_back(r.method);
  }
  for (auto& p : out) {
    for (auto m : p.methods) {
      p.allow += (p.allow.empty() ? "" : ", ") + std::string(m);
      if (m == "GET") p.allow += ", HEAD";
    }
    p.allow += ", OPTIONS";
  }
  return out;
}

bool is_api(const std::string& path) {
  return path.starts_with("/api/") || path == "/api/v1";
}

// The path for a message: escaped and cut, never the whole of a long one.
std::string echoed_path(const std::string& path) {
  std::string out = log_safe(std::string_view(path).substr(0, kMaxEchoedPath));
  if (path.size() > kMaxEchoedPath) out += "...";
  return out;
}

// A handler may have set headers before it failed; the error answer carries none of them.
void fail(Response& res, Problem p, std::string_view code, std::string_view message,
          const nlohmann::json& details = nullptr) {
  res.headers.clear();
  if (p == Problem::unavailable || p == Problem::overloaded) res.set_header("Retry-After", "1");
  send_error(res, p, code, message, details);
}

void internal_error(const Services& svc, const Request& req, Response& res, std::string_view what) {
  svc.log_error("500 on " + req.method + " " + log_safe(req.target) + ": " + std::string(what));
  fail(res, Problem::internal, problem_code(Problem::internal), "internal error");
}

void serve(const Services& svc, const Route& route, const Request& req, Response& res,
           const std::vector<std::string_view>& captures, const std::atomic<bool>* gone) {
  const std::shared_ptr<const Snapshot> snap = svc.kb.current();
  const std::string etag = "\"" + snap->etag() + "\"";
  try {
    if (route.strict) check_params(req, route.params);
    if (route.cacheable && etag_matches(req, etag)) {
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", kApiCacheControl);
      send_not_modified(res);
      return;
    }
    route.handler(
        Ctx{req, res, *snap, svc, &route, snap, captures.empty() ? nullptr : &captures, gone});
    if (route.cacheable && is_ok(res)) {
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", kApiCacheControl);
    }
  } catch (const ApiError& e) {
    fail(res, e.problem(), e.code(), e.what(), e.details());
  } catch (const Error& e) {
    Problem p = problem_for(e.code());
    if (p == Problem::internal)
      internal_error(svc, req, res, e.what());
    else
      fail(res, p, errc_code(e.code()), e.what());
  } catch (const std::exception& e) {
    internal_error(svc, req, res, e.what());
  } catch (...) {
    internal_error(svc, req, res, "unknown exception");
  }
}

// serve()'s fast half, for the event loop: the same snapshot, parameters, ETag and 304,
// and the route's peek in place of its handler. False, with `res` as it was, when only
// serve() can answer. The snapshot is handed back in `snap`.
bool serve_peek(const Services& svc, const Route& route, const Request& req, Response& res,
                const std::vector<std::string_view>& captures,
                std::shared_ptr<const Snapshot>& snap) {
  snap = svc.kb.current();
  const std::string etag = "\"" + snap->etag() + "\"";
  if (route.strict) {
    try {
      check_params(req, route.params);
    } catch (...) {
      return false;  // the worker words the 400
    }
  }
  if (route.cacheable && etag_matches(req, etag)) {
    res.set_header("ETag", etag);
    res.set_header("Cache-Control", kApiCacheControl);
    send_not_modified(res);
    return true;
  }
  if (!route.peek(Ctx{req, res, *snap, svc, &route, snap, captures.empty() ? nullptr : &captures}))
    return false;
  if (route.cacheable) {
    res.set_header("ETag", etag);
    res.set_header("Cache-Control", kApiCacheControl);
  }
  return true;
}

void add_common_headers(const Services& svc, const Request& req, Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  if (is_api(req.path)) res.set_header("KB-Schema-Version", kb::json::kSchemaVersion);
  if (!res.has_header("Cache-Control")) res.set_header("Cache-Control", "no-store");
  if (!svc.config.cors || !is_api(req.path) || res.has_header("Access-Control-Allow-Origin"))
    return;
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_header("Access-Control-Expose-Headers", "ETag, Location, Retry-After, KB-Schema-Version");
}

}  // namespace

struct Router::Impl {
  Impl(const Services& s, OnResponse on) : svc(s), on_response(std::move(on)) {}

  const Services& svc;
  OnResponse on_response;
  std::vector<CompiledRoute> routes;
  std::vector<PatternInfo> patterns;
  // Snapshots the event loop held last: freeing one (100k records) takes long enough to
  // stall every connection, so a worker frees them (see answer_now).
  mutable std::mutex released_mu;
  mutable std::vector<std::shared_ptr<const Snapshot>> released;

  void free_released() const {
    std::vector<std::shared_ptr<const Snapshot>> drop;
    {
      std::lock_guard<std::mutex> lock(released_mu);
      drop.swap(released);
    }
  }

  // The route that answers `req` when its method and path match one; null otherwise.
  const Route* find(const Request& req) const;

  // Fills `res`; returns the route's name for metrics.
  std::string_view route(Request& req, Response& res, const std::atomic<bool>* gone) const {
    // Checked before any route regex runs: std::regex recurses per character.
    if (req.path.size() > kMaxPathBytes) {
      fail(res, Problem::uri_too_long, problem_code(Problem::uri_too_long), "the path is too long");
      return kUnmatched;
    }
    if (req.path.find('\0') != std::string::npos || !text::valid_utf8(req.path)) {
      fail(res, Problem::bad_request, problem_code(Problem::bad_request),
           "the path is not valid UTF-8");
      return kUnmatched;
    }
    if (std::find(std::begin(kKnownMethods), std::end(kKnownMethods), req.method) ==
        std::end(kKnownMethods)) {
      for (const auto& p : patterns) {
        if (std::regex_match(req.path, p.re)) {
          send_method_not_allowed(res, p.allow);
          return p.name;
        }
      }
      send_method_not_allowed(res, "GET, HEAD, OPTIONS");
      return kUnmatched;
    }
    if (req.path == "*") {  // OPTIONS * (the parser lets nothing else through)
      res.set_header("Allow", "GET, HEAD, POST, OPTIONS");
      send_no_content(res);
      return kUnmatched;
    }
    const std::string_view method = req.method == "HEAD" ? "GET" : std::string_view(req.method);
    std::vector<std::string_view> captures;
    for (const auto& r : routes) {
      if (r.route->method == method && r.match(req.path, captures, req.matches)) {
        serve(svc, *r.route, req, res, captures, gone);
        return r.route->name;
      }
    }
    // Every other method on a known path: 405 with what it does answer; OPTIONS says so.
    for (const auto& p : patterns) {
      if (!std::regex_match(req.path, req.matches, p.re)) continue;
      if (req.method != "OPTIONS") {
        send_method_not_allowed(res, p.allow);
        return p.name;
      }
      res.set_header("Allow", p.allow);
      if (svc.config.cors && is_api(req.path)) {
        res.set_header("Access-Control-Allow-Methods", p.allow);
        res.set_header("Access-Control-Allow-Headers", "Content-Type, If-None-Match");
        res.set_header("Access-Control-Max-Age", "600");
      }
      send_no_content(res);
      return p.name;
    }
    fail(res, Problem::not_found, problem_code(Problem::not_found),
         "nothing at " + echoed_path(req.path));
    return kUnmatched;
  }
};

Router::Router(const Services& services, OnResponse on_response)
    : impl_([&] {
        auto impl = std::make_unique<Impl>(services, std::move(on_response));
        for (const Route& r : route_table())
          impl->routes.push_back({&r, std::regex(std::string(r.pattern)), literal_prefix(r.pattern),
                                  RoutePattern::compile(r.pattern)});
        impl->patterns = collect_patterns();
        return impl;
      }()) {}

Router::~Router() = default;

bool Router::answer_now(Request& req, Response& res) const {
  if (req.method != "GET" && req.method != "HEAD") return false;
  if (req.path.size() > kMaxPathBytes || req.path.find('\0') != std::string::npos ||
      !text::valid_utf8(req.path))
    return false;
  const auto start = std::chrono::steady_clock::now();
  try {
    std::vector<std::string_view> captures;
    for (const auto& r : impl_->routes) {
      if (r.route->method != "GET" || !r.match(req.path, captures, req.matches)) continue;
      // The first route that matches is the one handle() would take.
      std::shared_ptr<const Snapshot> snap;
      const bool answered =
          r.route->peek && serve_peek(impl_->svc, *r.route, req, res, captures, snap);
      if (snap && snap.use_count() == 1) {
        std::lock_guard<std::mutex> lock(impl_->released_mu);
        impl_->released.push_back(std::move(snap));
      }
      if (!answered) {
        res = Response();
        req.matches = std::smatch();
        return false;
      }
      if (res.status == -1) res.status = 200;
      add_common_headers(impl_->svc, req, res);
      impl_->on_response(req, res, r.route->name,
                         std::chrono::duration_cast<std::chrono::microseconds>(
                             std::chrono::steady_clock::now() - start));
      return true;
    }
  } catch (...) {
    // Whatever went wrong, the worker answers it, and words it.
  }
  res = Response();
  req.matches = std::smatch();
  return false;
}

const Route* Router::Impl::find(const Request& req) const {
  if (req.path.size() > kMaxPathBytes) return nullptr;
  const std::string_view method = req.method == "HEAD" ? "GET" : std::string_view(req.method);
  std::vector<std::string_view> captures;
  std::smatch m;
  for (const auto& r : routes) {
    if (r.route->method == method && r.match(req.path, captures, m)) return r.route;
  }
  return nullptr;
}

std::size_t Router::body_limit(const Request& req) const {
  try {
    const Route* r = impl_->find(req);
    return std::min(r ? r->max_body : kNoBodyBytes, impl_->svc.config.max_body_bytes);
  } catch (...) {
    return kNoBodyBytes;
  }
}

net::Lane Router::lane(const Request& req) const {
  try {
    const Route* r = impl_->find(req);
    if (r && r->reserved) return net::Lane::reserved;
    if (r && r->cpu_bound) return net::Lane::cpu;
  } catch (...) {
  }
  return net::Lane::general;
}

void Router::handle(Request& req, Response& res, const std::atomic<bool>* gone) const {
  impl_->free_released();
  const auto start = std::chrono::steady_clock::now();
  std::string_view name = kUnmatched;
  try {
    name = impl_->route(req, res, gone);
    if (res.status == -1) res.status = 200;
    // A handler that set an error status without a body still answers the JSON shape.
    if (res.status >= 400 && res.body.empty()) {
      const int status = res.status;
      const Problem p = problem_for_status(status);
      send_error(res, p, problem_code(p), "the request failed");
      res.status = status;
    }
  } catch (const std::exception& e) {
    res = Response();
    internal_error(impl_->svc, req, res, e.what());
  } catch (...) {
    res = Response();
    internal_error(impl_->svc, req, res, "unknown exception");
  }
  add_common_headers(impl_->svc, req, res);
  impl_->on_response(req, res, name,
                     std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::steady_clock::now() - start));
}

void Router::refuse(const Request& req, int status, std::string_view message, Response& res) const {
  const Problem p = problem_for_status(status);
  fail(res, p, problem_code(p), p == Problem::internal ? "internal error" : message);
  res.status = status;
  add_common_headers(impl_->svc, req, res);
  impl_->on_response(req, res, kUnmatched, std::chrono::microseconds(0));
}

}  // namespace kb::http
