#pragma once

// Private to the listener: the event loop's state. event_loop.cpp holds the loop itself
// (binding, accepting, limits, deadlines, stopping); connection_io.cpp what happens on
// one connection (reads, parsing, hand-off to a worker, writes, closing).

#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "connection_table.h"
#include "listener.h"
#include "worker_pool.h"

namespace kb::http::net {

struct Listener::Loop {
  Loop(ListenerConfig c, Callbacks cb, ConnectionStats& s)
      : config(std::move(c)), callbacks(std::move(cb)), stats(s), table(s) {}
  ~Loop();

  // event_loop.cpp
  int bind();
  void start();
  void stop();
  void wait();
  void run();
  void accept_ready(Clock::time_point now);
  void admit(int fd, const sockaddr_storage& addr, Clock::time_point now);
  void refuse_connection(int fd, const std::string& peer, int port, Limit limit);
  bool free_a_descriptor(Clock::time_point now);
  void pause_accepting(Clock::time_point now);
  void sweep(Clock::time_point now);
  void take_completions(Clock::time_point now);
  void begin_stop(Clock::time_point now);
  void wake();
  void close_fds();

  // connection_io.cpp
  void on_event(Connection& c, std::uint32_t events, Clock::time_point now);
  void read_ready(Connection& c, Clock::time_point now);
  void parse(Connection& c, Clock::time_point now);
  void await_answer(Connection& c);
  void account(Connection& c);
  bool within_budget(Connection& c, Clock::time_point now);
  void dispatch(Connection& c, Clock::time_point now);
  bool answer_inline(Connection& c, httplib::Request& req, bool keep_alive, Clock::time_point now);
  void refuse_request(Connection& c, int status, std::string_view message, Clock::time_point now);
  void answer(Connection& c, std::string bytes, std::size_t sent, bool keep_alive,
              std::function<bool(std::string&)> more, Clock::time_point now);
  void write_ready(Connection& c, Clock::time_point now);
  void answered(Connection& c, Clock::time_point now);
  void begin_close(Connection& c, Clock::time_point now);
  void close(Connection& c);
  void client_gone(Connection& c);

  /// A worker's answer, on its way back to the loop: `sent` bytes of it were written
  /// already by the worker (the loop writes the rest).
  struct Completion {
    std::uint64_t id;
    std::string bytes;
    std::size_t sent;
    bool keep_alive;
    std::function<bool(std::string&)> more;  ///< the rest of a streamed answer
  };

  ListenerConfig config;
  Callbacks callbacks;
  ConnectionStats& stats;
  ConnectionTable table;
  std::unique_ptr<WorkerPool> workers;
  std::unique_ptr<WorkerPool> reserved_workers;  // Lane::reserved requests only
  std::unique_ptr<WorkerPool> cpu_workers;       // Lane::cpu requests only
  std::size_t max_connections = 0;
  int listen_fd = -1;
  int epoll_fd = -1;
  int wake_fd = -1;
  int spare_fd = -1;  // given up to accept-and-refuse when descriptors run out
  bool accept_paused = false;
  Clock::time_point accept_resume;
  std::thread thread;
  std::atomic<bool> stop_requested{false};
  bool stopping = false;
  Clock::time_point drain_deadline;
  std::mutex completions_mu;
  std::vector<Completion> completions;
  std::atomic<bool> wake_pending{false};  // the eventfd was written and not yet read
  // Connections being answered whose client already sent more; while there are any,
  // every answer wakes the loop (completions_wanted), else whole answers wait for it.
  std::size_t awaiting = 0;
  std::atomic<bool> completions_wanted{false};
  std::vector<std::uint64_t> read_again;   // read their quota; more to read next round
  std::vector<std::uint64_t> write_again;  // streamed their quota; more to write next round
  // Inside an answer written by the loop itself: a pipelined request behind it goes to a
  // worker, so the loop never recurses deeper than one answer.
  bool answering_inline = false;
  std::mutex running_mu;
  std::condition_variable running_cv;
  bool running = false;
};

/// epoll tags of the two descriptors that are not connections (whose tags are ids).
inline constexpr std::uint64_t kListenTag = ~std::uint64_t{0};
inline constexpr std::uint64_t kWakeTag = ~std::uint64_t{0} - 1;

}  // namespace kb::http::net
