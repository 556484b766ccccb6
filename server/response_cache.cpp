#include "response_cache.h"

namespace kb::http {

std::shared_ptr<const std::string> ResponseCache::get(
    std::uint64_t generation, const std::string& key,
    const std::function<std::optional<std::string>()>& make) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (generation == generation_) {
      auto it = bodies_.find(key);
      if (it != bodies_.end()) {
        ++hits_;
        return it->second;
      }
    }
    ++misses_;
  }
  // Made outside the lock: two requests may both make it; the bodies are equal.
  std::optional<std::string> made = make();
  if (!made) return nullptr;
  auto body = std::make_shared<const std::string>(std::move(*made));
  std::lock_guard<std::mutex> lock(mu_);
  if (generation < generation_) return body;  // an older snapshot: not worth keeping
  if (generation > generation_) {
    bodies_.clear();
    bytes_ = 0;
    generation_ = generation;
  }
  const std::size_t cost = body->size() + key.size();
  if (cost > max_bytes_) return body;
  if (bytes_ + cost > max_bytes_) {
    bodies_.clear();
    bytes_ = 0;
  }
  if (bodies_.emplace(key, body).second) bytes_ += cost;
  return body;
}

std::shared_ptr<const std::string> ResponseCache::peek(std::uint64_t generation,
                                                       const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  if (generation != generation_) return nullptr;
  auto it = bodies_.find(key);
  if (it == bodies_.end()) return nullptr;
  ++hits_;
  return it->second;
}

std::uint64_t ResponseCache::hits() const {
  std::lock_guard<std::mutex> lock(mu_);
  return hits_;
}

std::uint64_t ResponseCache::misses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return misses_;
}

}  // namespace kb::http
