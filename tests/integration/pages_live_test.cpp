// The pages as `kb serve` sends them: status, headers (CSP), redirects, the HTML 404
// with candidates, and hostile records and URLs inert over HTTP.

#include <catch2/catch.hpp>

#include <httplib.h>

#include "pages_fixture.h"
#include "server.h"

namespace fs = std::filesystem;
using kb::test::attrs_at;
using kb::test::text_at;

namespace {

class LiveServer {
 public:
  explicit LiveServer(const fs::path& records) {
    kb::http::ServeConfig config;
    config.records = records;
    config.port = 0;
    config.threads = 2;
    config.watch = false;
    config.lint.today = "2026-10-10";
    config.error_log = [](const std::string&) {};
    server_ = std::make_unique<kb::http::Server>(config);
    port_ = server_->start();
  }
  ~LiveServer() { server_->stop(); }
  httplib::Result get(const std::string& path) {
    httplib::Client c("127.0.0.1", port_);
    return c.Get(path.c_str());
  }

 private:
  std::unique_ptr<kb::http::Server> server_;
  int port_ = 0;
};

LiveServer& seeds() {
  static LiveServer s(fs::path(KB_SOURCE_DIR) / "records");
  return s;
}

std::unique_ptr<pugi::xml_document> page(const httplib::Result& res) {
  REQUIRE(res);
  std::string error;
  auto doc = kb::test::parse_page(res->body, &error);
  INFO(error);
  REQUIRE(doc->first_child());
  return doc;
}

const char* const kSeed002 = "/gotchas/pd-batch-invariant-mode-absent-from-kv-namespace";

}  // namespace

TEST_CASE("live pages carry a strict Content-Security-Policy", "[pages]") {
  for (const std::string path :
       {"/", kSeed002, "/search?q=mooncake", "/diagnostics", "/engines/mooncache"}) {
    auto res = seeds().get(path);
    REQUIRE(res);
    INFO(path);
    CHECK(res->get_header_value("Content-Security-Policy") ==
          "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
          "base-uri 'none'; form-action 'self'; frame-ancestors 'none'");
    CHECK(res->get_header_value("Content-Type") == "text/html; charset=utf-8");
    CHECK(res->get_header_value("X-Content-Type-Options") == "nosniff");
  }
}

TEST_CASE("live pages of the shipped records", "[pages]") {
  auto home = seeds().get("/");
  CHECK(home->status == 200);
  CHECK(attrs_at(*page(home), "//link[@rel='stylesheet']", "href") ==
        std::vector<std::string>{"static/kb.css"});

  auto search = seeds().get("/search?q=mooncake");
  CHECK(search->status == 200);
  auto s = page(search);
  const auto hits = attrs_at(*s, "//ol[@id='results']/li/a", "href");
  CHECK(std::find(hits.begin(), hits.end(), std::string(kSeed002).substr(1)) != hits.end());
  CHECK(text_at(*s, "//ol[@id='results']//span[@class='snippet']/mark") == "Mooncake");

  auto gotcha = seeds().get(kSeed002);
  CHECK(gotcha->status == 200);
  auto g = page(gotcha);
  CHECK(text_at(*g, "//p[@class='badges']/span[@class='badge sev-major']") == "major");
  CHECK(text_at(*g, "//section[@id='repairs']//tbody/tr/td[3]") == "mooncache");
  CHECK(attrs_at(*g, "//dd//a[@class='engine' and .='Mooncake']", "href") ==
        std::vector<std::string>{"../engines/mooncake"});

  CHECK(seeds().get("/engines/mooncake")->status == 200);
  auto css = seeds().get("/static/kb.css");
  CHECK(css->status == 200);
  CHECK(css->get_header_value("Content-Type") == "text/css; charset=utf-8");
  auto feed = seeds().get("/feed.xml");
  CHECK(feed->get_header_value("Content-Type") == "application/atom+xml; charset=utf-8");
  auto json = seeds().get(std::string(kSeed002) + ".json");
  CHECK(json->get_header_value("Content-Type") == "application/json; charset=utf-8");
}

TEST_CASE("a mistyped URL gets the HTML 404 with the resolver's candidates", "[pages]") {
  auto res = seeds().get("/engines/mooncache");
  REQUIRE(res);
  CHECK(res->status == 404);
  auto doc = page(res);
  CHECK(text_at(*doc, "//p[@class='did-you-mean']") == "Did you mean Mooncake?");
  CHECK(attrs_at(*doc, "//p[@class='did-you-mean']/a", "href") ==
        std::vector<std::string>{"../engines/mooncake"});
  auto alias = seeds().get("/engines/mooncake-transfer-engine");
  CHECK(alias->status == 301);
  CHECK(alias->get_header_value("Location") == "../engines/mooncake");
  auto api = seeds().get("/api/v1/nothing-here");
  CHECK(api->status == 404);
  CHECK(api->get_header_value("Content-Type") == "application/json");
}

TEST_CASE("hostile records and URLs are inert over HTTP", "[pages]") {
  LiveServer s(fs::path(KB_TEST_DATA) / "hostile");
  for (const std::string path :
       {"/", "/gotchas/hostile", "/gotchas/evil-twin", "/engines/evil", "/oracles/evil-oracle",
        "/diagnostics", "/feed.xml", "/search?q=script",
        "/search?q=%3Cscript%3Ealert(1)%3C/script%3E&engine=%22%3E%3Cb%3E",
        "/engines/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/%22%3E%3Cscript%3Ealert(1)%3C/script%3E",
        "/gotchas/x%22%20onmouseover=%22alert(1)", "/a/b/%3Csvg%20onload=alert(1)%3E"}) {
    auto res = s.get(path);
    REQUIRE(res);
    INFO(path << " -> " << res->status);
    CHECK(res->status < 500);
    const auto problems = kb::test::active_content(path, res->body);
    for (const auto& p : problems) FAIL_CHECK(p);
    CHECK(problems.empty());
  }
}
