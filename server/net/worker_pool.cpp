#include "worker_pool.h"

#include <pthread.h>

#include <algorithm>

namespace kb::http::net {

WorkerPool::WorkerPool(unsigned threads, std::chrono::milliseconds idle_after,
                       std::function<void()> on_idle)
    : idle_after_(idle_after), on_idle_(std::move(on_idle)) {
  threads_.reserve(std::max(threads, 1u));
  for (unsigned i = 0; i < std::max(threads, 1u); ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::submit(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void WorkerPool::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void WorkerPool::run() {
  pthread_setname_np(pthread_self(), "kb-worker");  // as top -H and /proc show it
  const auto ready = [this] { return stopping_ || !jobs_.empty(); };
  for (;;) {
    std::function<void()> job;
    bool idle_turn = false;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // After work, with nothing running, wait only until the pool has been idle long
      // enough; otherwise until there is a job (a running one's worker waits for idle).
      const bool idle_pending = on_idle_ && worked_ && running_ == 0;
      if (idle_pending) {
        cv_.wait_until(lock, last_done_ + idle_after_, ready);
      } else {
        cv_.wait(lock, ready);
      }
      if (stopping_) return;
      if (jobs_.empty()) {
        // The deadline passed (or a spurious wake-up): whoever sees the pool idle for
        // idle_after_ first runs on_idle_, once.
        if (!(worked_ && running_ == 0 && Clock::now() >= last_done_ + idle_after_)) continue;
        worked_ = false;
        idle_turn = true;
      } else {
        job = std::move(jobs_.front());
        jobs_.pop_front();
        ++running_;
      }
    }
    if (idle_turn) {
      on_idle_();
      continue;
    }
    if (job) job();
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
    worked_ = true;
    last_done_ = Clock::now();
  }
}

}  // namespace kb::http::net
