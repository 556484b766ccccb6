#pragma once

// Turns an httplib::Response into the bytes written to the client. The framing headers
// (Content-Length, Connection, Date) are ours, whatever a handler set.

#include <httplib.h>

#include <chrono>
#include <functional>
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

/// The rest of a streamed body: each call appends the next framed piece to `out` and
/// returns whether more follow; throws when the body cannot be finished (the connection
/// is then closed, so the client sees it cut short).
using MorePieces = std::function<bool(std::string& out)>;

/// A streamed answer's start: its head (and nothing of the body yet), the pieces to
/// come, and whether the connection may stay open after it.
struct StreamStart {
  std::string head;
  MorePieces more;  ///< empty when there is no body (HEAD, 204, 304)
  bool keep_alive = false;
};

/// Whether `res` carries a chunked content provider (httplib's
/// set_chunked_content_provider) instead of a body.
bool is_streamed(const httplib::Response& res);

/// For a streamed `res`: the head with `Transfer-Encoding: chunked` (HTTP/1.1), or with no
/// length and `Connection: close` (HTTP/1.0), and the body's pieces pulled from the
/// provider, each at most about `piece_bytes`, framed as chunks.
StreamStart start_stream(const httplib::Request& req, httplib::Response& res, bool keep_alive,
                         std::size_t piece_bytes = 64 * 1024);

/// The interim answer to `Expect: 100-continue`.
inline constexpr std::string_view kContinueResponse = "HTTP/1.1 100 Continue\r\n\r\n";

}  // namespace kb::http::net
