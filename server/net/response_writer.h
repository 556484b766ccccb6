#pragma once

// Turns an httplib::Response into the bytes written to the client. The framing headers
// (Content-Length, Connection, Date) are ours, whatever a handler set.

#include <httplib.h>

#include <chrono>
#include <string>
#include <string_view>

namespace kb::http::net {

/// The reason phrase of `status` ("Not Found"), or "Unknown".
const char* reason_phrase(int status);

/// `t` as an IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT"), for the Date header.
std::string http_date(std::chrono::system_clock::time_point t);

/// The bytes answering `req` with `res`: status line, the handler's headers, Date,
/// Content-Length and Connection (`keep_alive` says which), then the body, except for
/// HEAD and for the statuses that never have one (1xx, 204, 304). A status never set
/// (-1) is 200; a body without a Content-Type is text/plain.
std::string serialize_response(const httplib::Request& req, const httplib::Response& res,
                               bool keep_alive);

/// The interim answer to `Expect: 100-continue`.
inline constexpr std::string_view kContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace kb::http::net
