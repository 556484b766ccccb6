#include "server.h"

#include <sys/socket.h>

#include <condition_variable>
#include <ctime>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include "http_request.h"
#include "kb/error.h"
#include "kb/snapshot.h"
#include "metrics.h"
#include "pages.h"
#include "routes.h"

namespace kb::http {
namespace {

constexpr unsigned kMaxThreads = 1024;
// Debian's cpp-httplib is compiled with a listen backlog of 5: a burst of reconnecting
// clients overflows it, and every dropped SYN costs its client a 1 s retransmit.
constexpr int kListenBacklog = 1024;
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
  if (max_body_bytes < 1024) bad("the body limit must be at least 1024 bytes");
  if (query_budget.count() <= 0) bad("the query time limit must be positive");
  if (read_timeout.count() <= 0) bad("the read timeout must be positive");
}

struct Server::Impl {
  ServeConfig config;
  std::unique_ptr<LiveKb> kb;
  Metrics metrics;
  std::unique_ptr<pages::Renderer> renderer;
  std::unique_ptr<Services> services;
  ResponseCache responses{kResponseCacheBytes};
  httplib::Server http;
  std::thread listener;
  int port = 0;
  int listen_fd = -1;  // the socket bound last, i.e. the one listening
  std::mutex access_mu;
  std::ofstream access_file;
  bool access_stdout = false;
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = true;  // not listening

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
  m.services = std::make_unique<Services>(Services{
      *m.kb, m.config, m.metrics,
      [impl = impl_.get()](const std::string& line) { impl->log_error(line); }, m.renderer.get(),
      &m.responses});

  // cpp-httplib serves a kept-alive connection on one worker until it closes: with fewer
  // workers than clients, the rest wait for a whole connection, not a request.
  const unsigned threads = m.config.threads;
  m.http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // Without it a small response waits for the peer's delayed ACK (Nagle): ~40 ms per GET.
  m.http.set_tcp_nodelay(true);
  m.http.set_payload_max_length(m.config.max_body_bytes);
  m.http.set_socket_options([&m](socket_t sock) {
    httplib::default_socket_options(sock);
    m.listen_fd = sock;
  });
  m.http.set_keep_alive_max_count(1000);  // nginx's keepalive_requests
  m.http.set_keep_alive_timeout(2);
  m.http.set_read_timeout(static_cast<time_t>(m.config.read_timeout.count()), 0);
  m.http.set_write_timeout(5, 0);
  install_routes(m.http, *m.services,
                 [impl = impl_.get()](const httplib::Request& req, const httplib::Response& res,
                                      std::string_view route, std::chrono::microseconds latency) {
                   impl->on_response(req, res, route, latency);
                 });
}

Server::~Server() {
  stop();
}

int Server::start() {
  Impl& m = *impl_;
  if (m.listener.joinable()) return m.port;
  int port = m.config.port;
  if (port == 0) {
    port = m.http.bind_to_any_port(m.config.host);
  } else if (!m.http.bind_to_port(m.config.host, port)) {
    port = -1;
  }
  if (port <= 0) {
    throw Error(Errc::io, "cannot listen on " + m.config.host + ":" +
                              std::to_string(m.config.port) +
                              " (in use, or not an address of this machine)");
  }
  m.port = port;
  // Linux takes a second listen() on a listening socket as a new backlog.
  if (m.listen_fd >= 0) ::listen(m.listen_fd, kListenBacklog);
  if (m.config.watch) m.kb->start_watching();
  {
    std::lock_guard<std::mutex> lock(m.done_mu);
    m.done = false;
  }
  m.listener = std::thread([&m] {
    m.http.listen_after_bind();
    std::lock_guard<std::mutex> lock(m.done_mu);
    m.done = true;
    m.done_cv.notify_all();
  });
  // stop() only works once the accept loop runs; do not return before it does.
  while (!m.http.is_running()) {
    {
      std::lock_guard<std::mutex> lock(m.done_mu);
      if (m.done) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return port;
}

void Server::stop() {
  Impl& m = *impl_;
  if (m.listener.joinable()) {
    m.http.stop();
    m.listener.join();
  }
  m.kb->stop();
}

void Server::wait() {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lock(m.done_mu);
  m.done_cv.wait(lock, [&m] { return m.done; });
}

LiveKb& Server::kb() {
  return *impl_->kb;
}

int Server::port() const {
  return impl_->port;
}

}  // namespace kb::http
