#include <malloc.h>
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "commands.h"
#include "kb/snapshot.h"
#include "server.h"

namespace kb::cli {
namespace {

struct ServeCli {
  std::string records = "records";
  std::string db;
  std::string host = "127.0.0.1";
  int port = 8080;
  unsigned threads = http::ServeConfig{}.threads;
  bool cors = false;
  std::string web_dir;
  std::string access_log;
  std::string today;
  int stale_after = kDefaultStaleAfterDays;
  bool no_watch = false;
  unsigned reload_stuck_after = 60;
  double request_timeout = 10;
  double idle_timeout = 5;
  double write_timeout = 10;
  std::size_t max_connections = 0;
  std::size_t max_connections_per_peer = http::ServeConfig{}.max_connections_per_peer;
  std::size_t max_buffered_mib = http::ServeConfig{}.max_buffered_bytes >> 20;
  std::size_t max_buffered_mib_per_peer = http::ServeConfig{}.max_buffered_bytes_per_peer >> 20;
  double check_time_limit = 10;
};

std::chrono::milliseconds seconds(double s) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000.0 + 0.5));
}

// glibc gives each thread that contends for the heap an arena of its own, up to eight per
// core, and keeps what each arena once held: after a burst over many records, sixteen
// request threads hold sixteen high-water marks. One arena per core serves as many
// threads as can run at once (measured: 6 % less RSS after bench_memory's walk at 10k
// records). MALLOC_ARENA_MAX, when set, is left to decide.
void limit_malloc_arenas() {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  ::mallopt(M_ARENA_MAX, cores);
}

int run_serve(const ServeCli& cli) {
  limit_malloc_arenas();
  http::ServeConfig cfg;
  // The installed knowledge base is served from its built index (read-only: it does not
  // change under the server).
  const std::string db = cli.db.empty() ? installed_index(cli.records) : cli.db;
  cfg.records = db.empty() ? cli.records : std::string();
  cfg.db = db;
  cfg.host = cli.host;
  cfg.port = cli.port;
  cfg.threads = cli.threads;
  cfg.cors = cli.cors;
  cfg.web_dir = cli.web_dir;
  cfg.access_log = cli.access_log;
  cfg.watch = !cli.no_watch;
  cfg.reload_stuck_after = std::chrono::seconds(cli.reload_stuck_after);
  cfg.request_timeout = seconds(cli.request_timeout);
  cfg.idle_timeout = seconds(cli.idle_timeout);
  cfg.write_timeout = seconds(cli.write_timeout);
  cfg.max_connections = cli.max_connections;
  cfg.max_connections_per_peer = cli.max_connections_per_peer;
  cfg.max_buffered_bytes = cli.max_buffered_mib << 20;
  cfg.max_buffered_bytes_per_peer = cli.max_buffered_mib_per_peer << 20;
  cfg.check_time_limit = seconds(cli.check_time_limit);
  cfg.lint.today = cli.today;
  cfg.lint.stale_after_days = cli.stale_after;

  // SIGINT and SIGTERM are taken by this thread alone (sigwait below), so every worker
  // thread started from here on inherits the blocked mask and shutdown is orderly.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  http::Server server(cfg);
  const int port = server.start();
  const auto snap = server.kb().current();
  std::cerr << "kb serve: " << snap->corpus().records().size() << " records from "
            << (db.empty() ? cli.records : db) << (db.empty() ? "" : " (read-only)")
            << " on http://" << cli.host << ":" << port << "/  (Ctrl-C stops)" << std::endl;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::cerr << "kb serve: stopping" << std::endl;
  server.stop();
  return kExitOk;
}

}  // namespace

void add_serve(CLI::App& app, Action& run) {
  auto cli = std::make_shared<ServeCli>();
  auto* sub = app.add_subcommand("serve", "Serve the API and pages, reloading on file changes");
  cli->records = default_records();
  auto* records =
      sub->add_option("--records", cli->records, "Directory of record files, watched and reloaded")
          ->capture_default_str();
  sub->add_option("--db", cli->db,
                  "Prebuilt index (kb build) to serve read-only; nothing is watched")
      ->excludes(records);
  sub->add_option("--host", cli->host, "Address to bind; loopback unless you mean otherwise")
      ->capture_default_str();
  sub->add_option("--port", cli->port, "Port to listen on")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  sub->add_option("--threads", cli->threads,
                  "Request worker threads (connections are read and written by one event loop "
                  "and hold none while idle or slow)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  sub->add_option("--request-timeout", cli->request_timeout,
                  "Seconds a request (line, headers, body) may take to arrive from its first "
                  "byte; later: 408 and close")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  sub->add_option("--idle-timeout", cli->idle_timeout,
                  "Seconds a kept-alive connection may wait for its next request")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  sub->add_option("--write-timeout", cli->write_timeout,
                  "Seconds an answer may go without write progress before it is dropped")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  sub->add_option("--max-connections", cli->max_connections,
                  "Open connections at most; over it the oldest idle or slow one is closed "
                  "(0: the file descriptor limit minus a reserve, at most 10000)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}))
      ->capture_default_str();
  sub->add_option("--max-connections-per-peer", cli->max_connections_per_peer,
                  "Open connections of one remote address at most; over it that address's "
                  "oldest idle or slow one is closed")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
      ->capture_default_str();
  sub->add_option("--max-buffered-mib", cli->max_buffered_mib,
                  "MiB of requests still arriving (heads, bodies) all connections may hold; a "
                  "read past it is answered 503 and its connection closed")
      ->check(CLI::Range(std::size_t{8}, std::size_t{1} << 20))
      ->capture_default_str();
  sub->add_option("--max-buffered-mib-per-peer", cli->max_buffered_mib_per_peer,
                  "MiB of requests still arriving one remote address's connections may hold "
                  "(at least the 8 MiB body limit, at most --max-buffered-mib)")
      ->check(CLI::Range(std::size_t{8}, std::size_t{1} << 20))
      ->capture_default_str();
  sub->add_option("--check-time-limit", cli->check_time_limit,
                  "Seconds one POST /api/v1/check may work; later: 503 limits.check-time")
      ->check(CLI::Range(0.001, 3600.0))
      ->capture_default_str();
  sub->add_flag("--cors", cli->cors,
                "Allow cross-origin API requests (Access-Control-Allow-Origin: *)");
  sub->add_option("--web-dir", cli->web_dir,
                  "Read templates and static files from this web/ directory");
  sub->add_option("--access-log", cli->access_log, "One line per request to FILE, or - for stdout");
  add_date_option(sub, "--today", cli->today, "Date staleness is measured from (YYYY-MM-DD)");
  sub->add_option("--stale-after", cli->stale_after,
                  "Warn when a record was last verified longer ago (days)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_flag("--no-watch", cli->no_watch, "Serve the files as they are at start; do not reload");
  sub->add_option("--reload-stuck-after", cli->reload_stuck_after,
                  "Seconds after which a running reload is stuck: /healthz answers 503")
      ->check(CLI::Range(1, 86400))
      ->capture_default_str();
  sub->callback([&run, cli] { run = [cli] { return run_serve(*cli); }; });
}

}  // namespace kb::cli
