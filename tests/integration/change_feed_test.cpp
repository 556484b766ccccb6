// The change feed dates records by their content: two servers on the same files agree on
// every record's `published` and `modified`, a restart changes none, and the Atom feed
// says the same.

#include <map>
#include <thread>

#include "server_harness.h"

using namespace kbtest;

namespace {

std::map<std::string, json> dates(const TestServer& s) {
  std::map<std::string, json> out;
  const json body = get_json(s, "/api/v1/changes");
  for (const auto& c : body["changes"]) {
    out[c["id"].get<std::string>()] = {c["published"], c["modified"], c["changed_at_ms"]};
  }
  return out;
}

}  // namespace

TEST_CASE("two servers and a restart agree on every record's dates", "[server][changes]") {
  TreeCopy tree;
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  std::map<std::string, json> first;
  {
    TestServer a(cfg);
    first = dates(a);
    REQUIRE(first.size() == 22);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    TestServer b(cfg);
    CHECK(dates(b) == first);
  }
  TestServer restarted(cfg);
  CHECK(dates(restarted) == first);
}

TEST_CASE("a record's dates come from what it says", "[server][changes]") {
  TreeCopy tree;
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  TestServer s(cfg);
  const auto all = dates(s);
  // An undated record carries the knowledge base's newest date.
  const std::string newest = get_json(s, "/api/v1/changes")["changes"].back()["modified"];
  CHECK(all.at("engines/nixl")[0] == newest);
  CHECK(all.at("engines/nixl")[1] == newest);
  auto record = get_json(s, "/api/v1/engines/nixl");
  CHECK(record["published"] == newest);
  CHECK(record["modified"] == newest);
  // A gotcha edited with a new `updated` moves; nothing else does.
  std::string text = tree.read("gotchas/mu-minor.yaml");
  text += "\nupdated: 2031-02-03\n";
  tree.write("gotchas/mu-minor.yaml", text);
  json after;
  for (int i = 0; i < 200; ++i) {
    after = get_json(s, "/api/v1/gotchas/mu-minor");
    if (after["modified"] == "2031-02-03") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(after["modified"] == "2031-02-03");
  auto changes = get_json(s, "/api/v1/changes?since=2031-02-03")["changes"];
  std::vector<std::string> ids;
  for (const auto& c : changes) ids.push_back(c["id"]);
  // The gotcha and every undated record (now dated by the new newest date).
  CHECK(std::find(ids.begin(), ids.end(), "gotchas/mu-minor") != ids.end());
  CHECK(std::find(ids.begin(), ids.end(), "engines/nixl") != ids.end());
  CHECK(std::find(ids.begin(), ids.end(), "gotchas/alpha-blocker") == ids.end());

  // The Atom feed's entry for it says the same.
  const std::string feed = get(s, "/feed.xml")->body;
  const auto entry = feed.find("gotchas%2Fmu-minor");
  REQUIRE(entry != std::string::npos);
  CHECK(feed.find("<updated>2031-02-03T00:00:00Z</updated>", entry) ==
        feed.find("<updated>", entry));
}
