#pragma once

// The one place that knows HTTP status codes: kb::Errc and API problems become statuses
// here, and every response a handler sends is written through these helpers.

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

#include "kb/error.h"

namespace kb::http {

/// Why a request failed, from the client's side.
enum class Problem {
  bad_request,             ///< a malformed parameter, token or body
  not_found,               ///< no such route or record
  method_not_allowed,      ///< the route exists, not with this method
  payload_too_large,       ///< body or batch over its limit
  unsupported_media_type,  ///< a body that is not JSON (or YAML)
  unprocessable,           ///< well-formed, but not a valid deployment
  uri_too_long,            ///< a path or query over its limit
  unavailable,             ///< a query ran past its time limit; retry later
  internal,                ///< a bug: the message never reaches the client
  // Refused by the front end before any handler ran (server/net/):
  request_timeout,        ///< the request did not arrive in time (408)
  length_required,        ///< a body without a length (411)
  expectation_failed,     ///< an Expect other than 100-continue (417)
  headers_too_large,      ///< request line and headers over their limit (431)
  not_implemented,        ///< a Transfer-Encoding other than chunked (501)
  version_not_supported,  ///< not HTTP/1.0 or 1.1 (505)
  overloaded,             ///< over the connection limits; retry later (503)
};

/// A failure a handler reports to the client: a problem, a stable code such as
/// "invalid-argument", a message, and optional details (diagnostics, candidates).
class ApiError : public std::runtime_error {
 public:
  ApiError(Problem problem, std::string code, const std::string& message,
           nlohmann::json details = nullptr)
      : std::runtime_error(message),
        problem_(problem),
        code_(std::move(code)),
        details_(std::move(details)) {}
  Problem problem() const { return problem_; }
  const std::string& code() const { return code_; }
  const nlohmann::json& details() const { return details_; }

 private:
  Problem problem_;
  std::string code_;
  nlohmann::json details_;
};

/// The problem an operational failure is to a client.
Problem problem_for(Errc e);

/// The problem a status the front end answers with (parse failure, 408, 413, 431 ...)
/// stands for.
Problem problem_for_status(int status);

/// The default error code of a problem: "invalid-argument", "not-found", ...
const char* problem_code(Problem p);

/// Whether the response is a server error (a bug, logged).
bool is_server_error(const httplib::Response& res);

/// Whether the response succeeded with content (the only kind that gets an ETag).
bool is_ok(const httplib::Response& res);

/// Serialises JSON for the wire; invalid UTF-8 in echoed user text becomes U+FFFD.
std::string dump(const nlohmann::json& j);

/// 200 with a JSON body; an object gets "schema_version" (kb::json::kSchemaVersion).
void send_json(httplib::Response& res, const nlohmann::json& body);
/// The text send_json() sends for `body`.
std::string json_text(const nlohmann::json& body);

/// 200 with any body.
void send_body(httplib::Response& res, std::string body, const std::string& content_type);

/// `{"error": {"code", "message", ...details}}` with the problem's status.
void send_error(httplib::Response& res, Problem p, std::string_view code, std::string_view message,
                const nlohmann::json& details = nullptr);

/// A page (HTML) with the problem's status, e.g. the 404 page with its candidates.
void send_page(httplib::Response& res, Problem p, std::string body,
               const std::string& content_type);

/// 301 to `location` (a path on this server, with its query string).
void send_moved(httplib::Response& res, const std::string& location);

/// 304: the client's copy (If-None-Match) is current.
void send_not_modified(httplib::Response& res);

/// 204, for preflight and OPTIONS answers.
void send_no_content(httplib::Response& res);

/// 405 with the `Allow` header.
void send_method_not_allowed(httplib::Response& res, const std::string& allow);

}  // namespace kb::http
