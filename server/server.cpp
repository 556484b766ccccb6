#include "server.h"

#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>

#include "http_request.h"
#include "http_router.h"
#include "kb/error.h"
#include "kb/snapshot.h"
#include "metrics.h"
#include "net/listener.h"
#include "pages.h"
#include "routes.h"

namespace kb::http {
namespace {

constexpr unsigned kMaxThreads = 1024;
// A burst of reconnecting clients overflows a short backlog, and every dropped SYN costs
// its client a 1 s retransmit.
constexpr int kListenBacklog = 1024;
constexpr std::chrono::milliseconds kMaxTimeout = std::chrono::hours(1);
constexpr std::size_t kMaxConnectionsLimit = 1000000;
// Record bodies kept per snapshot: about 9,000 typical gotchas.
constexpr std::size_t kResponseCacheBytes = 64u << 20;

std::string now_iso() {
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

}  // namespace

void ServeConfig::validate() const {
  auto bad = [](const std::string& m) { throw Error(Errc::invalid_argument, m); };
  if (records.empty() == db.empty()) bad("serve either --records DIR or --db PATH");
  if (host.empty()) bad("--host must not be empty");
  if (port < 0 || port > 65535) bad("--port must be 0-65535");
  if (threads == 0 || threads > kMaxThreads)
    bad("--threads must be 1-" + std::to_string(kMaxThreads));
  if (max_batch == 0) bad("the batch limit must be at least 1");
  if (max_batch_facts == 0 || max_batch_response_bytes == 0 || max_concurrent_batches == 0 ||
      max_check_diagnostics == 0) {
    bad("the batch and diagnostics budgets must be at least 1");
  }
  if (max_body_bytes < 1024) bad("the body limit must be at least 1024 bytes");
  if (max_buffered_bytes_per_peer < max_body_bytes ||
      max_buffered_bytes < max_buffered_bytes_per_peer)
    bad("the buffered request bytes must be at least the body limit per peer, and at least "
        "that in all");
  if (check_time_limit.count() <= 0) bad("the check time limit must be positive");
  if (query_budget.count() <= 0) bad("the query time limit must be positive");
  auto check_timeout = [&](std::chrono::milliseconds t, const char* flag) {
    if (t.count() <= 0 || t > kMaxTimeout)
      bad(std::string(flag) + " must be more than 0 and at most 3600 seconds");
  };
  check_timeout(request_timeout, "--request-timeout");
  check_timeout(idle_timeout, "--idle-timeout");
  check_timeout(write_timeout, "--write-timeout");
  if (max_connections > kMaxConnectionsLimit)
    bad("--max-connections must be at most " + std::to_string(kMaxConnectionsLimit) +
        " (0: from the file descriptor limit)");
  if (max_connections_per_peer == 0 || max_connections_per_peer > kMaxConnectionsLimit)
    bad("--max-connections-per-peer must be 1-" + std::to_string(kMaxConnectionsLimit));
}

struct Server::Impl {
  ServeConfig config;
  std::unique_ptr<LiveKb> kb;
  Metrics metrics;
  std::unique_ptr<pages::Renderer> renderer;
  std::unique_ptr<Services> services;
  ResponseCache responses{kResponseCacheBytes};
  std::unique_ptr<Router> router;
  std::unique_ptr<net::Listener> listener;
  bool started = false;
  int port = 0;
  std::mutex access_mu;
  std::ofstream access_file;
  bool access_stdout = false;

  void log_error(const std::string& line) const {
    if (config.error_log)
      config.error_log(line);
    else
      std::cerr << "kb serve: " << line << std::endl;
  }

  void on_response(const httplib::Request& req, const httplib::Response& res,
                   std::string_view route, std::chrono::microseconds latency) {
    metrics.observe(route, res.status, latency);
    if (!access_stdout && !access_file.is_open()) return;
    const std::size_t bytes = req.method == "HEAD" ? 0 : res.body.size();
    std::string line = now_iso() + " " + log_safe(req.remote_addr) + " \"" + log_safe(req.method) +
                       " " + log_safe(req.target) + "\" " + std::to_string(res.status) + " " +
                       std::to_string(bytes) + " " + std::to_string(latency.count()) + "us\n";
    std::lock_guard<std::mutex> lock(access_mu);
    if (access_stdout)
      std::cout << line << std::flush;
    else
      access_file << line << std::flush;
  }
};

Server::Server(ServeConfig config) : impl_(std::make_unique<Impl>()) {
  config.validate();
  impl_->config = std::move(config);
  Impl& m = *impl_;
  if (m.config.access_log == "-") {
    m.access_stdout = true;
  } else if (!m.config.access_log.empty()) {
    m.access_file.open(m.config.access_log, std::ios::app);
    if (!m.access_file)
      throw Error(Errc::io, "cannot open the access log '" + m.config.access_log + "'");
  }
  LiveOptions live;
  live.records = m.config.db.empty() ? m.config.records : std::filesystem::path();
  live.db = m.config.db;
  live.lint = m.config.lint;
  live.query_budget = m.config.query_budget;
  live.force_polling = m.config.force_polling;
  live.log = [impl = impl_.get()](const std::string& line) { impl->log_error(line); };
  m.kb = std::make_unique<LiveKb>(std::move(live));
  m.renderer = std::make_unique<pages::Renderer>(pages::LinkStyle::live, m.config.web_dir);
  m.services = std::make_unique<Services>(
      Services{*m.kb, m.config, m.metrics,
               [impl = impl_.get()](const std::string& line) { impl->log_error(line); },
               m.renderer.get(), &m.responses});

  m.router = std::make_unique<Router>(
      *m.services, [impl = impl_.get()](const httplib::Request& req, const httplib::Response& res,
                                        std::string_view route, std::chrono::microseconds latency) {
        impl->on_response(req, res, route, latency);
      });
  net::ListenerConfig net;
  net.host = m.config.host;
  net.port = m.config.port;
  net.workers = m.config.threads;
  net.request_timeout = m.config.request_timeout;
  net.idle_timeout = m.config.idle_timeout;
  net.write_timeout = m.config.write_timeout;
  net.max_connections = m.config.max_connections;
  net.max_connections_per_peer = m.config.max_connections_per_peer;
  net.max_requests_per_connection = 1000;  // nginx's keepalive_requests
  net.backlog = kListenBacklog;
  net.parser.max_body_bytes = m.config.max_body_bytes;
  net.parser.route_body_limit = [router = m.router.get()](const httplib::Request& req) {
    return router->body_limit(req);
  };
  net.max_buffered_bytes = m.config.max_buffered_bytes;
  net.max_buffered_bytes_per_peer = m.config.max_buffered_bytes_per_peer;
  net::Callbacks callbacks;
  callbacks.handle = [router = m.router.get()](httplib::Request& req, httplib::Response& res,
                                               const std::atomic<bool>& gone) {
    router->handle(req, res, &gone);
  };
  callbacks.lane = [router = m.router.get()](const httplib::Request& req) {
    return router->lane(req);
  };
  // The loop answers what is already built itself, unless every answer is logged: a log
  // line is a write the loop must not wait for.
  if (!m.access_stdout && !m.access_file.is_open()) {
    callbacks.answer_now = [router = m.router.get()](httplib::Request& req,
                                                     httplib::Response& res) {
      return router->answer_now(req, res);
    };
  }
  callbacks.refuse = [router = m.router.get()](const httplib::Request& req, int status,
                                               std::string_view message, httplib::Response& res) {
    router->refuse(req, status, message, res);
  };
  m.listener = std::make_unique<net::Listener>(std::move(net), std::move(callbacks),
                                               m.metrics.connections());
}

Server::~Server() {
  stop();
}

int Server::start() {
  Impl& m = *impl_;
  if (m.started) return m.port;
  m.port = m.listener->bind();
  if (m.config.watch) m.kb->start_watching();
  m.listener->start();
  m.started = true;
  return m.port;
}

void Server::stop() {
  Impl& m = *impl_;
  m.listener->stop();
  m.kb->stop();
}

void Server::wait() {
  impl_->listener->wait();
}

LiveKb& Server::kb() {
  return *impl_->kb;
}

int Server::port() const {
  return impl_->port;
}

}  // namespace kb::http
