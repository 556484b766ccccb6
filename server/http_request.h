#pragma once

// Reading requests defensively: every query parameter, path slug and body is user text
// and is validated here before it reaches kb; failures throw ApiError (a 4xx).

#include <httplib.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace kb::http {

/// Longest query parameter value accepted.
inline constexpr std::size_t kMaxParamBytes = 1024;
/// Longest request path accepted (longer: 414), before any route regex sees it.
inline constexpr std::size_t kMaxPathBytes = 2048;
/// Deepest nesting of `[` / `{` accepted in a request body.
inline constexpr int kMaxBodyDepth = 32;

/// The parameter's values joined with ',' (repeats allowed), trimmed; empty when absent.
/// Throws ApiError(bad_request) when over kMaxParamBytes or not valid UTF-8.
std::string param(const httplib::Request& req, const char* name);

/// A non-negative integer parameter; `fallback` when absent, capped at `max`.
std::size_t size_param(const httplib::Request& req, const char* name, std::size_t fallback,
                       std::size_t max);

/// A boolean parameter: true/false/1/0/yes/no; `fallback` when absent.
bool bool_param(const httplib::Request& req, const char* name, bool fallback);

/// Whether `slug` is a record slug: [a-z0-9][a-z0-9._-]*, at most 200 bytes, no "..".
bool valid_slug(std::string_view slug);

/// Whether the If-None-Match header lists `etag` (quoted or weak) or is `*`.
bool etag_matches(const httplib::Request& req, const std::string& quoted_etag);

/// Checks a POST body is JSON (or YAML) by Content-Type (415 otherwise; a missing type
/// is read as JSON), at most `max_bytes` (413), UTF-8 and not nested past kMaxBodyDepth (400).
/// With `artifacts`, text/plain and shell-script types are accepted too.
void check_body(const httplib::Request& req, std::size_t max_bytes, bool artifacts = false);

/// The Content-Type half of check_body: 415 unless JSON or YAML (with `artifacts`, also
/// text/plain and shell scripts); a missing type passes.
void check_media_type(const httplib::Request& req, bool artifacts = false);

/// The text half of check_body, for a body that came some other way (a form field): at
/// most `max_bytes` (413), not blank, UTF-8, not nested past kMaxBodyDepth (400).
void check_body_text(std::string_view body, std::size_t max_bytes);

/// The request's media type, lower case, parameters dropped; empty when absent.
std::string content_type(const httplib::Request& req);

/// Whether a media type names a shell script (text/x-shellscript, application/x-sh, ...).
bool shell_type(std::string_view type);

/// The request path plus its query string, for Location headers and logs.
std::string path_with_query(const httplib::Request& req, const std::string& path);

/// `s` with control bytes, quotes and backslashes escaped, for one-line logs.
std::string log_safe(std::string_view s);

}  // namespace kb::http
