// A log pasted into the search page (POST /search): the gotchas its lines name, as POST
// /api/v1/triage answers for the same log, with the lines numbered as pasted; a form it
// cannot read is a clear page with a 4xx, never a 5xx.

#include <httplib.h>

#include <string>

#include "pages_fixture.h"
#include "server_harness.h"

using namespace kbtest;

namespace {

httplib::Result post_log(const TestServer& s, const std::string& log) {
  auto c = s.client();
  auto res = c.Post("/search", httplib::Params{{"log", log}});
  REQUIRE(res);
  return res;
}

}  // namespace

TEST_CASE("search page: a pasted log names its gotcha as the triage API does", "[pages][triage]") {
  TestServer s(shipped_records());
  auto res = post_log(s, kNixlMismatchLog);
  REQUIRE(res->status == 200);
  std::string error;
  auto doc = kb::test::parse_page(res->body, &error);
  INFO(error);
  REQUIRE(doc->first_child());
  // The API's answer for the same log.
  const json api = json::parse(post(s, "/api/v1/triage", kNixlMismatchLog, "text/plain")->body);
  REQUIRE(api["matches"].size() == 1);
  const std::string id = api["matches"][0]["id"];
  const std::string section = res->body.substr(res->body.find("id=\"log-result\""));
  CHECK(section.find("href=\"" + id + "\"") != std::string::npos);
  // The matching line, numbered as pasted, and the gotcha's first action.
  CHECK(section.find("<li value=\"2\"><span class=\"meta\">line 2:</span> <code>ERROR Remote "
                     "NIXL agent engine ID mismatch") != std::string::npos);
  CHECK(section.find("<strong>Do:</strong>") != std::string::npos);
  // The paste is shown again in the box, and the box is open.
  CHECK(res->body.find("engine started") < res->body.find("id=\"log-result\""));
  CHECK(res->body.find("<details id=\"log-paste\" class=\"log-paste\" open=\"open\">") !=
        std::string::npos);
  // A log naming nothing says so.
  auto clean = post_log(s, "all good\n");
  CHECK(clean->status == 200);
  CHECK(clean->body.find("No line matches a gotcha's signature") != std::string::npos);
  CHECK(s.errors().empty());
}

TEST_CASE("search page: a log form it cannot read is a 4xx page", "[pages][triage]") {
  TestServer s(shipped_records());
  auto empty = post_log(s, "  \n");
  CHECK(empty->status == 400);
  CHECK(empty->body.find("without a log") != std::string::npos);
  CHECK(post(s, "/search", "log=x", "text/plain")->status == 415);
  // The GET page offers the box (the static site, with no server, does not: pages_site_test).
  auto page = s.client().Get("/search");
  REQUIRE(page);
  CHECK(page->body.find("id=\"log-form\"") != std::string::npos);
  CHECK(s.errors().empty());
}
