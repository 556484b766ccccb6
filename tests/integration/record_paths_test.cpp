// A record file in a namespace subfolder (records/gotchas/team/x.yaml) is refused by
// lint (file.path) and never served, so every URL the API hands out answers: ids are one
// namespace and one slug, as every route and `kb site` file name expects (issue 33).

#include "server_harness.h"

using namespace kbtest;

TEST_CASE("a record in a subfolder is a lint error, and every URL the lists give answers",
          "[server]") {
  TreeCopy tree;
  tree.write("gotchas/team/x.yaml", tree.read("gotchas/alpha-blocker.yaml"));
  tree.write("engines/team/y.yaml", "name: Y\nrepo: y/y\n");
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  cfg.watch = false;
  TestServer s(cfg);

  const json diags = get_json(s, "/api/v1/diagnostics");
  CHECK(diags["errors"] == 2);
  std::vector<std::string> refused;
  for (const auto& d : diags["diagnostics"]) {
    if (d["code"] != "file.path") continue;
    refused.push_back(d["file"].get<std::string>());
    CHECK(d["message"].get<std::string>().find("not in a subfolder") != std::string::npos);
  }
  std::sort(refused.begin(), refused.end());
  CHECK(refused == std::vector<std::string>{"engines/team/y.yaml", "gotchas/team/x.yaml"});

  std::size_t followed = 0;
  for (const std::string list :
       {"/api/v1/gotchas?limit=500&include_withdrawn=true", "/api/v1/engines?limit=1000",
        "/api/v1/settings?limit=1000", "/api/v1/oracles?limit=1000", "/api/v1/results?limit=1000",
        "/api/v1/models?limit=1000"}) {
    const json page = get_json(s, list);
    for (const auto& item : page["items"]) {
      const std::string id = item["id"];
      CHECK(id.find('/') == id.rfind('/'));
      const std::string url = item["url"];
      INFO(list << " gave " << url);
      CHECK(get(s, url)->status == 200);
      // The record's page (a result's redirects to its JSON) and its JSON and YAML forms.
      for (const std::string suffix : {"", ".json", ".yaml"}) {
        auto res = get(s, "/" + id + suffix);
        if (res->status == 301) {
          const std::string to = res->get_header_value("Location");
          const auto path = to.find('/', to.find("//") + 2);
          CHECK(to.substr(path) == "/" + id + ".json");
          res = get(s, to.substr(path));
        }
        CHECK(res->status == 200);
      }
      ++followed;
    }
  }
  CHECK(followed == 22);
  CHECK(get(s, "/api/v1/gotchas/team/x")->status == 404);
}
