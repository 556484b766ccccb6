// Live reload: edits show up, a broken edit keeps the last good version,
// deletions remove records, and every response under churn comes from one whole snapshot.

#include <atomic>
#include <random>
#include <thread>

#include "kb/corpus.h"
#include "kb/store.h"
#include "server_harness.h"

using namespace kbtest;
using Clock = std::chrono::steady_clock;

namespace {

std::string gotcha(const std::string& slug, const std::string& title,
                   const std::string& severity = "major") {
  return "id: gotchas/" + slug + "\ntitle: " + title + "\nseverity: " + severity +
         "\nstatus: open\naffects: [vllm]\nsymptom: |\n  " + title + "\n";
}

// Polls `path` until `pred` holds for its JSON body. The limit only stops a hang: how soon
// a write is seen is measured by bench/bench_reload.py, not asserted here.
template <class Pred>
void wait_for(const TestServer& s, const std::string& path, Pred pred,
              std::chrono::milliseconds limit = std::chrono::milliseconds(30000)) {
  const auto start = Clock::now();
  auto c = s.client();
  while (Clock::now() - start < limit) {
    auto res = c.Get(path.c_str());
    if (res && pred(res->status, json::parse(res->body, nullptr, false))) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL("timed out waiting on " << path);
}

kb::http::ServeConfig on(const TreeCopy& tree) {
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  return cfg;
}

// The corpus hash of exactly the records listed in an export: if it equals the ETag, the
// body holds one whole snapshot and nothing from any other.
std::string corpus_hash_of(const json& exported) {
  std::vector<kb::FileResult> files;
  for (const auto& r : exported["records"]) {
    auto rec = std::make_shared<kb::Record>();
    rec->id = r["id"];
    rec->kind = *kb::parse_kind(r["type"].get<std::string>());
    rec->file = r["file"];
    rec->content_hash = r["content_hash"];
    kb::FileResult f;
    f.file = rec->file;
    f.stale = r["stale"].get<bool>();
    f.record = rec;
    files.push_back(std::move(f));
  }
  return kb::Corpus::from_files("/", std::move(files))->content_hash();
}

}  // namespace

TEST_CASE("pages built once per snapshot follow an edit", "[server][reload][pages]") {
  TreeCopy tree;
  TestServer s(on(tree));
  const auto page = [&](const std::string& path) {
    auto res = get(s, path);
    REQUIRE(res);
    REQUIRE(res->status == 200);
    return res->body;
  };
  const std::string before = page("/gotchas/beta-major");
  CHECK(before.find("Nixl handshake stalls") != std::string::npos);
  CHECK(page("/gotchas/beta-major") == before);  // the second answer is the kept one
  const std::string home = page("/");
  CHECK(home.find("Edited title") == std::string::npos);
  // Created after every other fixture gotcha: the home page lists it first among the newest.
  tree.write("gotchas/beta-major.yaml",
             gotcha("beta-major", "Edited title") + "created: 2026-11-01\n");
  wait_for(s, "/api/v1/gotchas/beta-major",
           [](int, const json& b) { return b["title"] == "Edited title"; });
  const std::string after = page("/gotchas/beta-major");
  CHECK(after.find("Edited title") != std::string::npos);
  CHECK(after.find("Nixl handshake stalls") == std::string::npos);
  CHECK(page("/").find("Edited title") != std::string::npos);
  // A page with parameters is rendered for its request, never kept.
  CHECK(page("/search?q=Edited").find("Edited title") != std::string::npos);
}

TEST_CASE("an edit and a new file become visible through the API", "[server][reload]") {
  TreeCopy tree;
  TestServer s(on(tree));
  REQUIRE(get_json(s, "/api/v1/gotchas/beta-major")["title"] == "Nixl handshake stalls");
  tree.write("gotchas/beta-major.yaml", gotcha("beta-major", "Edited title"));
  wait_for(s, "/api/v1/gotchas/beta-major",
                       [](int, const json& b) { return b["title"] == "Edited title"; });

  tree.write("gotchas/new-one.yaml", gotcha("new-one", "Brand new"));
  wait_for(s, "/api/v1/gotchas/new-one", [](int status, const json&) { return status == 200; });
  CHECK(get_json(s, "/api/v1/gotchas?limit=0")["total"] == 12);
  CHECK(s.server().kb().reloads() >= 2);
}

TEST_CASE("a broken edit keeps the last good version, stale, with its diagnostic",
          "[server][reload]") {
  TreeCopy tree;
  TestServer s(on(tree));
  const std::string etag_before = get(s, "/api/v1/gotchas")->get_header_value("ETag");

  tree.write("gotchas/beta-major.yaml",
             "id: gotchas/beta-major\ntitle: [unclosed\nseverity: major\n");
  wait_for(s, "/api/v1/diagnostics", [](int, const json& b) { return b["errors"].get<int>() > 0; });
  auto diags = get_json(s, "/api/v1/diagnostics");
  bool found = false;
  for (const auto& d : diags["diagnostics"]) {
    if (d["file"] == "gotchas/beta-major.yaml" && d["severity"] == "error") found = true;
  }
  CHECK(found);
  auto g = get_json(s, "/api/v1/gotchas/beta-major");
  CHECK(g["title"] == "Nixl handshake stalls");
  CHECK(g["stale"] == true);
  auto list = get_json(s, "/api/v1/gotchas?limit=100");
  CHECK(list["total"] == 11);
  CHECK(get(s, "/api/v1/gotchas")->get_header_value("ETag") != etag_before);

  tree.write("gotchas/beta-major.yaml", gotcha("beta-major", "Repaired"));
  wait_for(s, "/api/v1/gotchas/beta-major",
           [](int, const json& b) { return b["title"] == "Repaired"; });
  CHECK(get_json(s, "/api/v1/gotchas/beta-major")["stale"] == false);
  CHECK(get_json(s, "/api/v1/diagnostics")["errors"] == 0);

  const auto cursor = get_json(s, "/api/v1/changes")["cursor"].get<std::int64_t>();
  tree.remove("gotchas/beta-major.yaml");
  wait_for(s, "/api/v1/gotchas/beta-major", [](int status, const json&) { return status == 404; });
  CHECK(get_json(s, "/api/v1/gotchas?limit=0")["total"] == 10);
  auto changes = get_json(s, "/api/v1/changes?since=" + std::to_string(cursor));
  json deleted = json::array();
  for (const auto& c : changes["changes"]) {
    if (c["deleted"] == true) deleted.push_back(c["id"]);
  }
  CHECK(deleted == json::array({"gotchas/beta-major"}));
  // alpha-blocker lists beta-major as related no more.
  CHECK(get_json(s, "/api/v1/gotchas/alpha-blocker")["related_by"].size() == 1);
  CHECK(s.errors().empty());
}

TEST_CASE("every response under churn comes from one whole snapshot", "[server][reload]") {
  TreeCopy tree;
  TestServer s(on(tree));
  const std::vector<std::string> slugs = {"alpha-blocker", "beta-major", "gamma-major", "eta-major",
                                          "mu-minor"};
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::mt19937 rng(42);
    for (int round = 0; round < 60; ++round) {
      for (const auto& slug : slugs) {
        switch (rng() % 5) {
          case 0:
            tree.write("gotchas/" + slug + ".yaml", "id: gotchas/" + slug + "\ntitle: [broken\n");
            break;
          default:
            tree.write("gotchas/" + slug + ".yaml", gotcha(slug, "Round " + std::to_string(round),
                                                           rng() % 2 ? "major" : "minor"));
        }
      }
      if (round % 3 == 0)
        tree.remove("gotchas/churn.yaml");
      else
        tree.write("gotchas/churn.yaml", gotcha("churn", "Churn " + std::to_string(round)));
      std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 80));
    }
    done = true;
  });
  std::atomic<int> checked{0};
  std::vector<std::thread> readers;
  std::mutex mu;
  std::vector<std::string> failures;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      auto c = s.client();
      while (!done) {
        auto res =
            c.Get(t == 0 ? "/api/v1/gotchas?limit=500&include_withdrawn=true" : "/api/v1/export");
        std::string problem;
        if (!res || res->status != 200) {
          problem = "no 200: " + (res ? std::to_string(res->status) + " " + res->body
                                      : std::string("no answer"));
        } else {
          auto body = json::parse(res->body);
          const std::string etag = res->get_header_value("ETag");
          if (etag != "\"" + body["snapshot"].get<std::string>() + "\"")
            problem = "ETag differs from body";
          if (t == 0) {
            int sum = 0;
            for (const auto& f : body["facets"]["severity"]) sum += f["count"].get<int>();
            if (sum != body["total"].get<int>() ||
                body["items"].size() != body["total"].get<std::size_t>()) {
              problem = "facets or items disagree with total";
            }
          } else if ("\"" + corpus_hash_of(body) + "\"" != etag) {
            problem = "export records are not the snapshot " + etag;
          }
        }
        ++checked;
        if (!problem.empty()) {
          std::lock_guard<std::mutex> lock(mu);
          failures.push_back(problem);
        }
      }
    });
  }
  writer.join();
  for (auto& r : readers) r.join();
  INFO(failures.size() << " failures, first: " << (failures.empty() ? "" : failures.front()));
  CHECK(failures.empty());
  CHECK(checked > 20);
  CHECK(s.server().kb().reloads() > 5);

  // After the churn settles, the server serves the files as they are.
  for (const auto& slug : slugs)
    tree.write("gotchas/" + slug + ".yaml", gotcha(slug, "Final " + slug));
  wait_for(s, "/api/v1/gotchas/mu-minor",
           [](int, const json& b) { return b["title"] == "Final mu-minor"; });
  for (const auto& slug : slugs) {
    auto g = get_json(s, "/api/v1/gotchas/" + slug);
    CHECK(g["title"] == "Final " + slug);
    CHECK(g["stale"] == false);
  }
  CHECK(s.errors().empty());
}

TEST_CASE("the polling fallback picks up edits too", "[server][reload]") {
  TreeCopy tree;
  auto cfg = on(tree);
  cfg.force_polling = true;
  TestServer s(cfg);
  CHECK(get_json(s, "/healthz")["watching"] == "polling");
  tree.write("gotchas/kappa-info.yaml", gotcha("kappa-info", "Polled", "info"));
  wait_for(s, "/api/v1/gotchas/kappa-info",
                       [](int, const json& b) { return b["title"] == "Polled"; });
}

TEST_CASE("serve --db: a prebuilt index, read-only", "[server][db]") {
  TreeCopy tree;
  TempDir out;
  const auto db = out.path() / "kb.db";
  {
    auto linted = kb::lint_tree(tree.root(), test_lint());
    kb::write_index_file(*linted.corpus, linted.evidence, db);
  }
  kb::http::ServeConfig cfg;
  cfg.records.clear();
  cfg.db = db;
  TestServer s(cfg);
  auto health = get_json(s, "/healthz");
  CHECK(health["read_only"] == true);
  CHECK(health["watching"] == "none");
  CHECK(health["records"] == 22);
  CHECK(get_json(s, "/api/v1/gotchas?limit=0")["total"] == 11);
  CHECK(get_json(s, "/api/v1/search?q=thrashes")["hits"][0]["id"] == "gotchas/lambda-major");
  tree.write("gotchas/beta-major.yaml", gotcha("beta-major", "Not served"));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  CHECK(get_json(s, "/api/v1/gotchas/beta-major")["title"] == "Nixl handshake stalls");

  kb::http::ServeConfig missing;
  missing.records.clear();
  missing.db = out.path() / "nope.db";
  CHECK_THROWS_AS(TestServer(missing), kb::Error);
}

TEST_CASE("serve --db: a record stale when the index was written is still stale", "[server][db]") {
  TreeCopy tree;
  TempDir out;
  const auto db = out.path() / "kb.db";
  {
    auto linted = kb::lint_tree(tree.root(), test_lint());
    tree.write("gotchas/beta-major.yaml",
               "id: gotchas/beta-major\ntitle: [unclosed\nseverity: major\n");
    auto reloaded = kb::Corpus::reload(*linted.corpus, test_lint().load);
    REQUIRE(reloaded->is_stale("gotchas/beta-major"));
    kb::write_index_file(*reloaded, kb::EvidenceIndex::build(*reloaded), db);
  }
  kb::http::ServeConfig cfg;
  cfg.records.clear();
  cfg.db = db;
  TestServer s(cfg);
  auto g = get_json(s, "/api/v1/gotchas/beta-major");
  CHECK(g["title"] == "Nixl handshake stalls");
  CHECK(g["stale"] == true);
  CHECK(get_json(s, "/api/v1/gotchas/lambda-major")["stale"] == false);
  CHECK(s.server().kb().current()->corpus().is_stale("gotchas/beta-major"));
}
