#pragma once

// `kb serve`: the HTTP API (and pages) over a live, atomically swapped snapshot.
// Start it in-process (tests) or from the CLI; both go through ServeConfig.

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "kb/lint.h"

namespace kb {
class LiveKb;
}

namespace kb::http {

/// Everything `kb serve` can be told, with its defaults.
struct ServeConfig {
  std::filesystem::path records = "records";  ///< watch and serve this tree ...
  std::filesystem::path db;                   ///< ... or this prebuilt index, read-only
  std::string host = "127.0.0.1";             ///< loopback unless told otherwise
  int port = 8080;                            ///< 0: any free port (tests)
  unsigned threads = 16;                      ///< request workers (connections cost none)
  bool cors = false;                          ///< Access-Control-Allow-Origin: * on the API
  std::filesystem::path web_dir;              ///< templates from disk instead of the binary
  std::string access_log;                     ///< "" none, "-" stdout, else a file (appended)
  std::size_t max_body_bytes = 8u << 20;      ///< larger request bodies get 413
  /// Bytes of requests still arriving (heads, bodies, pipelined requests) that one remote
  /// address's connections, and all connections, may hold; a read past either is
  /// answered 503 with Retry-After and its connection closed, its bytes freed.
  std::size_t max_buffered_bytes_per_peer = 64u << 20;
  std::size_t max_buffered_bytes = 256u << 20;
  /// A single check (POST /api/v1/check, the check page) stops after this much time and
  /// answers 503 `limits.check-time`; it stops as soon as its client leaves, too.
  std::chrono::milliseconds check_time_limit{10000};
  std::size_t max_batch = 1000;  ///< deployments per POST /api/v1/check/batch
  /// Engines, settings and services of all deployments of one batch together: the work a
  /// batch may ask for (each unknown name costs a fuzzy search), whatever its byte size.
  std::size_t max_batch_facts = 20000;
  /// Bytes of one batch answer; deployments past it answer `batch-budget-exceeded`.
  std::size_t max_batch_response_bytes = 16u << 20;
  /// Batches answered at once; more get 503 with Retry-After (one batch can use a core).
  std::size_t max_concurrent_batches = 2;
  /// Diagnostics kept per checked deployment; the rest are counted in one note.
  std::size_t max_check_diagnostics = 100;
  std::chrono::milliseconds query_budget{2000};  ///< time limit of one full-text query
  /// A request (line, headers and body) must arrive this soon after its first byte (408).
  std::chrono::milliseconds request_timeout{10000};
  std::chrono::milliseconds idle_timeout{5000};    ///< a kept-alive connection without a request
  std::chrono::milliseconds write_timeout{10000};  ///< an answer that makes no write progress
  std::size_t max_connections = 0;  ///< open connections; 0: from the file descriptor limit
  std::size_t max_connections_per_peer = 256;  ///< open connections of one remote address
  bool watch = true;                           ///< reload on file changes (records only)
  bool force_polling = false;                  ///< watch by polling even where inotify works
  /// A reload running longer than this is stuck: /healthz answers 503 until it ends.
  std::chrono::milliseconds reload_stuck_after{std::chrono::seconds(60)};
  LintOptions lint;  ///< as `kb lint` would check the files
  /// Where operational problems (reload failures, 500s) are reported; stderr when empty.
  std::function<void(const std::string&)> error_log;

  /// Throws kb::Error(invalid_argument) naming the first bad setting.
  void validate() const;
};

/// A running server: loads the knowledge base, binds, reads and writes every connection
/// on one event-loop thread and answers requests on `threads` workers (server/net/).
class Server {
 public:
  /// Validates `config` and loads the first snapshot; throws kb::Error.
  explicit Server(ServeConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds and starts answering on background threads (and the file watcher); returns
  /// the bound port (the one chosen when `port` is 0). Throws kb::Error(io) when the
  /// address cannot be bound.
  int start();
  /// Stops accepting, lets requests being answered finish (at most 5 s), closes every
  /// connection, stops the watcher; idempotent.
  void stop();
  /// Blocks until the server stopped.
  void wait();
  /// The live knowledge base being served.
  LiveKb& kb();
  /// The port it listens on (0 before start()).
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kb::http
