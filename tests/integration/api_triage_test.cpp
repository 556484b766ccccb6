// POST /api/v1/triage: a log in, the gotchas its lines name out; bad bodies get a 4xx.

#include "server_harness.h"

using namespace kbtest;

TEST_CASE("triage API: a log names its gotcha with the matching lines", "[server][triage]") {
  TestServer s(shipped_records());
  for (const auto& [body, type] : std::vector<std::pair<std::string, std::string>>{
           {kNixlMismatchLog, "text/plain"},
           {json{{"log", kNixlMismatchLog}}.dump(), "application/json"}}) {
    auto res = post(s, "/api/v1/triage", body, type);
    INFO(type << " -> " << res->status << " " << res->body);
    REQUIRE(res->status == 200);
    json j = json::parse(res->body);
    CHECK(j["schema_version"].is_string());
    CHECK(j["lines"] == 2);
    REQUIRE(j["matches"].size() == 1);
    CHECK(j["matches"][0]["id"] == "gotchas/nixl-side-channel-host-unset-silent-recompute");
    CHECK(j["matches"][0]["lines"][0]["line"] == 2);
    CHECK(j["matches"][0]["api_url"] ==
          "/api/v1/gotchas/nixl-side-channel-host-unset-silent-recompute");
  }
  json clean = json::parse(post(s, "/api/v1/triage", "all good\n", "text/plain")->body);
  CHECK(clean["matches"].empty());
  CHECK(s.errors().empty());
}

TEST_CASE("triage API: bodies it cannot read get a 4xx", "[server][triage]") {
  TestServer s(shipped_records());
  CHECK(post(s, "/api/v1/triage", "", "text/plain")->status == 400);
  CHECK(post(s, "/api/v1/triage", "  \n", "text/plain")->status == 400);
  CHECK(post(s, "/api/v1/triage", "{\"text\": 1}", "application/json")->status == 422);
  CHECK(post(s, "/api/v1/triage", "not json", "application/json")->status == 400);
  CHECK(post(s, "/api/v1/triage", "<x/>", "application/xml")->status == 415);
  // Bytes that are not UTF-8 come back as U+FFFD, never as a 5xx.
  auto res =
      post(s, "/api/v1/triage", "Remote NIXL agent engine ID mismatch \xff\xfe\n", "text/plain");
  CHECK(res->status == 200);
  CHECK(s.errors().empty());
}
