#pragma once

// The HTTP front end of `kb serve`: one event-loop thread accepts connections and does
// every read and write without blocking; complete requests go to a pool of workers,
// whose answers come back to the loop to be written, unless the answer is at hand
// (`Callbacks::answer_now`) and the loop writes it at once. A slow or idle client costs a file
// descriptor and a buffer, never a worker.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "connection_stats.h"
#include "request_parser.h"

namespace kb::http::net {

/// Deadlines and limits of the front end.
struct ListenerConfig {
  std::string host = "127.0.0.1";
  int port = 0;                                      ///< 0: any free port
  unsigned workers = 16;                             ///< threads answering requests
  std::chrono::milliseconds request_timeout{10000};  ///< first byte to last of a request
  std::chrono::milliseconds idle_timeout{5000};      ///< kept alive without a request
  std::chrono::milliseconds write_timeout{10000};    ///< an answer without write progress
  std::chrono::milliseconds linger{2000};            ///< reading after the last answer
  std::chrono::milliseconds drain{5000};             ///< stop(): in-flight requests finish
  std::size_t max_connections = 0;                   ///< 0: from RLIMIT_NOFILE
  std::size_t max_connections_per_peer = 256;        ///< by remote IP address
  std::size_t max_requests_per_connection = 1000;
  /// Bytes of requests not yet handed to a worker (partial heads and bodies, pipelined
  /// requests) all connections may hold, and one remote address's connections: a read
  /// that takes them past either is refused (503, Retry-After) and its connection closed.
  std::size_t max_buffered_bytes = 256u << 20;
  std::size_t max_buffered_bytes_per_peer = 64u << 20;
  int backlog = 1024;
  ParserLimits parser;
};

/// The workers a complete request goes to.
enum class Lane {
  general,   ///< the `workers` of ListenerConfig
  reserved,  ///< a worker that answers nothing else, so it never waits behind slow requests
  /// Workers of their own, one per core, in the order such requests came: for pure CPU
  /// work (a search over an index in memory). With more of them running at once than
  /// cores, each is slowed by all the others, so a slow one ends as late as its own time
  /// multiplied by their number; queued, it waits only for those ahead of it
  /// (bench/RESULTS.md, round 18: p99 of distinct searches at 16 connections about a
  /// fourth of what it was).
  cpu,
};

/// What the loop calls to answer.
struct Callbacks {
  /// On a worker thread: the answer to a complete request. `gone` turns true when its
  /// client goes away (closes or resets the connection) meanwhile: the answer is not
  /// wanted, and long work may stop.
  std::function<void(httplib::Request& req, httplib::Response& res, const std::atomic<bool>& gone)>
      handle;
  /// On the loop thread, optional: the workers a complete request goes to (general when
  /// unset). One call per request: it matches the request's route once.
  std::function<Lane(const httplib::Request& req)> lane;
  /// On the loop thread, optional: the answer to a complete request when it is at hand
  /// (already built), so it needs no worker; false leaves it to `handle`. Must not block.
  std::function<bool(httplib::Request& req, httplib::Response& res)> answer_now;
  /// On the loop thread: the answer to a request refused before it reached a worker
  /// (framing 4xx/5xx, 408, or 503 for a connection over the limits); `req` holds what
  /// was read of it.
  std::function<void(const httplib::Request& req, int status, std::string_view message,
                     httplib::Response& res)>
      refuse;
};

/// The listening socket, its event loop and its workers.
class Listener {
 public:
  /// Nothing is bound or started yet.
  Listener(ListenerConfig config, Callbacks callbacks, ConnectionStats& stats);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  /// Binds and listens; returns the port. Throws kb::Error(io).
  int bind();
  /// Starts the loop and the workers (after bind()).
  void start();
  /// Stops accepting, lets requests being answered finish (at most `drain`), closes
  /// every connection and joins the threads; idempotent.
  void stop();
  /// Blocks until the loop stopped (returns at once when it never started).
  void wait();

 private:
  struct Loop;
  std::unique_ptr<Loop> loop_;
};

}  // namespace kb::http::net
