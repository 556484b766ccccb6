#include "response_writer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace kb::http::net {
namespace {

// Headers whose value the writer decides: a handler's copy would contradict the framing.
bool is_framing_header(std::string_view name) {
  for (std::string_view own :
       {"Content-Length", "Connection", "Date", "Transfer-Encoding", "Keep-Alive"}) {
    if (name.size() == own.size() &&
        std::equal(name.begin(), name.end(), own.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        }))
      return true;
  }
  return false;
}

bool has_line_break(std::string_view s) {
  return s.find_first_of("\r\n") != std::string_view::npos;
}

}  // namespace

const char* reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 304:
      return "Not Modified";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 412:
      return "Precondition Failed";
    case 413:
      return "Payload Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 416:
      return "Range Not Satisfiable";
    case 417:
      return "Expectation Failed";
    case 422:
      return "Unprocessable Entity";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Unknown";
  }
}

std::string http_date(std::chrono::system_clock::time_point t) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT", kDays[tm.tm_wday % 7],
                tm.tm_mday, kMonths[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
  return buf;
}

std::string serialize_response(const httplib::Request& req, const httplib::Response& res,
                               bool keep_alive) {
  const int status = res.status < 0 ? 200 : res.status;
  const bool no_body_status = status < 200 || status == 204 || status == 304;
  const bool send_body = !no_body_status && req.method != "HEAD";
  std::string out;
  out.reserve(256 + (send_body ? res.body.size() : 0));
  out += "HTTP/1.1 ";
  out += std::to_string(status);
  out += ' ';
  out += reason_phrase(status);
  out += "\r\n";
  for (const auto& [name, value] : res.headers) {
    if (is_framing_header(name) || has_line_break(name) || has_line_break(value)) continue;
    out += name;
    out += ": ";
    out += value;
    out += "\r\n";
  }
  if (!res.has_header("Content-Type") && !res.body.empty() && !no_body_status)
    out += "Content-Type: text/plain\r\n";
  out += "Date: ";
  out += http_date(std::chrono::system_clock::now());
  out += "\r\n";
  // 1xx and 204 never carry a length; 304 keeps httplib's 0, which its client relies on.
  if (status >= 200 && status != 204) {
    out += "Content-Length: ";
    out += std::to_string(status == 304 ? 0 : res.body.size());
    out += "\r\n";
  }
  if (!keep_alive)
    out += "Connection: close\r\n";
  else if (req.version == "HTTP/1.0")
    out += "Connection: keep-alive\r\n";
  out += "\r\n";
  if (send_body) out += res.body;
  return out;
}

bool is_streamed(const httplib::Response& res) {
  return res.is_chunked_content_provider_ && static_cast<bool>(res.content_provider_);
}

StreamStart start_stream(const httplib::Request& req, httplib::Response& res, bool keep_alive,
                         std::size_t piece_bytes) {
  const bool chunked = req.version != "HTTP/1.0";
  StreamStart out;
  out.keep_alive = keep_alive && chunked;
  // The head is a bodiless answer's, with the framing of a stream instead of a length.
  httplib::Response head;
  head.status = res.status < 0 ? 200 : res.status;
  head.headers = res.headers;
  std::string bytes = serialize_response(req, head, out.keep_alive);
  const std::string length = "Content-Length: 0\r\n";
  if (auto at = bytes.find(length); at != std::string::npos) {
    bytes.replace(at, length.size(), chunked ? "Transfer-Encoding: chunked\r\n" : "");
  }
  if (!chunked && bytes.find("Connection: close\r\n") == std::string::npos)
    bytes.insert(bytes.size() - 2, "Connection: close\r\n");
  out.head = std::move(bytes);
  const int status = head.status;
  if (req.method == "HEAD" || status < 200 || status == 204 || status == 304) return out;

  struct State {
    httplib::ContentProvider provider;
    std::size_t offset = 0;
    bool done = false;
  };
  auto state = std::make_shared<State>();
  state->provider = std::move(res.content_provider_);
  res.content_provider_ = nullptr;
  out.more = [state, chunked, piece_bytes](std::string& to) {
    std::string piece;
    httplib::DataSink sink;
    sink.write = [&](const char* data, std::size_t n) {
      piece.append(data, n);
      return true;
    };
    sink.done = [&] { state->done = true; };
    sink.is_writable = [] { return true; };
    // A provider may write little per call: gather up to about one piece.
    while (!state->done && piece.size() < piece_bytes) {
      const std::size_t before = piece.size();
      if (!state->provider(state->offset, 0, sink))
        throw std::runtime_error("the body could not be finished");
      state->offset += piece.size() - before;
      if (piece.size() == before && !state->done)
        throw std::runtime_error("the body stopped without an end");
    }
    if (chunked && !piece.empty()) {
      char size[20];
      std::snprintf(size, sizeof size, "%zx\r\n", piece.size());
      to += size;
      to += piece;
      to += "\r\n";
    } else {
      to += piece;
    }
    if (state->done && chunked) to += "0\r\n\r\n";
    return !state->done;
  };
  return out;
}

}  // namespace kb::http::net
