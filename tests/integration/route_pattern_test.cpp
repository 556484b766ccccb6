// Route patterns matched without std::regex must say what std::regex says, for every
// pattern of the route table, on paths built from the table's own words and its edges.

#include <catch2/catch.hpp>

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "route_pattern.h"
#include "routes.h"

using kb::http::RoutePattern;

TEST_CASE("route patterns: the subset, and what lies outside it", "[server][routes]") {
  const auto p = RoutePattern::compile("/api/v1/(gotchas|engines)(?:\\.(json|csv))?");
  REQUIRE(p);
  CHECK(p->match("/api/v1/gotchas"));
  CHECK(p->match("/api/v1/engines.csv"));
  CHECK_FALSE(p->match("/api/v1/engines."));
  CHECK_FALSE(p->match("/api/v1/gotchas/x"));
  const auto other = RoutePattern::compile("/(?!api/|api$).*");
  REQUIRE(other);
  CHECK(other->match("/"));
  CHECK(other->match("/apix"));
  CHECK_FALSE(other->match("/api"));
  CHECK_FALSE(other->match("/api/v1"));
  CHECK_FALSE(other->match("/a\nb"));  // '.' is not a line break, as in ECMAScript
  const auto slug = RoutePattern::compile("/static/([^/]+)");
  REQUIRE(slug);
  CHECK(slug->match("/static/a\nb"));
  CHECK_FALSE(slug->match("/static/"));
  CHECK_FALSE(slug->match("/static/a/b"));
  for (const char* outside : {"^/a", "/a{2}", "/\\d+", "/[a-z]", "/(?=a)", "/a+?", "/a??", "/(a)+",
                              "/(", "/a)", "/[^/", "/\\"}) {
    INFO(outside);
    CHECK_FALSE(RoutePattern::compile(outside));
  }
}

TEST_CASE("route patterns match as std::regex does, on every route", "[server][routes]") {
  std::vector<std::string> paths = {"",
                                    "/",
                                    "//",
                                    "/healthz",
                                    "/healthz/",
                                    "/metrics",
                                    "/api",
                                    "/api/",
                                    "/apix",
                                    "/api/v1",
                                    "/api/v1/",
                                    "/api/v1/openapi.json",
                                    "/api/v1/openapiXjson",
                                    "/api/v1/gotchas",
                                    "/api/v1/gotchas.json",
                                    "/api/v1/gotchas.csv",
                                    "/api/v1/gotchas.ndjson",
                                    "/api/v1/gotchas.xml",
                                    "/api/v1/gotchas/",
                                    "/api/v1/gotchas/x",
                                    "/api/v1/gotchas/x/",
                                    "/api/v1/gotchas/a/b",
                                    "/api/v1/gotchas/a\nb",
                                    "/api/v1/search",
                                    "/api/v1/check/batch",
                                    "/api/v1/schemas/gotchas.schema.json",
                                    "/api/v1/schemas/gotchasXschema.json",
                                    "/search",
                                    "/feed.xml",
                                    "/feedXxml",
                                    "/check",
                                    "/static/app.css",
                                    "/static/a/b",
                                    "/gotchas/x",
                                    "/gotchas/x/y",
                                    "/gotchas/",
                                    "/gotchas/\r",
                                    "/anything",
                                    "/a\nb",
                                    "/healthz\n"};
  // Words of the table, joined at random (a fixed seed: the same paths every run).
  const std::vector<std::string> words = {"",
                                          "api",
                                          "v1",
                                          "v2",
                                          "gotchas",
                                          "engines",
                                          "oracles",
                                          "results",
                                          "settings",
                                          "models",
                                          "x",
                                          "x.json",
                                          "gotchas.csv",
                                          "gotchas.ndjson",
                                          "a.b",
                                          "check",
                                          "batch",
                                          "static",
                                          "healthz",
                                          "metrics",
                                          "search",
                                          "diagnostics",
                                          "feed.xml",
                                          "schemas",
                                          "resolve",
                                          "gotchas.schema.json",
                                          "openapi.json",
                                          "export",
                                          "changes",
                                          "apix",
                                          "api\n",
                                          "\r",
                                          "caf\xc3\xa9",
                                          ".",
                                          "..",
                                          "?",
                                          "(",
                                          "$"};
  std::mt19937 rng(20261202);
  for (int i = 0; i < 3000; ++i) {
    std::string p;
    const int n = static_cast<int>(rng() % 6);
    for (int k = 0; k < n; ++k) p += "/" + words[rng() % words.size()];
    if (p.empty() || rng() % 8 == 0) p += "/";
    paths.push_back(p);
  }
  std::size_t matched = 0;
  for (const auto& r : kb::http::route_table()) {
    INFO(r.pattern);
    const auto mine = RoutePattern::compile(r.pattern);
    REQUIRE(mine);  // every pattern of the table is in the subset
    const std::regex re(r.pattern);
    for (const auto& path : paths) {
      std::smatch m;
      const bool expected = std::regex_match(path, m, re);
      matched += expected;
      std::vector<std::string_view> captures;
      const bool got = mine->match(path, &captures);
      if (got != expected) {
        INFO("path " << path);
        CHECK(got == expected);
        continue;
      }
      if (!expected) continue;
      // The captures too, as std::smatch has them (an unmatched group: empty).
      std::vector<std::string> theirs, ours(captures.begin(), captures.end());
      for (const auto& sub : m) theirs.push_back(sub.str());
      if (ours != theirs) {
        INFO("path " << path);
        CHECK(ours == theirs);
      }
    }
  }
  CHECK(matched > 1000);  // the paths do reach the routes
}

TEST_CASE("routes: searches are the cpu-bound ones, answered by workers of their own",
          "[server][routes]") {
  std::vector<std::string_view> cpu;
  for (const auto& r : kb::http::route_table()) {
    if (r.cpu_bound) cpu.push_back(r.name);
    CHECK_FALSE((r.cpu_bound && r.reserved));
  }
  CHECK(cpu == std::vector<std::string_view>{"/api/v1/search"});
}
