#pragma once
// Records on their way into the index from the loading threads: one thread writes them
// while the loading threads go on parsing. With the loading threads writing in turn
// under a mutex, at 100k records each of them waited ~5 s for the other's inserts
// (bench/RESULTS.md, round 7).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "kb/error.h"
#include "kb/model.h"

namespace kb {

class WriteQueue {
 public:
  /// `write` runs on the queue's own thread, one record at a time, in push order.
  using Write = std::function<void(const Record&, bool stale)>;
  WriteQueue(Write write, std::size_t capacity);
  ~WriteQueue();  ///< cancel()
  WriteQueue(const WriteQueue&) = delete;
  WriteQueue& operator=(const WriteQueue&) = delete;

  /// Queues `r` (blocks while `capacity` records wait); throws the error a write
  /// failed with, so loading stops at the first one.
  void push(std::shared_ptr<const Record> r, bool stale);
  /// Waits until every queued record is written and stops the thread; throws the error
  /// a write failed with. The queue takes no more records after it.
  void finish();
  /// Drops what is still queued, waits for the record being written, stops the thread.
  void cancel() noexcept;

 private:
  void run();
  void throw_if_failed() const;

  Write write_;
  std::size_t capacity_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::pair<std::shared_ptr<const Record>, bool>> items_;
  bool closing_ = false;
  std::optional<std::pair<Errc, std::string>> failed_;  ///< the first write that threw
  std::thread thread_;                                  ///< started by the first push
};

}  // namespace kb
