#include "request_parser.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace kb::http::net {
namespace {

// RFC 9112 2.2: at least one empty line before a request line should be ignored.
constexpr std::size_t kMaxLeadingBlankLines = 4;
// A chunk size line with extensions; longer ones are an attack, not a body.
constexpr std::size_t kMaxChunkLine = 1024;
constexpr std::size_t kMaxChunkSizeDigits = 15;

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_tchar);
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// Whether the comma-separated values of every `name` header list `token`.
bool lists_token(const httplib::Request& req, const char* name, std::string_view token) {
  const std::size_t n = req.get_header_value_count(name);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string value = req.get_header_value(name, i);
    std::string_view rest = value;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      if (iequals(trim_ows(rest.substr(0, comma)), token)) return true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return false;
}

// "HTTP/d.d" or "HTTP/d": a version, maybe one this server does not speak.
bool looks_like_version(std::string_view v) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!v.starts_with("HTTP/")) return false;
  v.remove_prefix(5);
  return (v.size() == 1 && digit(v[0])) ||
         (v.size() == 3 && digit(v[0]) && v[1] == '.' && digit(v[2]));
}

}  // namespace

RequestParser::RequestParser(ParserLimits limits) : limits_(std::move(limits)) {}

void RequestParser::reset() {
  // Assigning a fresh parser copies httplib::Request, and a string assigned an empty
  // one keeps its capacity: a refused 8 MiB body would stay allocated, unaccounted.
  std::string().swap(req_.body);
  std::string().swap(line_);
  ParserLimits limits = std::move(limits_);
  *this = RequestParser(std::move(limits));
}

bool RequestParser::take_continue() {
  if (!continue_pending_ || stage_ == Stage::complete || stage_ == Stage::failed) return false;
  continue_pending_ = false;
  return true;
}

bool RequestParser::fail(int status, std::string message) {
  stage_ = Stage::failed;
  keep_alive_ = false;
  continue_pending_ = false;
  error_ = {status, std::move(message)};
  return false;
}

bool RequestParser::too_large() {
  return fail(413, "the body is larger than " + std::to_string(body_limit_) + " bytes");
}

std::size_t RequestParser::feed(std::string_view data) {
  std::size_t used = 0;
  while (used < data.size() && stage_ != Stage::complete && stage_ != Stage::failed) {
    const std::string_view rest = data.substr(used);
    if (stage_ == Stage::head)
      used += feed_head(rest);
    else if (stage_ == Stage::body)
      used += feed_body(rest);
    else
      used += feed_chunked(rest);
  }
  return used;
}

// Appends bytes to line_ until CRLF: true when a line is complete (line_ holds it
// without the CRLF). A CR must be followed by LF and an LF preceded by CR (400).
bool RequestParser::take_line(std::string_view data, std::size_t& used, std::size_t max,
                              int too_long, const char* too_long_message) {
  while (used < data.size()) {
    const char c = data[used++];
    if (pending_cr_) {
      if (c != '\n') return fail(400, "a CR is not followed by LF");
      pending_cr_ = false;
      return true;
    }
    if (c == '\r') {
      pending_cr_ = true;
      continue;
    }
    if (c == '\n') return fail(400, "a line ends in LF without CR");
    line_ += c;
    if (stage_ == Stage::head) started_ = true;
    if (line_.size() > max) return fail(too_long, too_long_message);
  }
  return false;
}

std::size_t RequestParser::feed_head(std::string_view data) {
  std::size_t used = 0;
  while (stage_ == Stage::head && used < data.size()) {
    const std::size_t budget =
        limits_.max_head_bytes > head_bytes_ ? limits_.max_head_bytes - head_bytes_ : 0;
    const bool line_ok = have_request_line_
                             ? take_line(data, used, budget, 431, "the request head is too large")
                             : take_line(data, used, budget, 414, "the request line is too long");
    if (!line_ok) break;
    head_bytes_ += line_.size() + 2;
    const std::string line = std::move(line_);
    line_.clear();
    if (!have_request_line_) {
      if (line.empty()) {
        if (++leading_blank_lines_ > kMaxLeadingBlankLines)
          fail(400, "empty lines instead of a request line");
        continue;
      }
      if (!on_request_line(line)) break;
      have_request_line_ = true;
    } else if (line.empty()) {
      on_head_complete();
    } else if (!on_header_line(line)) {
      break;
    }
  }
  return used;
}

bool RequestParser::on_request_line(std::string_view line) {
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return fail(400, "the request line is not METHOD TARGET HTTP-VERSION");
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return fail(400, "the method is not a token");
  if (target.empty()) return fail(400, "the request target is empty");
  for (char c : target) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return fail(400, "a control character in the request target");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    if (looks_like_version(version))
      return fail(505, "this server speaks HTTP/1.1 and HTTP/1.0 only");
    return fail(400, "the request line does not end in HTTP/1.1 or HTTP/1.0");
  }
  req_.method = std::string(method);
  req_.target = std::string(target);
  req_.version = std::string(version);

  std::string_view path_and_query;
  if (target == "*") {
    if (method != "OPTIONS") return fail(400, "the target * is for OPTIONS only");
    path_and_query = target;
  } else if (target.front() == '/') {
    path_and_query = target;
  } else if (starts_with_ci(target, "http://") || starts_with_ci(target, "https://")) {
    // Absolute form (RFC 9112 3.2.2): the authority is ignored, the path served.
    const std::size_t start = target.find("//") + 2;
    const std::size_t end = target.find_first_of("/?", start);
    path_and_query = end == std::string_view::npos ? std::string_view("/") : target.substr(end);
  } else {
    return fail(400, "the request target is not a path");
  }
  path_and_query = path_and_query.substr(0, path_and_query.find('#'));
  const std::size_t q = path_and_query.find('?');
  std::string path(path_and_query.substr(0, q));
  if (path.empty() || path.front() == '?') path.insert(0, "/");
  req_.path = httplib::detail::decode_url(path, false);
  if (q != std::string_view::npos && q + 1 < path_and_query.size())
    httplib::detail::parse_query_text(std::string(path_and_query.substr(q + 1)), req_.params);
  return true;
}

bool RequestParser::on_header_line(std::string_view line) {
  if (line.front() == ' ' || line.front() == '\t')
    return fail(400, "a header line starts with whitespace (obs-fold is not accepted)");
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0)
    return fail(400, "a header line is not NAME: VALUE");
  const std::string_view name = line.substr(0, colon);
  if (name.back() == ' ' || name.back() == '\t')
    return fail(400, "whitespace between a header name and its colon");
  if (!is_token(name)) return fail(400, "a header name is not a token");
  const std::string_view value = trim_ows(line.substr(colon + 1));
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f)
      return fail(400, "a control character in the " + std::string(name) + " header");
  }
  if (++fields_ > limits_.max_header_fields)
    return fail(431, "more than " + std::to_string(limits_.max_header_fields) + " header fields");
  req_.headers.emplace(std::string(name), std::string(value));
  return true;
}

bool RequestParser::on_head_complete() {
  const bool http10 = req_.version == "HTTP/1.0";
  if (req_.get_header_value_count("Host") > 1) return fail(400, "several Host headers");
  const std::size_t lengths = req_.get_header_value_count("Content-Length");
  const std::size_t encodings = req_.get_header_value_count("Transfer-Encoding");
  if (lengths > 0 && encodings > 0)
    return fail(400, "both Content-Length and Transfer-Encoding; send one");
  const bool chunked = encodings > 0;
  if (chunked) {
    if (http10) return fail(400, "Transfer-Encoding in an HTTP/1.0 request");
    if (encodings > 1 || !iequals(req_.get_header_value("Transfer-Encoding"), "chunked"))
      return fail(501, "the only Transfer-Encoding accepted is chunked");
  }
  std::uint64_t length = 0;
  if (lengths > 1) return fail(400, "several Content-Length headers");
  if (lengths == 1) {
    const std::string value = req_.get_header_value("Content-Length");
    if (value.empty() ||
        !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return fail(400, "Content-Length is not one non-negative decimal number");
    for (char c : value) {
      const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
      const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
      length = length > (max - digit) / 10 ? max : length * 10 + digit;
    }
  }
  bool expect_continue = false;
  const std::size_t expects = req_.get_header_value_count("Expect");
  if (expects > 0 && !http10) {  // RFC 9110 10.1.1: ignored in HTTP/1.0
    if (expects > 1 || !iequals(req_.get_header_value("Expect"), "100-continue"))
      return fail(417, "the only expectation accepted is 100-continue");
    expect_continue = true;
  }
  const bool needs_body = req_.method == "POST" || req_.method == "PUT" || req_.method == "PATCH";
  if (needs_body && !chunked && lengths == 0)
    return fail(411, "a " + req_.method + " needs a Content-Length");
  body_limit_ = limits_.max_body_bytes;
  if (limits_.route_body_limit) body_limit_ = std::min(body_limit_, limits_.route_body_limit(req_));
  if (length > body_limit_) return too_large();
  keep_alive_ = http10 ? lists_token(req_, "Connection", "keep-alive")
                       : !lists_token(req_, "Connection", "close");
  if (chunked) {
    stage_ = Stage::chunk_size;
  } else if (length > 0) {
    stage_ = Stage::body;
    body_left_ = length;
    req_.body.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(length, 1u << 16)));
  } else {
    stage_ = Stage::complete;
  }
  continue_pending_ = expect_continue && stage_ != Stage::complete;
  return true;
}

std::size_t RequestParser::feed_body(std::string_view data) {
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(body_left_, data.size()));
  req_.body.append(data.data(), n);
  body_left_ -= n;
  if (body_left_ == 0) stage_ = Stage::complete;
  return n;
}

bool RequestParser::on_chunk_size(std::string_view line) {
  std::size_t i = 0;
  std::uint64_t size = 0;
  while (i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i]))) {
    if (i == kMaxChunkSizeDigits) return too_large();
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(line[i])));
    size = size * 16 + static_cast<std::uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
    ++i;
  }
  if (i == 0) return fail(400, "a chunk does not start with its size in hex");
  const std::string_view ext = trim_ows(line.substr(i));
  if (!ext.empty() && ext.front() != ';') return fail(400, "a chunk size is followed by junk");
  if (size == 0) {
    stage_ = Stage::trailers;
    return true;
  }
  if (size > body_limit_ - std::min(body_limit_, req_.body.size())) return too_large();
  body_left_ = size;
  stage_ = Stage::chunk_data;
  return true;
}

std::size_t RequestParser::feed_chunked(std::string_view data) {
  std::size_t used = 0;
  while (used < data.size() && stage_ != Stage::complete && stage_ != Stage::failed) {
    if (stage_ == Stage::chunk_data) {
      const std::size_t n =
          static_cast<std::size_t>(std::min<std::uint64_t>(body_left_, data.size() - used));
      req_.body.append(data.data() + used, n);
      used += n;
      body_left_ -= n;
      if (body_left_ == 0) stage_ = Stage::chunk_end;
      continue;
    }
    if (stage_ == Stage::chunk_size) {
      if (!take_line(data, used, kMaxChunkLine, 400, "a chunk size line is too long")) break;
      const std::string line = std::move(line_);
      line_.clear();
      on_chunk_size(line);
    } else if (stage_ == Stage::chunk_end) {
      if (!take_line(data, used, 0, 400, "a chunk is longer than its size")) break;
      stage_ = Stage::chunk_size;
    } else {  // trailers: read and ignored
      const std::size_t before = used;
      const bool line_done =
          take_line(data, used, limits_.max_head_bytes, 431, "the trailers are too large");
      trailer_bytes_ += used - before;
      if (trailer_bytes_ > limits_.max_head_bytes) fail(431, "the trailers are too large");
      if (!line_done || failed()) break;
      if (line_.empty()) stage_ = Stage::complete;
      line_.clear();
    }
  }
  return used;
}

}  // namespace kb::http::net
