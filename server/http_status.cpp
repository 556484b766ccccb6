#include "http_status.h"

#include "json.h"

namespace kb::http {

using nlohmann::json;

namespace {

int status_of(Problem p) {
  switch (p) {
    case Problem::bad_request:
      return 400;
    case Problem::not_found:
      return 404;
    case Problem::method_not_allowed:
      return 405;
    case Problem::payload_too_large:
      return 413;
    case Problem::uri_too_long:
      return 414;
    case Problem::unsupported_media_type:
      return 415;
    case Problem::unprocessable:
      return 422;
    case Problem::unavailable:
      return 503;
    case Problem::internal:
      return 500;
    case Problem::request_timeout:
      return 408;
    case Problem::length_required:
      return 411;
    case Problem::expectation_failed:
      return 417;
    case Problem::headers_too_large:
      return 431;
    case Problem::not_implemented:
      return 501;
    case Problem::version_not_supported:
      return 505;
    case Problem::overloaded:
      return 503;
  }
  return 500;
}

}  // namespace

Problem problem_for(Errc e) {
  switch (e) {
    case Errc::invalid_argument:
      return Problem::bad_request;
    case Errc::not_found:
      return Problem::not_found;
    case Errc::too_large:
      return Problem::payload_too_large;
    case Errc::timeout:
      return Problem::unavailable;
    case Errc::io:
    case Errc::database:
    case Errc::internal:
      return Problem::internal;
  }
  return Problem::internal;
}

Problem problem_for_status(int status) {
  switch (status) {
    case 404:
      return Problem::not_found;
    case 405:
      return Problem::method_not_allowed;
    case 413:
      return Problem::payload_too_large;
    case 414:
      return Problem::uri_too_long;
    case 415:
      return Problem::unsupported_media_type;
    case 422:
      return Problem::unprocessable;
    case 408:
      return Problem::request_timeout;
    case 411:
      return Problem::length_required;
    case 417:
      return Problem::expectation_failed;
    case 431:
      return Problem::headers_too_large;
    case 501:
      return Problem::not_implemented;
    case 503:
      return Problem::overloaded;
    case 505:
      return Problem::version_not_supported;
    default:
      return status >= 500 ? Problem::internal : Problem::bad_request;
  }
}

const char* problem_code(Problem p) {
  switch (p) {
    case Problem::bad_request:
      return "invalid-argument";
    case Problem::not_found:
      return "not-found";
    case Problem::method_not_allowed:
      return "method-not-allowed";
    case Problem::payload_too_large:
      return "too-large";
    case Problem::uri_too_long:
      return "uri-too-long";
    case Problem::unsupported_media_type:
      return "unsupported-media-type";
    case Problem::unprocessable:
      return "invalid-deployment";
    case Problem::unavailable:
      return "timeout";
    case Problem::internal:
      return "internal";
    case Problem::request_timeout:
      return "request-timeout";
    case Problem::length_required:
      return "length-required";
    case Problem::expectation_failed:
      return "expectation-failed";
    case Problem::headers_too_large:
      return "headers-too-large";
    case Problem::not_implemented:
      return "not-implemented";
    case Problem::version_not_supported:
      return "http-version-not-supported";
    case Problem::overloaded:
      return "overloaded";
  }
  return "internal";
}

bool is_server_error(const httplib::Response& res) {
  return res.status >= 500;
}

bool is_ok(const httplib::Response& res) {
  return res.status == 200 || res.status == -1;
}

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string json_text(const json& body) {
  if (body.is_object() && !body.contains("schema_version")) return dump(kb::json::versioned(body));
  return dump(body);
}

void send_json(httplib::Response& res, const json& body) {
  res.status = 200;
  res.set_content(json_text(body), "application/json");
}

void send_body(httplib::Response& res, std::string body, const std::string& content_type) {
  res.status = 200;
  res.set_content(std::move(body), content_type.c_str());
}

void send_error(httplib::Response& res, Problem p, std::string_view code, std::string_view message,
                const json& details) {
  json err = {{"code", code}, {"message", message}};
  if (details.is_object()) {
    for (const auto& [k, v] : details.items()) {
      if (k != "code" && k != "message") err[k] = v;
    }
  }
  res.status = status_of(p);
  res.set_content(
      dump(json{{"schema_version", kb::json::kSchemaVersion}, {"error", std::move(err)}}),
      "application/json");
}

void send_page(httplib::Response& res, Problem p, std::string body,
               const std::string& content_type) {
  res.status = status_of(p);
  res.set_content(std::move(body), content_type.c_str());
}

void send_moved(httplib::Response& res, const std::string& location) {
  res.status = 301;
  res.set_header("Location", location);
  res.set_content(dump(json{{"schema_version", kb::json::kSchemaVersion}, {"location", location}}),
                  "application/json");
}

void send_not_modified(httplib::Response& res) {
  res.status = 304;
  res.body.clear();
}

void send_no_content(httplib::Response& res) {
  res.status = 204;
  res.body.clear();
}

void send_method_not_allowed(httplib::Response& res, const std::string& allow) {
  res.set_header("Allow", allow);
  send_error(res, Problem::method_not_allowed, problem_code(Problem::method_not_allowed),
             "this resource answers " + allow);
}

}  // namespace kb::http
