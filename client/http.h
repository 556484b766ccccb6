#pragma once

// A server kb talks to: its URL split into origin and path prefix, and one HTTP
// connection to it with the caller's headers and timeout. One Http per thread.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb::client {

/// Bytes of one answer's body kb reads at most, whatever its framing (Content-Length,
/// chunked, compressed); a longer answer is refused, not kept. The whole answer, headers
/// and framing included, may take twice that and 1 MiB more on the wire.
inline constexpr std::size_t kMaxAnswerBytes = 4u << 20;
/// Nesting of a JSON answer kb parses at most; a deeper one is refused.
inline constexpr int kMaxAnswerDepth = 64;

/// How every request to a server is made.
struct ClientOptions {
  /// The whole request -- connect, send, headers and body -- ends within this many
  /// seconds; a server trickling bytes cannot extend it.
  double timeout_seconds = 60;
  std::size_t max_answer_bytes = kMaxAnswerBytes;            ///< see kMaxAnswerBytes
  std::vector<std::pair<std::string, std::string>> headers;  ///< sent with every request
  std::string api_key;  ///< sent as `Authorization: Bearer KEY` when set
};

/// A server's base URL: `http://host:8000`, `https://gateway/llm` (a path prefix), or
/// either with a trailing `/v1`, which is dropped (routes add it).
struct Endpoint {
  std::string origin;  ///< scheme://host[:port]
  std::string prefix;  ///< "" or "/llm": prepended to every route
  std::string url;     ///< as given
};

/// Parses a base URL; throws kb::Error(invalid_argument) saying why when it is not
/// http(s)://host[:port][/path].
Endpoint parse_endpoint(std::string_view url);

/// Parses a `Name: value` header line; nullopt when there is no name or colon.
std::optional<std::pair<std::string, std::string>> parse_header(std::string_view line);

/// What one request returned.
struct HttpResult {
  int status = 0;  ///< 0 when no answer came
  std::string body;
  std::string error;  ///< why no answer came (cannot connect, timed out, ...)
  /// The answer went past a budget (the deadline, the size cap): `error` names the URL
  /// and the limit. Not set when the server simply cannot be reached.
  bool refused = false;
  std::string url;  ///< what was asked: origin, prefix and path
};

/// One connection to one server; not for use by several threads at once.
class Http {
 public:
  Http(const Endpoint& endpoint, const ClientOptions& options);
  ~Http();
  Http(Http&&) noexcept;
  Http& operator=(Http&&) noexcept;

  /// GET prefix + path.
  HttpResult get(const std::string& path);
  /// POST prefix + path with a JSON body.
  HttpResult post_json(const std::string& path, const std::string& body);
  const Endpoint& endpoint() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One line of at most `max` bytes from a server's text (an error body), control
/// characters as spaces, cut on a UTF-8 boundary.
std::string one_line(std::string_view text, std::size_t max = 160);

}  // namespace kb::client
