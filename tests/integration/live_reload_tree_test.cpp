// Live reload when the tree itself is moved about: the root swapped for a new tree, a
// subfolder moved away and back, a record swapped for a link to a FIFO; and what
// /healthz and /metrics say of a reload that is running, stuck or failing.

#include <sys/stat.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "http_api.h"
#include "http_status.h"
#include "routes.h"
#include "server_harness.h"

using namespace kbtest;
using Clock = std::chrono::steady_clock;

namespace {

kb::http::ServeConfig on(const TreeCopy& tree) {
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  return cfg;
}

// Polls until `pred` holds for the JSON body of `path` (bounded; fails the test after).
template <class Pred>
void wait_for(const TestServer& s, const std::string& path, Pred pred) {
  auto c = s.client();
  for (int i = 0; i < 500; ++i) {
    auto res = c.Get(path.c_str());
    if (res && pred(res->status, json::parse(res->body, nullptr, false))) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL("timed out waiting on " << path);
}

std::string gotcha(const std::string& slug, const std::string& title) {
  return "id: gotchas/" + slug + "\ntitle: " + title +
         "\nseverity: major\nstatus: open\naffects: [vllm]\nsymptom: |\n  " + title + "\n";
}

}  // namespace

TEST_CASE("a root swapped for a new tree is served and watched with inotify again",
          "[server][reload][tree]") {
  // Before: the watcher fell back to polling for good (idle CPU 0% -> 144% at 5k files).
  TreeCopy tree;
  TestServer s(on(tree));
  REQUIRE(get_json(s, "/healthz")["watching"] == "inotify");
  const fs::path root = tree.root();
  const fs::path fresh = root.string() + ".new";
  fs::copy(kServeFixture, fresh, fs::copy_options::recursive);
  { std::ofstream(fresh / "gotchas/beta-major.yaml") << gotcha("beta-major", "From the new tree"); }
  fs::rename(root, root.string() + ".old");
  fs::rename(fresh, root);
  wait_for(s, "/api/v1/gotchas/beta-major",
           [](int, const json& b) { return b["title"] == "From the new tree"; });
  CHECK(s.server().kb().uses_inotify());
  auto health = get_json(s, "/healthz");
  CHECK(health["watching"] == "inotify");
  CHECK(health["reload"]["state"] == "idle");
  // The new tree's directories are watched; the old tree's are not.
  tree.write("gotchas/beta-major.yaml", gotcha("beta-major", "Edited in the new tree"));
  wait_for(s, "/api/v1/gotchas/beta-major",
           [](int, const json& b) { return b["title"] == "Edited in the new tree"; });
  { std::ofstream(root.string() + ".old/engines/vllm.yaml") << "name: Old tree\n"; }
  tree.write("gotchas/mu-minor.yaml", gotcha("mu-minor", "Later edit"));
  wait_for(s, "/api/v1/gotchas/mu-minor",
           [](int, const json& b) { return b["title"] == "Later edit"; });
  CHECK(get_json(s, "/api/v1/engines/vllm")["name"] == "vLLM");
  CHECK(s.errors().empty());
}

TEST_CASE("a root that is gone keeps the last snapshot, failing, until it is back",
          "[server][reload][tree]") {
  TreeCopy tree;
  TestServer s(on(tree));
  const fs::path root = tree.root();
  fs::rename(root, root.string() + ".old");
  wait_for(s, "/healthz", [](int status, const json& b) {
    return status == 200 && b["reload"]["state"] == "failing";
  });
  auto health = get_json(s, "/healthz");
  CHECK(health["status"] == "ok");
  CHECK(health["records"] == 22);
  CHECK(health["reload"]["last_error"].get<std::string>().find("does not exist") !=
        std::string::npos);
  CHECK(health["reload"]["failures"].get<int>() >= 1);
  CHECK(get_json(s, "/api/v1/gotchas/beta-major")["title"] == "Nixl handshake stalls");
  auto m = get(s, "/metrics")->body;
  CHECK(m.find("kb_reload_state{state=\"failing\"} 1") != std::string::npos);
  CHECK(m.find("kb_reload_state{state=\"idle\"} 0") != std::string::npos);

  fs::rename(root.string() + ".old", root);
  wait_for(s, "/healthz", [](int, const json& b) { return b["reload"]["state"] == "idle"; });
  health = get_json(s, "/healthz");
  CHECK(health["reload"]["last_error"].is_null());
  CHECK(health["watching"] == "inotify");
}

TEST_CASE("a subfolder moved away drops its records, moved back, they return",
          "[server][reload][tree]") {
  TreeCopy tree;
  TestServer s(on(tree));
  const fs::path away = tree.root().string() + "-gotchas";
  fs::rename(tree.root() / "gotchas", away);
  wait_for(s, "/api/v1/gotchas?limit=0", [](int, const json& b) { return b["total"] == 0; });
  CHECK(get_json(s, "/api/v1/engines/vllm")["name"] == "vLLM");
  fs::rename(away, tree.root() / "gotchas");
  wait_for(s, "/api/v1/gotchas?limit=0", [](int, const json& b) { return b["total"] == 11; });
  // Edits under the folder moved back in are seen: its directories are watched again.
  tree.write("gotchas/beta-major.yaml", gotcha("beta-major", "After the move"));
  wait_for(s, "/api/v1/gotchas/beta-major",
           [](int, const json& b) { return b["title"] == "After the move"; });
  CHECK(s.errors().empty());
}

TEST_CASE("a record swapped for a link to a FIFO is reported, reloads go on",
          "[server][reload][tree]") {
  TreeCopy tree;
  TestServer s(on(tree));
  const fs::path fifo = tree.root().string() + ".fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const fs::path link = tree.root() / "gotchas/.link";
  fs::create_symlink(fifo, link);
  fs::rename(link, tree.root() / "gotchas/beta-major.yaml");
  wait_for(s, "/api/v1/diagnostics", [](int, const json& b) {
    for (const auto& d : b["diagnostics"]) {
      if (d["code"] == "file.not-regular" && d["file"] == "gotchas/beta-major.yaml") return true;
    }
    return false;
  });
  auto g = get_json(s, "/api/v1/gotchas/beta-major");
  CHECK(g["stale"] == true);  // the last good version, as for any file that broke
  tree.write("gotchas/mu-minor.yaml", gotcha("mu-minor", "Still reloading"));
  wait_for(s, "/api/v1/gotchas/mu-minor",
           [](int, const json& b) { return b["title"] == "Still reloading"; });
  CHECK(get_json(s, "/healthz")["reload"]["state"] == "idle");
  fs::remove(fifo);
}

TEST_CASE("healthz: a reload running past its limit is stuck, 503, metrics say so",
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
