// Search for what operators type: a sentence, a typo'd engine name.

#include "server_harness.h"

using namespace kbtest;

TEST_CASE("search API: a typo'd engine name is corrected by the resolver", "[server][search]") {
  TestServer s;
  // Nothing holds "lmcahce": the hits are lmcache's, and the answer says so.
  json j = get_json(s, "/api/v1/search?q=lmcahce&limit=5");
  CHECK(j["suggestion"] == "lmcache");
  CHECK(j["corrected"] == true);
  CHECK_FALSE(j["hits"].empty());
  // A query that finds something keeps its hits; the typo is still suggested.
  json k = get_json(s, "/api/v1/search?q=lmcahce%20cache&limit=5");
  CHECK(k["suggestion"] == "lmcache cache");
  CHECK(k["corrected"] == false);
  // Words that are no typo of a name get no suggestion.
  json n = get_json(s, "/api/v1/search?q=zzzzqqqq&limit=5");
  CHECK_FALSE(n.contains("suggestion"));
  CHECK(n["hits"].empty());
  CHECK(s.errors().empty());
}

TEST_CASE("search page: did you mean, and one result is one result", "[server][search]") {
  TestServer s;
  auto page = get(s, "/search?q=lmcahce");
  REQUIRE(page->status == 200);
  CHECK(page->body.find("showing results for <a href=\"search?q=lmcache\">lmcache</a>") !=
        std::string::npos);
  CHECK(page->body.find(" 1 results") == std::string::npos);
}

TEST_CASE("search API: a suggestion follows the knowledge base it was made from",
          "[server][search]") {
  TreeCopy tree;
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  TestServer s(cfg);
  // No name is near "zorbacahce": no suggestion, and asking again (kept) says the same.
  for (int i = 0; i < 2; ++i) {
    json j = get_json(s, "/api/v1/search?q=zorbacahce&limit=5");
    CHECK_FALSE(j.contains("suggestion"));
  }
  // An engine of that name arrives: the next knowledge base suggests it, not what the
  // one before kept for the word.
  tree.write("engines/zorbacache.yaml",
             "id: engines/zorbacache\nname: Zorbacache\nrepo: example/zorbacache\n"
             "description: |\n  An engine for the suggestion test.\n");
  auto until = [&](auto done) {  // a reload, on a busy machine: up to 30 s
    const auto guard = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done(get_json(s, "/api/v1/search?q=zorbacahce&limit=5"))) {
      if (std::chrono::steady_clock::now() > guard) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  };
  CHECK(until([](const json& j) { return j.value("suggestion", "") == "zorbacache"; }));
  // And once it is gone, no more.
  tree.remove("engines/zorbacache.yaml");
  CHECK(until([](const json& j) { return !j.contains("suggestion"); }));
  CHECK(s.errors().empty());
}

TEST_CASE("search API: the answer is written as its JSON tree would be, byte for byte",
          "[server][search]") {
  TestServer s;
  // Hits or none, a suggestion taken or not, text that needs escaping, many hits.
  for (const char* path :
       {"/api/v1/search?q=cache", "/api/v1/search?q=lmcahce&limit=5",
        "/api/v1/search?q=lmcahce%20cache&limit=5", "/api/v1/search?q=zzzzqqqq",
        "/api/v1/search?q=%22kv%22%20%5C%20caf%C3%A9%20%E2%80%94%20%01tab%09",
        "/api/v1/search?q=same%20prompt%20different%20answer%20second%20time&limit=100"}) {
    auto res = get(s, path);
    INFO("GET " << path << " -> " << res->status << " " << res->body);
    REQUIRE(res->status == 200);
    CHECK(res->get_header_value("Content-Type") == "application/json");
    const json tree = json::parse(res->body);
    CHECK(tree["schema_version"] == "1.0");
    CHECK(res->body == tree.dump(-1, ' ', false, json::error_handler_t::replace));
    // Each hit's type is its record's kind (the record found once, with the hit).
    for (const json& h : tree["hits"]) {
      const std::string id = h["id"];
      CHECK(h["type"].is_string());
      if (h["type"].is_string()) CHECK(id.substr(0, id.find('/')) == h["type"].get<std::string>() + "s");
    }
  }
  // A corrected query's hits, and the other kinds of record, have their types too.
  const json engines = json::parse(get(s, "/api/v1/search?q=lmcahce&limit=20")->body);
  bool other = false;
  for (const json& h : engines["hits"]) other = other || h["type"] != "gotcha";
  CHECK(other);
  CHECK(s.errors().empty());
}
