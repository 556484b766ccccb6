// The front end alone (server/net/), with handlers the test controls: a reserved request
// is answered while every worker is busy, cpu-bound ones run on workers of their own (one
// per core), a running request learns its client left, and a queued one whose client left
// is never started.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "net/listener.h"
#include "server_harness.h"

using namespace kbtest;
namespace net = kb::http::net;

namespace {

struct Lanes {
  net::ConnectionStats stats;
  std::atomic<bool> slow_started{false};
  std::atomic<bool> slow_saw_gone{false};
  std::atomic<int> queued_ran{0};
  std::atomic<int> cpu_inside{0}, cpu_most{0};
  std::mutex cpu_mu;
  std::set<std::thread::id> cpu_threads;
  std::unique_ptr<net::Listener> listener;
  int port = 0;

  Lanes() {
    net::ListenerConfig cfg;
    cfg.workers = 1;
    net::Callbacks cb;
    cb.handle = [this](httplib::Request& req, httplib::Response& res,
                       const std::atomic<bool>& gone) {
      if (req.path == "/slow") {
        slow_started = true;
        // Works until its client leaves (the guard keeps a failing test finite).
        eventually([&] { return gone.load(); });
        slow_saw_gone = gone.load();
      } else if (req.path == "/queued") {
        ++queued_ran;
      } else if (req.path == "/search") {
        const int now = ++cpu_inside;
        int seen = cpu_most.load();
        while (now > seen && !cpu_most.compare_exchange_weak(seen, now)) {
        }
        {
          std::lock_guard<std::mutex> lock(cpu_mu);
          cpu_threads.insert(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        --cpu_inside;
      }
      res.status = 200;
      res.set_content("ok", "text/plain");
    };
    cb.lane = [](const httplib::Request& req) {
      return req.path == "/healthz"  ? net::Lane::reserved
             : req.path == "/search" ? net::Lane::cpu
                                     : net::Lane::general;
    };
    cb.refuse = [](const httplib::Request&, int status, std::string_view message,
                   httplib::Response& res) {
      res.status = status;
      res.set_content(std::string(message), "text/plain");
    };
    listener = std::make_unique<net::Listener>(cfg, cb, stats);
    port = listener->bind();
    listener->start();
  }
  ~Lanes() { listener->stop(); }
};

}  // namespace

TEST_CASE("the reserved worker answers while the only other one is busy", "[server][lanes]") {
  Lanes l;
  Raw slow(l.port);
  slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(eventually([&] { return l.slow_started.load(); }));
  for (int i = 0; i < 3; ++i) {
    Raw health(l.port);
    health.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    CHECK(raw_status(health.answer()) == 200);
  }
  CHECK_FALSE(l.slow_saw_gone.load());
  slow.close();
  CHECK(eventually([&] { return l.slow_saw_gone.load(); }));
}

TEST_CASE("a request whose client left is told so, or never started", "[server][lanes]") {
  Lanes l;
  Raw slow(l.port);
  slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(eventually([&] { return l.slow_started.load(); }));
  // Queued behind /slow on the one worker; its client leaves before it starts.
  Raw queued(l.port);
  queued.send("GET /queued HTTP/1.1\r\nHost: x\r\n\r\n");
  queued.close();
  REQUIRE(eventually([&] { return l.stats.clients_gone.load() == 1; }));
  slow.close();
  CHECK(eventually([&] { return l.slow_saw_gone.load(); }));
  CHECK(eventually([&] { return l.stats.cancelled.load() == 1; }));
  CHECK(l.stats.clients_gone.load() == 2);
  CHECK(l.queued_ran.load() == 0);
  // The worker is free again: a new request is answered.
  Raw next(l.port);
  next.send("GET /queued HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(raw_status(next.answer()) == 200);
  CHECK(l.queued_ran.load() == 1);
}

TEST_CASE("cpu-bound requests run on workers of their own, one per core", "[server][lanes]") {
  Lanes l;
  Raw slow(l.port);
  slow.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
  REQUIRE(eventually([&] { return l.slow_started.load(); }));
  // The only general worker is busy: searches are answered all the same, never more at
  // once than the machine has cores.
  std::vector<std::unique_ptr<Raw>> searches;
  for (int i = 0; i < 8; ++i) {
    searches.push_back(std::make_unique<Raw>(l.port));
    searches.back()->send("GET /search HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  }
  for (auto& s : searches) CHECK(raw_status(s->answer()) == 200);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  CHECK(l.cpu_most.load() >= 1);
  CHECK(l.cpu_most.load() <= cores);
  {
    std::lock_guard<std::mutex> lock(l.cpu_mu);
    CHECK(static_cast<int>(l.cpu_threads.size()) <= cores);
  }
  CHECK_FALSE(l.slow_saw_gone.load());
  slow.close();
  CHECK(eventually([&] { return l.slow_saw_gone.load(); }));
}
