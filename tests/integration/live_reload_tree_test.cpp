// What /healthz and /metrics say of a reload that is running, stuck or failing.

#include <condition_variable>
#include <mutex>
#include <thread>

#include "http_api.h"
#include "http_status.h"
#include "routes.h"
#include "server_harness.h"

using namespace kbtest;

namespace {

std::string gotcha(const std::string& slug, const std::string& title) {
  return "id: gotchas/" + slug + "\ntitle: " + title +
         "\nseverity: major\nstatus: open\naffects: [vllm]\nsymptom: |\n  " + title + "\n";
}

}  // namespace

TEST_CASE("healthz: a reload running past its limit is stuck, 503; metrics say so",
          "[server][reload][health]") {
  TreeCopy tree;
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false;
  bool held = false;
  kb::LiveOptions options;
  options.records = tree.root();
  options.lint = test_lint();
  options.on_reload = [&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!hold) return;
    held = true;
    cv.notify_all();
    cv.wait(lock, [&] { return !hold; });
  };
  kb::LiveKb live(options);
  live.start_watching();
  kb::http::ServeConfig config;
  config.reload_stuck_after = std::chrono::milliseconds(50);
  kb::http::Metrics metrics;
  const kb::http::Services svc{live, config, metrics, [](const std::string&) {}};
  const auto call = [&](kb::http::Handler handler) {
    httplib::Request req;
    httplib::Response res;
    const auto snap = live.current();
    handler(kb::http::Ctx{req, res, *snap, svc});
    return res;
  };
  auto ok = json::parse(call(kb::http::healthz).body);
  CHECK(ok["reload"]["state"] == "idle");
  CHECK(ok["reload"]["running_seconds"] == 0);

  {
    std::lock_guard<std::mutex> lock(mu);
    hold = true;
  }
  tree.write("gotchas/beta-major.yaml", gotcha("beta-major", "Held"));
  {
    std::unique_lock<std::mutex> lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return held; }));
  }
  CHECK(live.reload_status().state == kb::ReloadState::running);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past the 50 ms limit
  try {
    call(kb::http::healthz);
    FAIL("healthz answered 200 while the reload is stuck");
  } catch (const kb::http::ApiError& e) {
    CHECK(e.problem() == kb::http::Problem::unavailable);
    CHECK(e.code() == "reload-stuck");
    CHECK(e.details()["status"] == "stuck");
    CHECK(e.details()["reload"]["state"] == "stuck");
    CHECK(e.details()["reload"]["running_seconds"].get<double>() >= 0.1);
  }
  const std::string text = call(kb::http::metrics).body;
  CHECK(text.find("kb_reload_state{state=\"stuck\"} 1") != std::string::npos);
  CHECK(text.find("kb_reload_running_seconds 0\n") == std::string::npos);
  CHECK(text.find("kb_reload_last_success_timestamp_seconds ") != std::string::npos);

  {
    std::lock_guard<std::mutex> lock(mu);
    hold = false;
  }
  cv.notify_all();
  for (int i = 0; i < 500 && live.reload_status().state != kb::ReloadState::idle; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  auto after = json::parse(call(kb::http::healthz).body);
  CHECK(after["status"] == "ok");
  CHECK(after["reload"]["state"] == "idle");
  CHECK(live.current()->corpus().find("gotchas/beta-major")->title == "Held");
  live.stop();
}
