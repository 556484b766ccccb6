// Every route of the API against the fixture tree tests/data/serve/records.

#include <set>
#include <thread>

#include "server_harness.h"

using namespace kbtest;

namespace {

std::map<std::string, int> facet(const json& body, const std::string& name) {
  std::map<std::string, int> out;
  for (const auto& v : body["facets"][name])
    out[v["value"].get<std::string>()] = v["count"].get<int>();
  return out;
}

std::vector<std::string> item_ids(const json& body) {
  std::vector<std::string> out;
  for (const auto& i : body["items"]) out.push_back(i["id"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("GET /api/v1/gotchas lists, filters and counts facets", "[server]") {
  TestServer s;
  auto body = get_json(s, "/api/v1/gotchas?limit=100");
  CHECK(body["total"] == 11);
  CHECK(body["next_page_token"].is_null());
  CHECK(body["items"][0]["id"] == "gotchas/alpha-blocker");
  CHECK(body["items"][0]["severity"] == "blocker");
  CHECK(body["items"][0]["evidence"]["state"] == "reproduced");
  CHECK(body["items"][0]["engines"] == json::array({"engines/vllm", "engines/lmcache"}));
  CHECK(body["items"][0]["url"] == "/api/v1/gotchas/alpha-blocker");
  CHECK(facet(body, "severity") ==
        std::map<std::string, int>{{"blocker", 2}, {"major", 4}, {"minor", 3}, {"info", 2}});
  CHECK(facet(body, "engine") ==
        std::map<std::string, int>{{"vllm", 6}, {"lmcache", 4}, {"mooncake", 3}, {"nixl", 2}});

  body = get_json(s, "/api/v1/gotchas?engine=vllm&severity=major");
  CHECK(item_ids(body) == std::vector<std::string>{"gotchas/beta-major", "gotchas/eta-major",
                                                   "gotchas/lambda-major"});
  CHECK(facet(body, "status") == std::map<std::string, int>{{"open", 3}});

  body = get_json(s, "/api/v1/gotchas?severity=minor&severity=info&status=fixed");
  CHECK(item_ids(body) == std::vector<std::string>{"gotchas/delta-minor", "gotchas/kappa-info"});
  body = get_json(s, "/api/v1/gotchas?family=scheduling&reproduced=no-evidence&sort=id");
  CHECK(item_ids(body) ==
        std::vector<std::string>{"gotchas/eta-major", "gotchas/mu-minor", "gotchas/theta-minor"});
  body = get_json(s, "/api/v1/gotchas?include_withdrawn=true&limit=0");
  CHECK(body["total"] == 12);
  CHECK(body["items"].empty());
  body = get_json(s, "/api/v1/gotchas?q=thrashes");
  CHECK(item_ids(body) == std::vector<std::string>{"gotchas/lambda-major"});
  body = get_json(s, "/api/v1/gotchas?q=RDMA&engine=Mooncake");
  CHECK(item_ids(body) == std::vector<std::string>{"gotchas/iota-blocker"});

  auto err = get_json(s, "/api/v1/gotchas?engine=vllmx", 400);
  CHECK(err["error"]["code"] == "invalid-argument");
  CHECK(err["error"]["message"].get<std::string>().find("did you mean 'vllm'") !=
        std::string::npos);
  CHECK(get_json(s, "/api/v1/gotchas?severity=critical", 400)["error"]["code"] ==
        "invalid-argument");
  CHECK(get_json(s, "/api/v1/gotchas?limit=ten", 400)["error"]["code"] == "invalid-argument");
  CHECK(get_json(s, "/api/v1/gotchas?sort=random", 400)["error"]["code"] == "invalid-argument");
  CHECK(get_json(s, "/api/v1/gotchas?include_withdrawn=maybe", 400)["error"]["code"] ==
        "invalid-argument");
  CHECK(get_json(s, "/api/v1/gotchas?limit=100000")["limit"] == 500);
}

TEST_CASE("keyset pagination over HTTP visits every gotcha exactly once", "[server]") {
  TestServer s;
  for (std::string sort : {"severity", "id", "updated"}) {
    auto all = item_ids(get_json(s, "/api/v1/gotchas?limit=100&sort=" + sort));
    std::vector<std::string> seen;
    std::string path = "/api/v1/gotchas?limit=2&sort=" + sort;
    for (int pages = 0; pages < 20; ++pages) {
      auto body = get_json(s, path);
      for (auto& id : item_ids(body)) seen.push_back(id);
      if (body["next_page_token"].is_null()) break;
      path = "/api/v1/gotchas?limit=2&sort=" + sort +
             "&page_token=" + body["next_page_token"].get<std::string>();
    }
    INFO("sort " << sort);
    CHECK(seen == all);
    CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == 11);
  }
  CHECK(get_json(s, "/api/v1/gotchas?page_token=%22%3B--", 400)["error"]["code"] ==
        "invalid-argument");
}

TEST_CASE("GET /api/v1/{type}/{slug} resolves a record with what references it", "[server]") {
  TestServer s;
  auto g = get_json(s, "/api/v1/gotchas/alpha-blocker");
  CHECK(g["id"] == "gotchas/alpha-blocker");
  CHECK(g["type"] == "gotcha");
  CHECK(g["stale"] == false);
  CHECK(g["evidence"]["state"] == "reproduced");
  CHECK(g["affects"][1]["id"] == "engines/lmcache");
  CHECK(g["repairs"].is_array());
  std::vector<std::string> by;
  for (const auto& r : g["referenced_by"]) by.push_back(r["id"]);
  CHECK(by ==
        std::vector<std::string>{"gotchas/beta-major", "gotchas/eta-major", "results/alpha-run"});
  CHECK(g["referenced_by"][0]["fields"] == json::array({"related[0]"}));
  CHECK(g["related_by"].size() == 2);

  auto e = get_json(s, "/api/v1/engines/mooncake");
  CHECK(e["name"] == "Mooncake");
  std::vector<std::string> gotchas;
  for (const auto& x : e["gotchas"]) gotchas.push_back(x["id"]);
  CHECK(gotchas == std::vector<std::string>{"gotchas/delta-minor", "gotchas/eta-major",
                                            "gotchas/iota-blocker"});

  auto o = get_json(s, "/api/v1/oracles/monolithic-equivalence");
  CHECK(o["results"].size() == 2);
  auto r = get_json(s, "/api/v1/results/alpha-run");
  CHECK(r["failed"] == 3);
  CHECK(r["oracle"]["id"] == "oracles/monolithic-equivalence");
}

TEST_CASE("a former id redirects, an unknown one is a 404 with candidates", "[server]") {
  TestServer s;
  auto c = s.client();
  auto res = c.Get("/api/v1/gotchas/alpha-old");
  REQUIRE(res);
  CHECK(res->status == 301);
  CHECK(res->get_header_value("Location") == "/api/v1/gotchas/alpha-blocker");
  res = c.Get("/api/v1/engines/mooncake-transfer-engine");
  REQUIRE(res);
  CHECK(res->status == 301);
  CHECK(res->get_header_value("Location") == "/api/v1/engines/mooncake");

  auto err = get_json(s, "/api/v1/engines/mooncache", 404);
  CHECK(err["error"]["code"] == "not-found");
  CHECK(err["error"]["candidates"][0]["id"] == "engines/mooncake");
  CHECK(err["error"]["message"] == "no engine 'mooncache'; did you mean 'engines/mooncake'?");
  CHECK(get_json(s, "/api/v1/gotchas/Alpha-Blocker", 400)["error"]["code"] == "invalid-slug");
}

TEST_CASE("lists of engines, oracles and results page by id", "[server]") {
  TestServer s;
  auto body = get_json(s, "/api/v1/engines?limit=3");
  CHECK(body["total"] == 5);
  CHECK(item_ids(body) ==
        std::vector<std::string>{"engines/lmcache", "engines/mooncake", "engines/nixl"});
  CHECK(body["items"][1]["gotchas"] == 3);
  body = get_json(
      s, "/api/v1/engines?limit=3&page_token=" + body["next_page_token"].get<std::string>());
  CHECK(item_ids(body) == std::vector<std::string>{"engines/sglang", "engines/vllm"});
  CHECK(body["next_page_token"].is_null());
  CHECK(get_json(s, "/api/v1/results")["total"] == 2);
  CHECK(get_json(s, "/api/v1/oracles")["items"][0]["id"] == "oracles/monolithic-equivalence");
}

TEST_CASE("search quotes user text and marks matches", "[server]") {
  TestServer s;
  auto body = get_json(s, "/api/v1/search?q=scheduler");
  std::set<std::string> ids;
  for (const auto& h : body["hits"]) ids.insert(h["id"]);
  // Stemmed: "scheduler" also finds the family "scheduling".
  CHECK(ids ==
        std::set<std::string>{"gotchas/eta-major", "gotchas/mu-minor", "gotchas/theta-minor"});
  body = get_json(s, "/api/v1/search?q=starves");
  REQUIRE(body["hits"].size() == 1);
  CHECK(body["hits"][0]["id"] == "gotchas/eta-major");
  CHECK(body["hits"][0]["snippet_html"].get<std::string>().find("<mark>") != std::string::npos);
  CHECK(body["hits"][0]["snippet"].get<std::string>().find('\x02') == std::string::npos);
  for (std::string q :
       {"%22", "NEAR(", "%22NEAR(a%20b)%22", "a%20OR%20b", "*", "-", "title%3Ax", "%5E", "AND"}) {
    auto res = get(s, "/api/v1/search?q=" + q);
    INFO("q=" << q << " -> " << res->body);
    CHECK(res->status == 200);
    CHECK(json::parse(res->body)["hits"].is_array());
  }
  CHECK(get_json(s, "/api/v1/search", 400)["error"]["code"] == "invalid-argument");
}

TEST_CASE("resolve answers like a reconciliation service", "[server]") {
  TestServer s;
  auto body = get_json(s, "/api/v1/resolve?type=engine&q=mooncache");
  CHECK(body["id"].is_null());
  CHECK(body["result"][0]["id"] == "engines/mooncake");
  CHECK(body["result"][0]["match"] == true);
  CHECK(body["result"][0]["score"].get<double>() > 0.8);
  body = get_json(s, "/api/v1/resolve?type=engines&q=kvcache-ai/Mooncake");
  CHECK(body["id"] == "engines/mooncake");
  CHECK(body["how"] == "repo");
  CHECK(body["result"][0]["match"] == true);
  CHECK(get_json(s, "/api/v1/resolve?type=widget&q=x", 400)["error"]["code"] == "invalid-argument");
  CHECK(get_json(s, "/api/v1/resolve?type=engine", 400)["error"]["code"] == "invalid-argument");
}

TEST_CASE("diagnostics, changes, export, index, healthz and metrics", "[server]") {
  TestServer s;
  auto diags = get_json(s, "/api/v1/diagnostics");
  CHECK(diags["records"] == 22);
  CHECK(diags["errors"] == 0);
  CHECK(diags["diagnostics"].is_array());

  auto changes = get_json(s, "/api/v1/changes?since=0");
  CHECK(changes["changes"].size() == 22);
  CHECK(changes["changes"][0]["deleted"] == false);
  const auto cursor = changes["cursor"].get<std::int64_t>();
  // The cursor is the newest `modified` day: polling with it lists that day's records again.
  auto again = get_json(s, "/api/v1/changes?since=" + std::to_string(cursor))["changes"];
  REQUIRE_FALSE(again.empty());
  CHECK(again.size() < 20);
  for (const auto& c : again) CHECK(c["changed_at_ms"] == cursor);
  CHECK(get_json(s, "/api/v1/changes?since=2999-01-01")["changes"].empty());
  CHECK(get_json(s, "/api/v1/changes?since=2000-01-01T00:00:00Z")["changes"].size() == 22);
  CHECK(get_json(s, "/api/v1/changes?since=yesterday", 400)["error"]["code"] == "invalid-argument");

  auto exported = get_json(s, "/api/v1/export");
  CHECK(exported["records"].size() == 22);
  CHECK(exported["snapshot"] == get_json(s, "/healthz")["snapshot"]);
  CHECK(exported["records"][0]["content_hash"].is_string());

  auto index = get_json(s, "/api/v1");
  CHECK(index["routes"].size() == 25);

  auto health = get_json(s, "/healthz");
  CHECK(health["status"] == "ok");
  CHECK(health["records"] == 22);
  CHECK(health["read_only"] == false);

  get_json(s, "/api/v1/gotchas/nope", 404);
  // Requests are counted after their response is written.
  const std::string counted =
      "kb_http_requests_total{route=\"/api/v1/{type}/{slug}\",status=\"404\"} 1";
  REQUIRE(eventually([&] { return get(s, "/metrics")->body.find(counted) != std::string::npos; }));
  auto m = get(s, "/metrics");
  CHECK(m->status == 200);
  CHECK(m->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0) == 0);
  const std::string& text = m->body;
  CHECK(text.find("kb_http_requests_total{route=\"/api/v1/{type}/{slug}\",status=\"404\"} 1") !=
        std::string::npos);
  CHECK(text.find("kb_http_requests_total{route=\"/healthz\",status=\"200\"} 2") !=
        std::string::npos);
  CHECK(text.find(
            "kb_http_request_duration_seconds_bucket{route=\"/api/v1/export\",le=\"+Inf\"} 1") !=
        std::string::npos);
  CHECK(text.find("kb_records{type=\"gotcha\"} 12") != std::string::npos);
  // Every namespace has its line: settings and models were once counted past the end of
  // a four-slot array (a stack overwrite on every scrape).
  CHECK(text.find("kb_records{type=\"setting\"} 1\n") != std::string::npos);
  CHECK(text.find("kb_records{type=\"model\"} 1\n") != std::string::npos);
  CHECK(text.find("kb_diagnostics{severity=\"error\"} 0") != std::string::npos);
  CHECK(text.find("kb_reloads_total ") != std::string::npos);
  CHECK(text.find("kb_snapshot_age_seconds ") != std::string::npos);
}

TEST_CASE("ETag is the snapshot hash and If-None-Match gives 304", "[server]") {
  TestServer s;
  auto res = get(s, "/api/v1/gotchas");
  const std::string etag = res->get_header_value("ETag");
  CHECK(etag == "\"" + json::parse(res->body)["snapshot"].get<std::string>() + "\"");
  CHECK(res->get_header_value("Cache-Control") == "no-cache");
  for (std::string path : {"/api/v1/gotchas", "/api/v1/gotchas/beta-major", "/api/v1/search?q=nixl",
                           "/api/v1/diagnostics", "/api/v1/export"}) {
    auto again = get(s, path, {{"If-None-Match", etag}});
    INFO(path);
    CHECK(again->status == 304);
    CHECK(again->body.empty());
    CHECK(again->get_header_value("ETag") == etag);
    CHECK(get(s, path, {{"If-None-Match", "W/\"other\", " + etag}})->status == 304);
    CHECK(get(s, path, {{"If-None-Match", "\"other\""}})->status == 200);
  }
  CHECK(get(s, "/healthz", {{"If-None-Match", etag}})->status == 200);
  CHECK(get(s, "/api/v1/gotchas/nope")->get_header_value("ETag").empty());
  CHECK(get(s, "/api/v1/gotchas/nope")->get_header_value("Cache-Control") == "no-store");
}

TEST_CASE("POST /api/v1/check and /check/batch answer like kb check --format json", "[server]") {
  TestServer s;
  const std::string deployment =
      R"({"engines": [{"engine": "vLLM", "version": "0.26.0"}, {"engine": "lmcache"}]})";
  auto res = post(s, "/api/v1/check?fail_on=blocker", deployment);
  INFO(res->body);
  REQUIRE(res->status == 200);
  auto body = json::parse(res->body);
  std::set<std::string> found;
  for (const auto& f : body["findings"]) found.insert(f["id"]);
  CHECK(found.count("gotchas/alpha-blocker") == 1);
  CHECK(found.count("gotchas/zeta-withdrawn") == 0);
  CHECK(found.count("gotchas/delta-minor") == 0);
  CHECK(body["fails"] == true);
  CHECK(body["deployment"]["engines"][0]["id"] == "engines/vllm");
  CHECK(body["counts"]["blocker"] == 1);

  auto batch = post(s, "/api/v1/check/batch",
                    "{\"deployments\": [" + deployment +
                        R"(, {"engines": [{"engine": "sglang"}]}, {"engines": 5}]})");
  REQUIRE(batch->status == 200);
  auto b = json::parse(batch->body);
  CHECK(b["count"] == 3);
  CHECK(b["results"][0]["findings"].size() == body["findings"].size());
  CHECK(b["results"][1]["findings"].empty());
  CHECK(b["results"][2]["error"]["code"] == "invalid-deployment");
  CHECK(b["results"][2]["index"] == 2);
  // The envelope: the snapshot, the schema version, nothing else; and an empty batch.
  CHECK(b.size() == 4);
  CHECK(b["schema_version"] == body["schema_version"]);
  CHECK(b["snapshot"].is_string());
  CHECK(b["snapshot"] == body["snapshot"]);
  auto none = post(s, "/api/v1/check/batch", "[]");
  REQUIRE(none->status == 200);
  CHECK(json::parse(none->body) == json{{"count", 0},
                                        {"results", json::array()},
                                        {"schema_version", body["schema_version"]},
                                        {"snapshot", b["snapshot"]}});

  // The gate fails closed: what the knowledge base does not know is a 422, not 0 findings.
  auto unknown =
      post(s, "/api/v1/check", R"({"engines": ["vllm"], "config": {"kv_transfr": "pd"}})");
  CHECK(unknown->status == 422);
  auto u = json::parse(unknown->body);
  CHECK(u["error"]["code"] == "check-incomplete");
  CHECK(u["error"]["diagnostics"][0]["code"] == "check.unknown-setting");
  auto typo = post(s, "/api/v1/check", R"({"engines": ["vlm"]})");
  CHECK(typo->status == 422);
  CHECK(json::parse(typo->body)["error"]["diagnostics"][0]["hint"] == "did you mean 'vllm'?");
  auto allowed = post(s, "/api/v1/check?allow_unknown=true", R"({"engines": ["vllm", "vlm"]})");
  CHECK(allowed->status == 200);
  auto in_batch = post(s, "/api/v1/check/batch", R"([{"engines": ["vlm"]}])");
  REQUIRE(in_batch->status == 200);
  CHECK(json::parse(in_batch->body)["results"][0]["error"]["code"] == "check-incomplete");
}
