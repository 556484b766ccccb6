// What every route shares, wrapped around the handlers of the route table: one snapshot
// per request, conditional GET, CORS, 405/OPTIONS, JSON errors and the response hook.

#include <algorithm>
#include <memory>
#include <regex>

#include "http_request.h"
#include "http_status.h"
#include "kb/error.h"
#include "routes.h"

namespace kb::http {
namespace {

using httplib::Request;
using httplib::Response;
using HandlerResponse = httplib::Server::HandlerResponse;

constexpr const char* kApiCacheControl = "no-cache";
constexpr std::string_view kUnmatched = "unmatched";
constexpr std::string_view kKnownMethods[] = {"GET",   "HEAD",   "POST",   "PUT",
                                              "PATCH", "DELETE", "OPTIONS"};

// httplib answers a whole request on one worker thread, from routing to the log call.
struct RequestState {
  std::chrono::steady_clock::time_point start;
  bool started = false;
  std::string_view route = kUnmatched;
};
thread_local RequestState t_request;

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
  return path.rfind("/api/", 0) == 0 || path == "/api/v1";
}

// A handler may have set headers before it failed; the error answer carries none of them.
void fail(Response& res, Problem p, std::string_view code, std::string_view message,
          const nlohmann::json& details = nullptr) {
  res.headers.clear();
  if (p == Problem::unavailable) res.set_header("Retry-After", "1");
  send_error(res, p, code, message, details);
}

void internal_error(const Services& svc, const Request& req, Response& res, std::string_view what) {
  svc.log_error("500 on " + req.method + " " + log_safe(req.target) + ": " + std::string(what));
  fail(res, Problem::internal, problem_code(Problem::internal), "internal error");
}

void serve(const Services& svc, const Route& route, const Request& req, Response& res) {
  t_request.route = route.name;
  const std::shared_ptr<const Snapshot> snap = svc.kb.current();
  const std::string etag = "\"" + snap->etag() + "\"";
  try {
    if (route.cacheable && etag_matches(req, etag)) {
      res.set_header("ETag", etag);
      res.set_header("Cache-Control", kApiCacheControl);
      send_not_modified(res);
      return;
    }
    route.handler(Ctx{req, res, *snap, svc});
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

void add_cors(const Services& svc, const Request& req, Response& res) {
  if (!svc.config.cors || !is_api(req.path) || res.has_header("Access-Control-Allow-Origin"))
    return;
  res.set_header("Access-Control-Allow-Origin", "*");
  res.set_header("Access-Control-Expose-Headers", "ETag, Location, Retry-After");
}

}  // namespace

void install_routes(httplib::Server& server, const Services& svc,
                    std::function<void(const Request&, const Response&, std::string_view,
                                       std::chrono::microseconds)>
                        on_response) {
  auto patterns = std::make_shared<const std::vector<PatternInfo>>(collect_patterns());

  server.set_pre_routing_handler([patterns](const Request& req, Response& res) {
    t_request = {std::chrono::steady_clock::now(), true, kUnmatched};
    // Checked before any route regex runs: std::regex recurses per character.
    if (req.path.size() > kMaxPathBytes) {
      fail(res, Problem::uri_too_long, problem_code(Problem::uri_too_long), "the path is too long");
      return HandlerResponse::Handled;
    }
    if (req.path.find('\0') != std::string::npos || !valid_utf8(req.path)) {
      fail(res, Problem::bad_request, problem_code(Problem::bad_request),
           "the path is not valid UTF-8");
      return HandlerResponse::Handled;
    }
    if (std::find(std::begin(kKnownMethods), std::end(kKnownMethods), req.method) ==
        std::end(kKnownMethods)) {
      std::string allow = "GET, HEAD, OPTIONS";
      for (const auto& p : *patterns) {
        if (std::regex_match(req.path, p.re)) {
          allow = p.allow;
          t_request.route = p.name;
          break;
        }
      }
      send_method_not_allowed(res, allow);
      return HandlerResponse::Handled;
    }
    return HandlerResponse::Unhandled;
  });

  for (const Route& route : route_table()) {
    auto handler = [&svc, &route](const Request& req, Response& res) {
      serve(svc, route, req, res);
    };
    if (route.method == "GET")
      server.Get(std::string(route.pattern), handler);
    else
      server.Post(std::string(route.pattern), handler);
  }
  // Every other method on a known path: 405 with what it does answer; OPTIONS says so too.
  for (const auto& p : *patterns) {
    auto not_allowed = [&p](const Request&, Response& res) {
      t_request.route = p.name;
      send_method_not_allowed(res, p.allow);
    };
    auto allowed = [&p](std::string_view m) {
      return std::find(p.methods.begin(), p.methods.end(), m) != p.methods.end();
    };
    if (!allowed("GET")) server.Get(p.pattern, not_allowed);
    if (!allowed("POST")) server.Post(p.pattern, not_allowed);
    server.Put(p.pattern, not_allowed);
    server.Patch(p.pattern, not_allowed);
    server.Delete(p.pattern, not_allowed);
    server.Options(p.pattern, [&svc, &p](const Request& req, Response& res) {
      t_request.route = p.name;
      res.set_header("Allow", p.allow);
      if (svc.config.cors && is_api(req.path)) {
        res.set_header("Access-Control-Allow-Methods", p.allow);
        res.set_header("Access-Control-Allow-Headers", "Content-Type, If-None-Match");
        res.set_header("Access-Control-Max-Age", "600");
      }
      send_no_content(res);
    });
  }

  // Statuses httplib sets itself (no route, unparseable request, body too large ...)
  // get the same JSON error shape as the handlers' own.
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([&svc](const Request& req, Response& res) {
        if (!res.body.empty()) return HandlerResponse::Unhandled;
        const int status = res.status;
        Problem p = problem_for_status(status);
        std::string message =
            p == Problem::not_found ? "nothing at " + log_safe(req.path)
            : p == Problem::payload_too_large
                ? "the body is larger than " + std::to_string(svc.config.max_body_bytes) + " bytes"
            : p == Problem::internal ? "internal error"
                                     : "the request is malformed";
        send_error(res, p, problem_code(p), message);
        res.status = status;
        return HandlerResponse::Handled;
      }));
  server.set_exception_handler([&svc](const Request& req, Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    internal_error(svc, req, res, what);
  });
  server.set_post_routing_handler([&svc](const Request& req, Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
    if (!res.has_header("Cache-Control")) res.set_header("Cache-Control", "no-store");
    add_cors(svc, req, res);
  });
  server.set_logger(
      [on_response = std::move(on_response)](const Request& req, const Response& res) {
        auto latency = t_request.started ? std::chrono::duration_cast<std::chrono::microseconds>(
                                               std::chrono::steady_clock::now() - t_request.start)
                                         : std::chrono::microseconds(0);
        on_response(req, res, t_request.route, latency);
        t_request = {};
      });
}

}  // namespace kb::http
