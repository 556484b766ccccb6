// The request workers run every job, and call the idle hook once per busy period: after
// jobs, when nothing has been queued or running for the idle delay, and never while one
// runs.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "net/worker_pool.h"

using kb::http::net::WorkerPool;
using namespace std::chrono_literals;

namespace {

// Waits (at most `limit`) until `done` holds; what it returns is what the test checks.
template <class Pred>
bool eventually(Pred done, std::chrono::milliseconds limit = 5000ms) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

}  // namespace

TEST_CASE("the worker pool runs every job submitted before stop", "[net][workers]") {
  std::atomic<int> ran{0};
  {
    WorkerPool pool(3);
    for (int i = 0; i < 200; ++i) pool.submit([&] { ++ran; });
    REQUIRE(eventually([&] { return ran.load() == 200; }));
  }
  CHECK(ran.load() == 200);
}

TEST_CASE("the idle hook runs once after a burst, not before there was work", "[net][workers]") {
  std::atomic<int> idle{0};
  std::atomic<int> ran{0};
  WorkerPool pool(2, 30ms, [&] { ++idle; });
  // No work yet: nothing to hand back.
  std::this_thread::sleep_for(120ms);
  CHECK(idle.load() == 0);

  for (int i = 0; i < 50; ++i) pool.submit([&] { ++ran; });
  REQUIRE(eventually([&] { return idle.load() == 1; }));
  CHECK(ran.load() == 50);
  // Once per busy period: quiet time after it calls nothing more.
  std::this_thread::sleep_for(150ms);
  CHECK(idle.load() == 1);

  // A second burst, a second call.
  pool.submit([&] { ++ran; });
  REQUIRE(eventually([&] { return idle.load() == 2; }));
  std::this_thread::sleep_for(100ms);
  CHECK(idle.load() == 2);
}

TEST_CASE("the idle hook waits for a long job to finish", "[net][workers]") {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  std::atomic<bool> started{false}, finished{false};
  std::atomic<int> idle{0};
  std::atomic<bool> idle_while_running{false};
  WorkerPool pool(2, 20ms, [&] {
    if (started.load() && !finished.load()) idle_while_running = true;
    ++idle;
  });
  pool.submit([] {});  // work done: the pool may call the hook after this
  REQUIRE(eventually([&] { return idle.load() == 1; }));
  pool.submit([&] {
    started = true;
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return release; });
    finished = true;
  });
  REQUIRE(eventually([&] { return started.load(); }));
  // Well past the delay while the job runs: no call.
  std::this_thread::sleep_for(150ms);
  CHECK(idle.load() == 1);
  {
    std::lock_guard<std::mutex> lock(mu);
    release = true;
  }
  cv.notify_all();
  REQUIRE(eventually([&] { return idle.load() == 2; }));
  CHECK_FALSE(idle_while_running.load());
}

TEST_CASE("stopping a pool waiting to call the idle hook returns at once", "[net][workers]") {
  std::atomic<int> idle{0};
  auto pool = std::make_unique<WorkerPool>(2, std::chrono::milliseconds(60000), [&] { ++idle; });
  pool->submit([] {});
  std::this_thread::sleep_for(20ms);
  const auto t0 = std::chrono::steady_clock::now();
  pool.reset();
  CHECK(std::chrono::steady_clock::now() - t0 < 5s);
  CHECK(idle.load() == 0);
}

TEST_CASE("an empty job is work done, not a call of the idle hook", "[net][workers]") {
  std::atomic<int> idle{0};
  std::atomic<int> ran{0};
  WorkerPool pool(1, 20ms, [&] { ++idle; });
  pool.submit({});
  pool.submit([&] { ++ran; });
  REQUIRE(eventually([&] { return idle.load() == 1; }));
  CHECK(ran.load() == 1);
  std::this_thread::sleep_for(80ms);
  CHECK(idle.load() == 1);
  // Nothing counts as still running: the next burst ends in the next call.
  pool.submit([&] { ++ran; });
  REQUIRE(eventually([&] { return idle.load() == 2; }));
  CHECK(ran.load() == 2);
}
