#pragma once

// The request workers: a fixed number of threads running jobs in submission order.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kb::http::net {

/// A fixed pool of threads taking jobs from one queue.
class WorkerPool {
 public:
  using Clock = std::chrono::steady_clock;

  /// Starts `threads` workers (at least one). With `on_idle`, one worker calls it once
  /// each time the pool, after running jobs, has been idle (no job queued or running) for
  /// `idle_after`: how the server hands back what a burst of requests left in the heap.
  explicit WorkerPool(unsigned threads, std::chrono::milliseconds idle_after = {},
                      std::function<void()> on_idle = {});
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Queues `job`; ignored once stop() was called.
  void submit(std::function<void()> job);
  /// Drops the jobs not started, waits for the running ones, joins; idempotent.
  void stop();

 private:
  void run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  const std::chrono::milliseconds idle_after_;
  const std::function<void()> on_idle_;
  std::size_t running_ = 0;  ///< jobs being run
  bool worked_ = false;      ///< a job finished since on_idle last ran
  Clock::time_point last_done_;
  std::vector<std::thread> threads_;
};

}  // namespace kb::http::net
