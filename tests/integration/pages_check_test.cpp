// The "Am I affected?" page (GET and POST /check) against the fixture tree
// tests/data/serve/records: the form, findings linked to their gotcha pages, the same
// answer as POST /api/v1/check, and every bad input a clear page, never a 5xx.

#include <httplib.h>

#include <string>
#include <utility>
#include <vector>

#include "kb/deploy.h"
#include "kb/deployment.h"
#include "pages_fixture.h"
#include "server_harness.h"

using namespace kbtest;
using kb::test::attrs_at;
using kb::test::text_at;

namespace {

// vLLM alone: every fixture gotcha that affects vllm applies (alpha-blocker among them).
const std::string kVllm = "engines:\n  - {engine: vllm, version: 0.26.0}\n";

struct Form {
  std::string deployment;
  std::string kind;
  std::vector<std::pair<std::string, std::string>> more = {};
};

httplib::Result post_form(const TestServer& s, const Form& f) {
  httplib::Params params{{"deployment", f.deployment}, {"kind", f.kind}};
  for (const auto& [k, v] : f.more) params.emplace(k, v);
  auto c = s.client();
  auto res = c.Post("/check", params);
  REQUIRE(res);
  return res;
}

std::unique_ptr<pugi::xml_document> page(const httplib::Result& res) {
  std::string error;
  auto doc = kb::test::parse_page(res->body, &error);
  INFO(error);
  REQUIRE(doc->first_child());
  return doc;
}

// What the textarea holds: a browser drops the newline that follows its start tag, which
// the page writes so that a deployment starting with a newline keeps it.
std::string textarea(const pugi::xml_document& d) {
  std::string text = d.select_node("//textarea[@name='deployment']").node().text().get();
  REQUIRE(text.rfind('\n', 0) == 0);
  return text.substr(1);
}

// (id, severity) of each finding, in order.
using Hits = std::vector<std::pair<std::string, std::string>>;

Hits page_hits(const pugi::xml_document& d) {
  Hits out;
  for (const auto& li : d.select_nodes("//ol[@id='findings']/li")) {
    const auto node = li.node();
    const std::string href =
        node.select_node("a[@class='gotcha']").node().attribute("href").value();
    const std::string severity =
        node.select_node("span[contains(@class,'badge')]").node().text().get();
    out.emplace_back(href, severity);
  }
  return out;
}

Hits api_hits(const json& answer) {
  Hits out;
  for (const auto& f : answer["findings"])
    out.emplace_back(f["id"].get<std::string>(), f["severity"].get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("GET /check: the form, every kind kb check reads, the nav link",
          "[server][pages][check]") {
  TestServer s;
  auto res = get(s, "/check");
  REQUIRE(res->status == 200);
  CHECK(res->get_header_value("Content-Type") == "text/html; charset=utf-8");
  CHECK(res->get_header_value("Content-Security-Policy").find("form-action 'self'") !=
        std::string::npos);
  auto doc = page(res);
  const auto& d = *doc;
  CHECK(text_at(d, "//h1") == "Am I affected?");
  CHECK(attrs_at(d, "//form[@id='check-form']", "method") == std::vector<std::string>{"post"});
  // The answer scrolls to the result.
  CHECK(attrs_at(d, "//form[@id='check-form']", "action") ==
        std::vector<std::string>{"check#result"});
  CHECK(attrs_at(d, "//form[@id='check-form']//textarea", "name") ==
        std::vector<std::string>{"deployment"});
  std::vector<std::string> kinds = {""};
  for (const auto& k : kb::input_kinds()) kinds.push_back(k);
  CHECK(attrs_at(d, "//select[@name='kind']/option", "value") == kinds);
  CHECK(text_at(d, "//select[@name='kind']/option[1]") == "detect from content");
  CHECK(attrs_at(d, "//select[@name='fail_on']/option[@selected]", "value") ==
        std::vector<std::string>{"blocker"});
  CHECK(attrs_at(d, "//input[@type='checkbox']", "name") ==
        std::vector<std::string>{"allow_unknown", "allow_invalid_records"});
  CHECK(attrs_at(d, "//form[@id='check-form']//button", "type") ==
        std::vector<std::string>{"submit"});
  CHECK(!d.select_node("//section[@id='result']"));
  // Every page's header links here.
  auto home = page(get(s, "/"));
  CHECK(attrs_at(*home, "//header/nav/a[.='Am I affected?']", "href") ==
        std::vector<std::string>{"check"});
  auto gotcha = page(get(s, "/gotchas/alpha-blocker"));
  CHECK(attrs_at(*gotcha, "//header/nav/a[.='Am I affected?']", "href") ==
        std::vector<std::string>{"../check"});
  // Lenient like every page: a tracking parameter changes nothing.
  CHECK(get(s, "/check?utm_source=mail")->status == 200);
}

TEST_CASE("POST /check: findings link to their gotcha pages, with where and why",
          "[server][pages][check]") {
  TestServer s;
  auto res = post_form(s, {kVllm, ""});
  INFO(res->body);
  REQUIRE(res->status == 200);
  auto doc = page(res);
  const auto& d = *doc;
  CHECK(textarea(d) == kVllm);
  const Hits hits = page_hits(d);
  REQUIRE(hits.size() == 6);
  CHECK(hits[0] == std::make_pair(std::string("gotchas/alpha-blocker"), std::string("blocker")));
  CHECK(text_at(d, "//ol[@id='findings']/li[1]/a") == "Prefix cache hit diverges");
  CHECK(text_at(d, "//ol[@id='findings']/li[1]//dd[@class='service']") ==
        "the deployment, role both");
  CHECK(text_at(d, "//ol[@id='findings']/li[1]//ul[@class='why']/li[1]") == "engine vllm 0.26.0");
  CHECK(text_at(d, "//ol[@id='findings']/li[1]//ul[contains(@class,'where')]/li[1]/code") ==
        "line 2, column 14");
  // The line itself, numbered as in the paste.
  CHECK(text_at(d, "//ol[@id='findings']/li[1]//ul[contains(@class,'where')]/li[1]/pre") ==
        "2 - {engine: vllm, version: 0.26.0}");
  CHECK(text_at(d, "//ul[@id='counts']/li[1]") == "blocker 1");
  CHECK(text_at(d, "//ul[@id='counts']/li[2]") == "major 3");
  CHECK(text_at(d, "//p[@id='verdict']") ==
        "kb check --fail-on blocker would fail (exit 1): a finding is at or above blocker.");
  CHECK(!d.select_node("//p[@id='fail-closed']"));
  // The link lands on the gotcha's page.
  auto target = get(s, "/" + hits[0].first);
  CHECK(target->status == 200);
  CHECK(text_at(*page(target), "//h1") == "Prefix cache hit diverges");

  // Another gate, chosen in the form: nothing at or above... blocker is above major.
  auto major = post_form(s, {kVllm, "deployment", {{"fail_on", "major"}}});
  REQUIRE(major->status == 200);
  CHECK(attrs_at(*page(major), "//select[@name='fail_on']/option[@selected]", "value") ==
        std::vector<std::string>{"major"});
  auto none = post_form(s, {"engines:\n  - {engine: sglang}\n", ""});
  REQUIRE(none->status == 200);
  CHECK(text_at(*page(none), "//p[@id='verdict']") ==
        "kb check --fail-on blocker would pass (exit 0): no gotcha hits this deployment.");
}

TEST_CASE("the page and POST /api/v1/check agree on the same input", "[server][pages][check]") {
  TestServer s;
  const std::vector<Form> forms = {
      {kVllm, ""},
      {"engines: [{engine: lmcache, version: 0.3.8}, {engine: nixl}]\n", "deployment"},
      {R"({"engines": [{"engine": "mooncake", "version": "0.3.4"}]})", ""},
      {"engines: [vllm, vlm]\n", "", {{"allow_unknown", "true"}}},
      {kVllm, "", {{"ignore", "gotchas/alpha-blocker,eta-major"}}},
  };
  for (const auto& f : forms) {
    INFO(f.deployment);
    std::string query = "?fail_on=blocker";
    if (!f.kind.empty()) query += "&kind=" + f.kind;
    for (const auto& [k, v] : f.more) query += "&" + k + "=" + v;
    auto api = post(s, "/api/v1/check" + query, f.deployment, "application/yaml");
    auto html = post_form(s, f);
    INFO(api->body);
    REQUIRE(api->status == 200);
    REQUIRE(html->status == 200);
    const Hits expected = api_hits(json::parse(api->body));
    CHECK(!expected.empty());
    CHECK(page_hits(*page(html)) == expected);
  }
}

TEST_CASE("POST /check: a YAML syntax error shows its code, line and column",
          "[server][pages][check]") {
  TestServer s;
  auto res = post_form(s, {"engines:\n  - {engine: vllm, version: 0.26.0\nconfig: {}\n", ""});
  INFO(res->body);
  CHECK(res->status == 400);
  auto doc = page(res);
  const auto& d = *doc;
  CHECK(text_at(d, "//p[@id='fail-closed']/strong") ==
        "kb could not read this deployment whole, so it cannot say you are unaffected.");
  CHECK(text_at(d, "//table[@id='diagnostics']/tbody/tr[1]//code[@class='code']") == "yaml.syntax");
  CHECK(text_at(d, "//table[@id='diagnostics']/tbody/tr[1]/td[@class='where']") ==
        "line 3, column 7");
  CHECK(text_at(d, "//textarea[@name='deployment']") ==
        "engines: - {engine: vllm, version: 0.26.0 config: {}");
}

TEST_CASE("POST /check: an unknown engine fails closed with a did-you-mean",
          "[server][pages][check]") {
  TestServer s;
  const std::string typo = "engines: [{engine: vlm, version: 0.26.0}]\n";
  auto res = post_form(s, {typo, ""});
  INFO(res->body);
  CHECK(res->status == 422);
  auto doc = page(res);
  const auto& d = *doc;
  CHECK(text_at(d, "//p[@id='fail-closed']/strong") ==
        "kb could not read this deployment whole, so it cannot say you are unaffected.");
  CHECK(text_at(d, "//p[@id='fail-closed']//code") == "check-incomplete");
  CHECK(text_at(d, "//table[@id='diagnostics']/tbody/tr[1]//span[@class='hint']") ==
        "did you mean 'vllm'?");
  CHECK(text_at(d, "//table[@id='diagnostics']/tbody/tr[1]/td[@class='where']") ==
        "line 1, column 20");
  CHECK(text_at(d, "//p[@id='verdict']").rfind("kb check --fail-on blocker would exit 2", 0) == 0);
  // Ticked, the same text is checked with the unknown engine as a warning.
  auto allowed = post_form(s, {typo, "", {{"allow_unknown", "true"}}});
  CHECK(allowed->status == 200);
  CHECK(attrs_at(*page(allowed), "//input[@name='allow_unknown']", "checked") ==
        std::vector<std::string>{"checked"});
}

TEST_CASE("POST /check: bad form fields are 400 pages, oversize 413, never a 5xx",
          "[server][pages][check]") {
  TestServer s;
  auto empty = post_form(s, {"  \n", ""});
  CHECK(empty->status == 400);
  CHECK(text_at(*page(empty), "//p[@id='form-error']") ==
        "the form was sent without a deployment: paste one into the box and check again "
        "(invalid-argument)");

  auto kind = post_form(s, {kVllm, "helm"});
  CHECK(kind->status == 400);
  auto k = page(kind);
  CHECK(text_at(*k, "//p[@id='form-error']")
            .rfind("kind must be empty (detect from content) or one of endpoint, ", 0) == 0);
  CHECK(textarea(*k) == kVllm);
  CHECK(!k->select_node("//ol[@id='findings']"));

  auto flag = post_form(s, {kVllm, "", {{"allow_unknown", "maybe"}}});
  CHECK(flag->status == 400);
  CHECK(text_at(*page(flag), "//p[@id='form-error']") ==
        "allow_unknown must be true or false (invalid-argument)");
  CHECK(post_form(s, {kVllm, "", {{"fail_on", "fatal"}}})->status == 400);

  const std::string big = "# " + std::string(kb::kMaxDeploymentBytes, 'x') + "\n" + kVllm;
  auto over = post_form(s, {big, ""});
  CHECK(over->status == 413);
  CHECK(text_at(*page(over), "//p[@id='fail-closed']/text()[last()]") ==
        "a deployment is at most 1048576 bytes; this one is " + std::to_string(big.size()) +
            " bytes");

  auto other = post(s, "/check", "deployment=x", "text/plain");
  CHECK(other->status == 415);
  CHECK(other->get_header_value("Content-Type") == "text/html; charset=utf-8");
  CHECK(s.errors().empty());
}

TEST_CASE("POST /check: everything pasted is escaped", "[server][pages][check]") {
  TestServer s;
  const std::string hostile =
      "engines: [{engine: \"<script>alert(1)</script>\"}]\n"
      "config: {\"<script>k</script>\": \"<img src=x onerror=alert(2)>\"}\n";
  for (const auto& extra : {std::vector<std::pair<std::string, std::string>>{},
                            std::vector<std::pair<std::string, std::string>>{
                                {"allow_unknown", "true"}, {"ignore", "<script>i</script>"}}}) {
    auto res = post_form(s, {hostile, "", extra});
    INFO(res->body);
    CHECK(res->status < 500);
    CHECK(res->body.find("<script>") == std::string::npos);
    CHECK(res->body.find("<img") == std::string::npos);
    CHECK(res->body.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    CHECK(kb::test::active_content("/check", res->body).empty());
    auto doc = page(res);
    CHECK(textarea(*doc) == hostile);
  }
}

TEST_CASE("POST /check: every service a finding hits, every fix, the suggested changes",
          "[server][pages][check]") {
  TestServer s;
  // Two services on two Mooncake versions, both before the fix of gotchas/delta-minor.
  const std::string two =
      "services:\n"
      "  - {name: a, engines: [{engine: mooncake, version: 0.3.3}]}\n"
      "  - {name: b, engines: [{engine: mooncake, version: 0.3.4}]}\n";
  auto res = post_form(s, {two, "deployment"});
  INFO(res->body);
  REQUIRE(res->status == 200);
  auto doc = page(res);
  const auto& d = *doc;
  const std::string item = "//ol[@id='findings']/li[.//a[contains(@href,'delta-minor')]]";
  REQUIRE(d.select_node(item.c_str()));
  CHECK(text_at(d, (item + "//dd[@class='service']//li[1]").c_str()) == "service a, role both");
  CHECK(text_at(d, (item + "//dd[@class='service']//li[2]").c_str()) == "service b, role both");
  // One advice per version run, in the finding and once each in the summary.
  CHECK(text_at(d, (item + "//ul[@class='fixes']/li[1]").c_str()) ==
        "upgrade mooncake from 0.3.3 to 0.3.5 or later (fixed there)");
  CHECK(text_at(d, (item + "//ul[@class='fixes']/li[2]").c_str()) ==
        "upgrade mooncake from 0.3.4 to 0.3.5 or later (fixed there)");
  CHECK(text_at(d, "//div[@id='changes']//li[1]") ==
        "upgrade mooncake from 0.3.3 to 0.3.5 or later (fixed there)");
}
