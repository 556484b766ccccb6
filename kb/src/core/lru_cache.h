#pragma once

// A bounded map that forgets what was used least recently, safe to share between threads.
// Private to kb_core.

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace kb {

template <class Value>
class LruCache {
 public:
  /// Holds at most `capacity` entries (at least one).
  explicit LruCache(std::size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}

  /// The value under `key`, now the most recently used; nullopt when absent.
  std::optional<Value> get(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  /// Keeps `value` under `key` unless a value is there already; returns the value kept.
  /// The least recently used entry goes when the cache is full.
  Value put(std::string key, Value value) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = by_key_.find(key); it != by_key_.end()) return it->second->second;
    lru_.emplace_front(key, std::move(value));
    by_key_.emplace(std::move(key), lru_.begin());
    if (lru_.size() > capacity_) {
      by_key_.erase(lru_.back().first);
      lru_.pop_back();
    }
    return lru_.front().second;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return lru_.size();
  }

 private:
  using Entry = std::pair<std::string, Value>;
  std::size_t capacity_;
  mutable std::mutex mu_;
  mutable std::list<Entry> lru_;
  mutable std::unordered_map<std::string, typename std::list<Entry>::iterator> by_key_;
};

}  // namespace kb
