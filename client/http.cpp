#include "http.h"

#include <httplib.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>

#include "kb/error.h"
#include "socket_bytes.h"

namespace kb::client {
namespace {

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

std::string describe(httplib::Error e, double timeout) {
  switch (e) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::Read:
      return "no complete answer within " + seconds_text(timeout) +
             " s (timed out or the connection dropped)";
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
  if (prefix.ends_with("/v1")) {
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
  std::size_t max_bytes;
  httplib::Client client;
  // The connection's socket and its received-bytes count when the current request began
  // (0 for a socket opened during it): what the watchdog measures the answer against.
  std::atomic<int> sock{-1};
  std::atomic<std::uint64_t> base{0};

  Impl(const Endpoint& e, const ClientOptions& o)
      : endpoint(e), timeout(o.timeout_seconds), max_bytes(o.max_answer_bytes), client(e.origin) {
    const auto t = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::duration<double>(o.timeout_seconds));
    client.set_connection_timeout(t);
    // The deadline (send() below) decides; per-read timeouts a second later only keep a
    // stopped request from racing it to another message.
    const auto late = t + std::chrono::seconds(1);
    client.set_read_timeout(late);
    client.set_write_timeout(late);
    client.set_keep_alive(true);
    httplib::Headers headers;
    for (const auto& [k, v] : o.headers) headers.emplace(k, v);
    if (!o.api_key.empty()) headers.emplace("Authorization", "Bearer " + o.api_key);
    client.set_default_headers(std::move(headers));
    client.set_socket_options([this](socket_t s) {
      base = 0;
      sock = static_cast<int>(s);
    });
  }

  // Bytes an answer may take on the wire: its body twice over (chunk framing, a
  // compressed body's own bytes) and 1 MiB of headers. httplib reads headers without a
  // limit on their number, so this is what bounds a server that sends them for ever.
  std::uint64_t wire_cap() const { return 2 * static_cast<std::uint64_t>(max_bytes) + (1u << 20); }

  // Sends `req` and reads its answer within the deadline and the size cap. httplib's
  // timeouts are per read, so a server sending a byte a second would be waited on for
  // ever: a watchdog stops the connection when the deadline passes (stop() is httplib's
  // one call that is safe from another thread). The body goes through a receiver that
  // counts it, so neither a long Content-Length nor an endless chunked body is kept.
  HttpResult send(httplib::Request req) {
    HttpResult out;
    out.url = endpoint.origin + req.path;
    bool too_large = false;
    req.content_receiver = [&](const char* data, std::size_t n, std::uint64_t, std::uint64_t) {
      if (out.body.size() + n > max_bytes) {
        too_large = true;
        return false;
      }
      out.body.append(data, n);
      return true;
    };
    std::mutex mu;
    std::condition_variable cv;
    bool done = false, fired = false;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(timeout));
    base = bytes_received(sock).value_or(0);
    bool flooded = false;
    std::thread watchdog([&] {
      std::unique_lock<std::mutex> lock(mu);
      while (!done) {
        if (std::chrono::steady_clock::now() >= deadline) {
          fired = true;
          break;
        }
        if (cv.wait_for(lock, std::chrono::milliseconds(10), [&] { return done; })) return;
        const auto got = bytes_received(sock);
        if (got && *got > base + wire_cap()) {
          flooded = true;
          break;
        }
      }
      // While the request is still connecting there is no socket to shut yet: try again
      // until it gives up.
      while (!done) {
        lock.unlock();
        client.stop();
        lock.lock();
        cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; });
      }
    });
    httplib::Result res = client.send(req);
    {
      std::lock_guard<std::mutex> lock(mu);
      done = true;
    }
    cv.notify_all();
    watchdog.join();
    // Nothing of an answer that did not complete is kept, nor the room it took.
    if (too_large || flooded || fired || !res) std::string().swap(out.body);
    if (flooded) {
      out.refused = true;
      out.error = "the answer of " + out.url + " took more than " + std::to_string(wire_cap()) +
                  " bytes on the wire (headers and framing included), kb's limit for an answer";
    } else if (too_large) {
      out.refused = true;
      out.error = "the answer of " + out.url + " is larger than " + std::to_string(max_bytes) +
                  " bytes, kb's limit for an answer";
    } else if (fired) {
      out.refused = true;
      out.error = out.url + " gave no complete answer within " + seconds_text(timeout) +
                  " s, kb's deadline for a request";
    } else if (!res) {
      out.error = describe(res.error(), timeout);
    } else {
      out.status = res->status;
    }
    return out;
  }

  httplib::Request request(const char* method, const std::string& path) const {
    httplib::Request req;
    req.method = method;
    req.path = endpoint.prefix + path;
    return req;
  }
};

Http::Http(const Endpoint& endpoint, const ClientOptions& options)
    : impl_(std::make_unique<Impl>(endpoint, options)) {}
Http::~Http() = default;
Http::Http(Http&&) noexcept = default;
Http& Http::operator=(Http&&) noexcept = default;

HttpResult Http::get(const std::string& path) {
  return impl_->send(impl_->request("GET", path));
}

HttpResult Http::post_json(const std::string& path, const std::string& body) {
  httplib::Request req = impl_->request("POST", path);
  req.body = body;
  req.set_header("Content-Type", "application/json");
  return impl_->send(std::move(req));
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
