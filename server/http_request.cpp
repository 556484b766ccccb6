#include "http_request.h"

#include <charconv>

#include "http_status.h"
#include "kb/text.h"

namespace kb::http {
namespace {

[[noreturn]] void bad(const std::string& message) {
  throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), message);
}

}  // namespace

std::string param(const httplib::Request& req, const char* name) {
  std::string out;
  std::size_t n = req.get_param_value_count(name);
  for (std::size_t i = 0; i < n; ++i) {
    const std::string value = req.get_param_value(name, i);
    auto v = text::trim(value);
    if (v.empty()) continue;
    if (!out.empty()) out += ',';
    out += v;
    if (out.size() > kMaxParamBytes) {
      bad(std::string(name) + ": at most " + std::to_string(kMaxParamBytes) + " bytes");
    }
  }
  if (!text::valid_utf8(out)) bad(std::string(name) + ": not valid UTF-8");
  if (out.find('\0') != std::string::npos) bad(std::string(name) + ": contains a NUL byte");
  return out;
}

std::size_t size_param(const httplib::Request& req, const char* name, std::size_t fallback,
                       std::size_t max) {
  std::string v = param(req, name);
  if (v.empty()) return std::min(fallback, max);
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc::result_out_of_range && end == v.data() + v.size()) return max;
  if (ec != std::errc() || end != v.data() + v.size())
    bad(std::string(name) + ": expected a non-negative integer");
  return std::min(n, max);
}

bool bool_param(const httplib::Request& req, const char* name, bool fallback) {
  std::string v = text::lower(param(req, name));
  if (v.empty()) return fallback;
  if (v == "true" || v == "1" || v == "yes") return true;
  if (v == "false" || v == "0" || v == "no") return false;
  bad(std::string(name) + ": expected true or false");
}

bool valid_slug(std::string_view slug) {
  return text::valid_slug(slug);
}

bool etag_matches(const httplib::Request& req, const std::string& quoted_etag) {
  if (!req.has_header("If-None-Match")) return false;
  const std::string header = req.get_header_value("If-None-Match");
  std::string_view v = header;
  while (!v.empty()) {
    auto comma = v.find(',');
    auto item = text::trim(v.substr(0, comma));
    if (item == "*") return true;
    if (item.substr(0, 2) == "W/") item.remove_prefix(2);
    if (item == quoted_etag) return true;
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return false;
}

std::string content_type(const httplib::Request& req) {
  if (!req.has_header("Content-Type")) return {};
  const std::string header = req.get_header_value("Content-Type");
  return text::lower(text::trim(std::string_view(header).substr(0, header.find(';'))));
}

bool shell_type(std::string_view type) {
  return type == "text/x-shellscript" || type == "text/x-sh" || type == "application/x-sh" ||
         type == "application/x-shellscript";
}

void check_media_type(const httplib::Request& req, bool artifacts) {
  if (!req.has_header("Content-Type")) return;
  const std::string type = content_type(req);
  bool ok = type == "application/json" || type == "application/yaml" ||
            type == "application/x-yaml" || type == "text/yaml" || type == "text/x-yaml";
  ok = ok || (artifacts && (type == "text/plain" || shell_type(type)));
  if (!ok) {
    throw ApiError(Problem::unsupported_media_type, problem_code(Problem::unsupported_media_type),
                   artifacts ? "send the body as application/json, application/yaml, text/plain "
                               "or text/x-shellscript"
                             : "send the body as application/json (or application/yaml)");
  }
}

void check_body_text(std::string_view body, std::size_t max_bytes) {
  if (body.size() > max_bytes) {
    throw ApiError(Problem::payload_too_large, problem_code(Problem::payload_too_large),
                   "the body is larger than " + std::to_string(max_bytes) + " bytes");
  }
  if (text::trim(body).empty()) bad("the body is empty; send a JSON document");
  if (!text::valid_utf8(body)) bad("the body is not valid UTF-8");
  // Parsers and serialisers of nested values recurse; refuse deep nesting up front.
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : body) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxBodyDepth)
        bad("the body nests deeper than " + std::to_string(kMaxBodyDepth) + " levels");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

void check_body(const httplib::Request& req, std::size_t max_bytes, bool artifacts) {
  check_media_type(req, artifacts);
  check_body_text(req.body, max_bytes);
}

std::string path_with_query(const httplib::Request& req, const std::string& path) {
  std::string out = path;
  auto q = req.target.find('?');
  if (q != std::string::npos) {
    for (char c : std::string_view(req.target).substr(q)) {
      if (static_cast<unsigned char>(c) > 0x20 && c != 0x7f) out += c;
    }
  }
  return out;
}

std::string log_safe(std::string_view s) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace kb::http
