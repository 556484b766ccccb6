#include "store/write_queue.h"

#include <exception>

namespace kb {

WriteQueue::WriteQueue(Write write, std::size_t capacity)
    : write_(std::move(write)), capacity_(capacity < 1 ? 1 : capacity) {}

WriteQueue::~WriteQueue() {
  cancel();
}

void WriteQueue::throw_if_failed() const {
  if (failed_) throw Error(failed_->first, failed_->second);
}

void WriteQueue::push(std::shared_ptr<const Record> r, bool stale) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!thread_.joinable() && !closing_) thread_ = std::thread([this] { run(); });
  changed_.wait(lock, [&] { return items_.size() < capacity_ || closing_; });
  throw_if_failed();
  if (closing_) throw Error(Errc::internal, "a record was put after its update ended");
  items_.emplace_back(std::move(r), stale);
  changed_.notify_all();
}

void WriteQueue::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return !items_.empty() || closing_; });
    if (items_.empty()) return;  // closing, and everything is written
    auto item = std::move(items_.front());
    items_.pop_front();
    changed_.notify_all();  // room for a waiting push
    lock.unlock();
    std::optional<std::pair<Errc, std::string>> error;
    try {
      write_(*item.first, item.second);
    } catch (const Error& e) {
      error.emplace(e.code(), e.what());
    } catch (const std::exception& e) {
      error.emplace(Errc::internal, e.what());
    }
    item.first.reset();  // the copy is freed on this thread, outside the lock
    lock.lock();
    if (error) {
      if (!failed_) failed_ = std::move(error);
      items_.clear();  // nothing after a failed write is written
      closing_ = true;
      changed_.notify_all();
      return;
    }
    changed_.notify_all();
  }
}

void WriteQueue::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  throw_if_failed();
}

void WriteQueue::cancel() noexcept {
  {
    std::lock_guard<std::mutex> lock(mu_);
    items_.clear();
    closing_ = true;
    changed_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace kb
