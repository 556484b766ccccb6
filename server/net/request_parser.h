#pragma once

// An incremental HTTP/1.1 request parser with strict framing: bytes in, as they arrive
// (one at a time is fine), an httplib::Request out, or the status that refuses it.
// Every refusal is decided as soon as the offending byte arrives, never on a timer.

#include <httplib.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace kb::http::net {

/// Size limits of one request.
struct ParserLimits {
  std::size_t max_head_bytes = 16 * 1024;  ///< request line + header fields (431, 414)
  std::size_t max_header_fields = 100;     ///< header fields (431)
  std::size_t max_body_bytes = 8u << 20;   ///< declared or decoded body (413)
  /// The body limit of the request whose head was just read (its route's), called once
  /// per request; the smaller of it and `max_body_bytes` applies. Unset: the latter.
  std::function<std::size_t(const httplib::Request&)> route_body_limit;
};

/// Why a request was refused: the status to answer with and a message for the client.
struct ParseError {
  int status = 0;
  std::string message;
};

/// Parses one request at a time; reset() readies it for the next on the connection.
class RequestParser {
 public:
  explicit RequestParser(ParserLimits limits = {});

  /// Consumes bytes of `data` up to the end of the current request (pipelined bytes
  /// after it are left); returns how many it took. Takes nothing once complete or failed.
  std::size_t feed(std::string_view data);

  /// Whether a whole request was read.
  bool complete() const { return stage_ == Stage::complete; }
  /// Whether the request was refused; error() says how to answer.
  bool failed() const { return stage_ == Stage::failed; }
  /// Whether any byte of a request arrived since the last reset().
  bool started() const { return started_; }
  /// The refusal, when failed().
  const ParseError& error() const { return error_; }
  /// Bytes of the current request held so far: the line being read, the head's fields
  /// and the body.
  std::size_t buffered() const { return line_.size() + head_bytes_ + req_.body.size(); }

  /// True once per request: the head asked `Expect: 100-continue` and its body is
  /// going to be read, so the client should be told to send it.
  bool take_continue();

  /// Whether the connection may carry another request after this one (HTTP/1.1 unless
  /// `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`). False after a refusal.
  bool keep_alive() const { return keep_alive_; }

  /// The request, complete or (when failed) as far as it was read.
  httplib::Request& request() { return req_; }

  /// Forgets the current request.
  void reset();

 private:
  enum class Stage { head, body, chunk_size, chunk_data, chunk_end, trailers, complete, failed };

  std::size_t feed_head(std::string_view data);
  std::size_t feed_body(std::string_view data);
  std::size_t feed_chunked(std::string_view data);
  bool take_line(std::string_view data, std::size_t& used, std::size_t max, int too_long,
                 const char* too_long_message);
  bool on_request_line(std::string_view line);
  bool on_header_line(std::string_view line);
  bool on_head_complete();
  bool on_chunk_size(std::string_view line);
  bool fail(int status, std::string message);
  bool too_large();

  ParserLimits limits_;
  Stage stage_ = Stage::head;
  httplib::Request req_;
  ParseError error_;
  std::string line_;            // the line being read (head, chunk size, trailers)
  std::size_t head_bytes_ = 0;  // bytes of the head so far
  std::size_t fields_ = 0;
  std::size_t trailer_bytes_ = 0;
  std::size_t leading_blank_lines_ = 0;
  bool have_request_line_ = false;
  bool pending_cr_ = false;  // the last byte was a CR; the next must be LF
  bool started_ = false;
  bool continue_pending_ = false;
  bool keep_alive_ = false;
  std::uint64_t body_left_ = 0;  // of the Content-Length body or the current chunk
  std::size_t body_limit_ = 0;   // this request's, from its route (set with the head)
};

}  // namespace kb::http::net
