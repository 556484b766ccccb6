#pragma once

// Response bodies that are a pure function of the snapshot and a key (one record's
// JSON): built once per snapshot and shared by every request that asks again. A newer
// snapshot empties the cache; a request still answering from an older one bypasses it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace kb::http {

/// Bodies by key for the newest snapshot generation seen, up to a byte budget.
class ResponseCache {
 public:
  /// `max_bytes` bounds the bodies held; past it the cache starts over.
  explicit ResponseCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  /// The body for `key` under snapshot `generation`: cached, or made by `make` now;
  /// null, and nothing kept, when `make` has nothing to keep (an answer not to reuse).
  std::shared_ptr<const std::string> get(std::uint64_t generation, const std::string& key,
                                         const std::function<std::optional<std::string>()>& make);

  /// The body for `key` under snapshot `generation` if it is cached, else null; never
  /// makes one (what the event loop may call: it must not block on building a body).
  std::shared_ptr<const std::string> peek(std::uint64_t generation, const std::string& key);

  /// Bodies answered from the cache and made, since start.
  std::uint64_t hits() const;
  std::uint64_t misses() const;

 private:
  mutable std::mutex mu_;
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::uint64_t generation_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> bodies_;
};

}  // namespace kb::http
