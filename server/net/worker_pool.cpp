#include "worker_pool.h"

#include <pthread.h>

#include <algorithm>

namespace kb::http::net {

WorkerPool::WorkerPool(unsigned threads) {
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
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace kb::http::net
