#pragma once

// The request workers: a fixed number of threads running jobs in submission order.

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
  /// Starts `threads` workers (at least one).
  explicit WorkerPool(unsigned threads);
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
  std::vector<std::thread> threads_;
};

}  // namespace kb::http::net
