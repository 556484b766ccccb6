#include "http.h"

#include <httplib.h>

#include <cctype>
#include <chrono>
#include <sstream>

#include "kb/error.h"

namespace kb::client {
namespace {

std::string describe(httplib::Error e, double timeout) {
  switch (e) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::Read: {
      std::ostringstream seconds;
      seconds << timeout;
      return "no complete answer within " + seconds.str() +
             " s (timed out or the connection dropped)";
    }
    case httplib::Error::Write:
      return "the request could not be sent";
    case httplib::Error::ConnectionTimeout:
      return "no connection within the timeout";
    case httplib::Error::SSLConnection:
    case httplib::Error::SSLLoadingCerts:
    case httplib::Error::SSLServerVerification:
      return "TLS failed (" + httplib::to_string(e) + ")";
    default:
      return "request failed (" + httplib::to_string(e) + ")";
  }
}

}  // namespace

Endpoint parse_endpoint(std::string_view url) {
  auto fail = [&](const std::string& why) -> Endpoint {
    throw Error(Errc::invalid_argument, "'" + std::string(url) + "': " + why);
  };
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) return fail("expected http://HOST[:PORT][/PATH]");
  const std::string_view scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return fail("only http and https are supported");
  std::string_view rest = url.substr(scheme_end + 3);
  if (rest.find_first_of("?#") != std::string_view::npos) return fail("no query or fragment");
  const auto slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  if (authority.empty() || authority.find('@') != std::string_view::npos ||
      authority.find_first_of(" \t") != std::string_view::npos) {
    return fail("expected a host (credentials go in --header or --api-key)");
  }
  const auto colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']') == std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    bool digits = !port.empty() && port.size() <= 5;
    for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits || std::stoi(std::string(port)) > 65535 || colon == 0) return fail("bad port");
  }
  std::string prefix = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (prefix.size() >= 3 && prefix.compare(prefix.size() - 3, 3, "/v1") == 0) {
    prefix.resize(prefix.size() - 3);
  }
  return Endpoint{std::string(scheme) + "://" + std::string(authority), prefix, std::string(url)};
}

std::optional<std::pair<std::string, std::string>> parse_header(std::string_view line) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return std::string(s);
  };
  std::string name = trim(line.substr(0, colon));
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return std::nullopt;
  }
  std::string value = trim(line.substr(colon + 1));
  for (char c : value) {
    if (c == '\r' || c == '\n') return std::nullopt;
  }
  return std::make_pair(std::move(name), std::move(value));
}

struct Http::Impl {
  Endpoint endpoint;
  double timeout;
  httplib::Client client;

  Impl(const Endpoint& e, const ClientOptions& o)
      : endpoint(e), timeout(o.timeout_seconds), client(e.origin) {
    const auto t = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::duration<double>(o.timeout_seconds));
    client.set_connection_timeout(t);
    client.set_read_timeout(t);
    client.set_write_timeout(t);
    client.set_keep_alive(true);
    httplib::Headers headers;
    for (const auto& [k, v] : o.headers) headers.emplace(k, v);
    if (!o.api_key.empty()) headers.emplace("Authorization", "Bearer " + o.api_key);
    client.set_default_headers(std::move(headers));
  }

  HttpResult answer(const httplib::Result& res) const {
    HttpResult out;
    if (!res) {
      out.error = describe(res.error(), timeout);
      return out;
    }
    out.status = res->status;
    out.body = res->body;
    return out;
  }
};

Http::Http(const Endpoint& endpoint, const ClientOptions& options)
    : impl_(std::make_unique<Impl>(endpoint, options)) {}
Http::~Http() = default;
Http::Http(Http&&) noexcept = default;
Http& Http::operator=(Http&&) noexcept = default;

HttpResult Http::get(const std::string& path) {
  return impl_->answer(impl_->client.Get(impl_->endpoint.prefix + path));
}

HttpResult Http::post_json(const std::string& path, const std::string& body) {
  return impl_->answer(impl_->client.Post(impl_->endpoint.prefix + path, body, "application/json"));
}

const Endpoint& Http::endpoint() const {
  return impl_->endpoint;
}

std::string one_line(std::string_view text, std::size_t max) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max) break;
    out += static_cast<unsigned char>(c) < 0x20 || c == 0x7F ? ' ' : c;
  }
  if (out.size() < text.size()) {
    // Do not end inside a UTF-8 sequence.
    std::size_t lead = out.size();
    while (lead > 0 && (static_cast<unsigned char>(out[lead - 1]) & 0xC0) == 0x80) --lead;
    if (lead > 0) {
      const auto c = static_cast<unsigned char>(out[lead - 1]);
      const std::size_t need = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (out.size() - (lead - 1) < need) out.resize(lead - 1);
    }
    out += "…";
  }
  return out;
}

}  // namespace kb::client
