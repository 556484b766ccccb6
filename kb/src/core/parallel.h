#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace kb {

/// Loading threads to run beside one index writer thread (Store::put's queue): one fewer
/// than the cores, at least one; `threads` when it is not 0 (asked for). With a loading
/// thread on every core as well, the writer (most of it FTS5) got a third of two cores
/// and a 100k build took 35-36 s instead of 27-29 (bench/RESULTS.md, round 7).
inline unsigned loaders_beside_writer(unsigned threads) {
  if (threads != 0) return threads;
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 ? cores - 1 : 1;
}

/// Runs fn(i) for i in [0, n) on up to `threads` threads (0: one per core). The
/// first exception thrown by any call is rethrown after all threads finish.
template <class Fn>
void parallel_for(std::size_t n, unsigned threads, Fn&& fn) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, n));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::atomic<bool> failed{false};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < n;) {
      if (failed.load()) return;
      try {
        fn(i);
      } catch (...) {
        if (!failed.exchange(true)) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace kb
