// Each page kind rendered from a seed-shaped tree, parsed as XHTML and checked by
// structure: the element, its class and its text, not a substring of the markup.

#include <catch2/catch.hpp>

#include <unistd.h>

#include "pages_fixture.h"

using kb::pages::LinkStyle;
using kb::pages::Outcome;
using kb::pages::Renderer;
using kb::test::attrs_at;
using kb::test::parse_page;
using kb::test::text_at;

namespace {

const kb::test::Tree& tree() {
  static const kb::test::Tree t = kb::test::make_tree(kb::test::seed_like_files());
  return t;
}

std::unique_ptr<pugi::xml_document> parsed(const std::string& html) {
  std::string error;
  auto doc = parse_page(html, &error);
  INFO(error);
  REQUIRE(doc->first_child());
  return doc;
}

std::unique_ptr<pugi::xml_document> record_page(const Renderer& r, const char* id) {
  const kb::Record* rec = tree().linted.corpus->find(id);
  REQUIRE(rec != nullptr);
  auto html = r.record(tree().view(), *rec);
  REQUIRE(html);
  return parsed(*html);
}

}  // namespace

TEST_CASE("the fixture tree lints clean", "[pages]") {
  for (const auto& d : tree().linted.diagnostics) {
    INFO(kb::format_diagnostic(d));
    CHECK(d.severity != kb::Severity::error);
  }
}

TEST_CASE("gotcha page: badges, affects, Markdown sections, evidence, related, references, repairs",
          "[pages]") {
  const Renderer r(LinkStyle::live);
  auto doc = record_page(r, "gotchas/pd-batch-invariant");
  const auto& d = *doc;
  CHECK(text_at(d, "//title") == "Batch-invariant mode is not part of the KV namespace · kb");
  CHECK(text_at(d, "//h1") == "Batch-invariant mode is not part of the KV namespace");
  CHECK(text_at(d, "//p[@class='badges']/span[@class='badge sev-major']") == "major");
  CHECK(text_at(d, "//p[@class='badges']/span[@class='badge status-open']") == "open");
  CHECK(text_at(d, "//p[@class='badges']/span[@class='badge repro-no-evidence']") == "no-evidence");
  // Affects: links relative to /gotchas/x, with the version range beside the engine.
  CHECK(attrs_at(d, "//dd//a[@class='engine']", "href") ==
        std::vector<std::string>{"../engines/vllm", "../engines/nixl", "../engines/mooncake"});
  CHECK(text_at(d, "//dd//li[a='Mooncake']/span[@class='range']") == ">=0.3.0, <0.4");
  // Applies when: one line per clause, nested ones indented, keys by their canonical name
  // and linked to the setting's page.
  std::vector<std::string> lines, depths;
  for (const auto& n : d.select_nodes("//ul[@class='predicate']/li")) {
    depths.push_back(n.node().attribute("class").value());
    std::string text;
    for (const auto& t : n.node().select_nodes(".//text()")) text += t.node().value();
    lines.push_back(kb::test::normalize_space(text));
  }
  CHECK(lines == std::vector<std::string>{"all of:", "batch_invariant = 1",
                                          "any of:", "kv_transfer = pd", "kv_offload = shared"});
  CHECK(depths == std::vector<std::string>{"depth-0", "depth-1", "depth-1", "depth-2", "depth-2"});
  CHECK(attrs_at(d, "//ul[@class='predicate']//a", "href") ==
        std::vector<std::string>{"../settings/batch-invariant", "../settings/kv-transfer",
                                 "../settings/kv-offload"});
  // Markdown: code, link, table, strikethrough.
  CHECK(text_at(d, "//section[@id='symptom']//code") == "FileMapper.fields");
  CHECK(attrs_at(d, "//section[@id='symptom']//a[not(@class='anchor')]", "href") ==
        std::vector<std::string>{"https://github.com/vllm-project/vllm/issues/55524"});
  CHECK(text_at(d, "//section[@id='symptom']//table/tbody/tr/td[1]") == "dtype");
  CHECK(text_at(d, "//section[@id='root-cause']//del") == "absent");
  // Each heading carries a link to itself, and the table of contents lists the section.
  CHECK(text_at(d, "//section[@id='notes']/h2") == "Notes #");
  CHECK(attrs_at(d, "//section[@id='notes']/h2/a[@class='anchor']", "href") ==
        std::vector<std::string>{"#notes"});
  CHECK(attrs_at(d, "//nav[@class='toc']//a[.='Notes']", "href") ==
        std::vector<std::string>{"#notes"});
  CHECK(!d.select_node("//section[@id='workaround']"));
  // Related both ways: listed here and listing this one.
  CHECK(attrs_at(d, "//section[@id='related']//li/a", "href") ==
        std::vector<std::string>{"../gotchas/pd-cache-hit"});
  CHECK(text_at(d, "//section[@id='related']//span[@class='direction']") == "(both ways)");
  // Upstream references as real links.
  CHECK(attrs_at(d, "//section[@id='references']//a[not(@class='anchor')]", "href") ==
        std::vector<std::string>{"https://github.com/vllm-project/vllm/issues/55524",
                                 "https://github.com/vllm-project/vllm/commit/98dff2a"});
  CHECK(text_at(d, "//section[@id='references']//li[1]/a") == "vllm-project/vllm#55524");
  CHECK(text_at(d, "//section[@id='references']//li[1]/span[@class='state']") ==
        "open as of 2026-10-03");
  CHECK(text_at(d, "//dt[.='Verified as of']/following-sibling::dd[1]") == "2026-10-03");
  // Repair log.
  CHECK(text_at(d, "//section[@id='repairs']//tbody/tr/td[3]") == "mooncache");
  CHECK(text_at(d, "//section[@id='repairs']//tbody/tr/td[4]") == "mooncake");
  CHECK(text_at(d, "//section[@id='repairs']//tbody/tr/td[5]") ==
        "one-character typo in an engine id");
  // Source file and JSON beside the page.
  CHECK(attrs_at(d, "//p[@class='record-files']/a", "href") ==
        std::vector<std::string>{"../gotchas/pd-batch-invariant.yaml",
                                 "../gotchas/pd-batch-invariant.json"});
}

TEST_CASE("gotcha page: evidence table and controls", "[pages]") {
  const Renderer r(LinkStyle::static_site);
  auto doc = record_page(r, "gotchas/pd-cache-hit");
  const auto& d = *doc;
  CHECK(text_at(d, "//p[@class='badges']/span[@class='badge repro-reproduced']") == "reproduced");
  const auto rows = d.select_nodes("//section[@id='evidence']/div[1]//tbody/tr");
  REQUIRE(rows.size() == 2);
  const auto first = rows[0].node();
  CHECK(std::string(first.attribute("class").value()) == "failed");
  CHECK(text_at(d, "//section[@id='evidence']/div[1]//tbody/tr[1]/td[1]/a") ==
        "Output equivalence against a monolithic baseline");
  CHECK(attrs_at(d, "//section[@id='evidence']/div[1]//tbody/tr[1]/td[1]/a", "href") ==
        std::vector<std::string>{"../oracles/monolithic-equivalence.html"});
  CHECK(text_at(d, "//section[@id='evidence']/div[1]//tbody/tr[1]/td[3]") == "0");
  CHECK(text_at(d, "//section[@id='evidence']/div[1]//tbody/tr[1]/td[4]") == "3");
  CHECK(text_at(d, "//section[@id='evidence']/div[1]//tbody/tr[1]/td[5]") == "2026-09-30");
  CHECK(attrs_at(d, "//section[@id='evidence']/div[1]//tbody/tr[1]/td[6]/a", "href") ==
        std::vector<std::string>{"https://github.com/vllm-project/vllm/issues/52617"});
  CHECK(text_at(d, "//section[@id='evidence']/h3") == "Controls");
  CHECK(d.select_nodes("//section[@id='evidence']/div[2]//tbody/tr").size() == 1);
  CHECK(text_at(d, "//section[@id='related']//span[@class='direction']") == "(both ways)");
  CHECK(attrs_at(d, "//link[@rel='stylesheet']", "href") ==
        std::vector<std::string>{"../static/kb.css"});
  CHECK(attrs_at(d, "//a[@class='brand']", "href") == std::vector<std::string>{"../index.html"});
}

TEST_CASE("engine page: gotchas grouped by family, repo and aliases", "[pages]") {
  const Renderer r(LinkStyle::live);
  auto doc = record_page(r, "engines/vllm");
  const auto& d = *doc;
  CHECK(text_at(d, "//h1") == "vLLM");
  CHECK(attrs_at(d, "//dt[.='Repository']/following-sibling::dd[1]/a", "href") ==
        std::vector<std::string>{"https://github.com/vllm-project/vllm"});
  const auto groups = d.select_nodes("//section[@id='gotchas']/section[@class='group']");
  REQUIRE(groups.size() == 1);
  CHECK(text_at(d, "//section[@id='gotchas']/section[@class='group']/h3") ==
        "disaggregation 2 1 blocker");
  CHECK(attrs_at(d, "//section[@id='gotchas']//ul/li/a", "href") ==
        std::vector<std::string>{"../gotchas/pd-cache-hit", "../gotchas/pd-batch-invariant"});
  CHECK(text_at(d, "//section[@id='gotchas']//ul/li[1]/span[@class='range']") == ">=0.26.0, <0.28");
  auto mooncake = record_page(r, "engines/mooncake");
  CHECK(text_at(*mooncake, "//dt[.='Also known as']/following-sibling::dd[1]//code") ==
        "mooncake-transfer-engine");
  CHECK(text_at(*mooncake, "//section[@class='prose']/p/em") == "disaggregated");
}

TEST_CASE("oracle page: results matrix of subject by version", "[pages]") {
  const Renderer r(LinkStyle::live);
  auto doc = record_page(r, "oracles/monolithic-equivalence");
  const auto& d = *doc;
  CHECK(text_at(d, "//section[@id='method']//strong") == "monolithic");
  std::vector<std::string> columns;
  for (const auto& n : d.select_nodes("//table[@class='matrix']/thead/tr/th")) {
    columns.push_back(n.node().child_value());
  }
  CHECK(columns ==
        std::vector<std::string>{"Subject", "unversioned", "vLLM 0.26.0", "vLLM 0.27.1"});
  CHECK(text_at(d, "//table[@class='matrix']/tbody/tr[1]/th") == "vLLM + LMCache · kv_transfer=pd");
  CHECK(text_at(d, "//table[@class='matrix']/tbody/tr[1]/td[2]") == "0 passed / 3 failed (1 run)");
  CHECK(text_at(d, "//table[@class='matrix']/tbody/tr[1]/td[1]") == "—");
  CHECK(text_at(d, "//table[@class='matrix']/tbody/tr[2]/th") ==
        "vLLM + Mooncake · kv_transfer=pd");
  CHECK(text_at(d, "//table[@class='matrix']/tbody/tr[2]/td[1]") == "1 passed / 0 failed (1 run)");
  CHECK(attrs_at(d, "//section[@id='gotchas']//li/a", "href") ==
        std::vector<std::string>{"../gotchas/pd-cache-hit"});
}

TEST_CASE("home page: counts, newest, verified, engines, search box", "[pages]") {
  const Renderer r(LinkStyle::live);
  auto doc = parsed(r.home(tree().view()));
  const auto& d = *doc;
  CHECK(text_at(d, "//section[@id='counts']/ul[1]/li[1]") == "blocker 1");
  CHECK(attrs_at(d, "//section[@id='counts']/ul[1]/li[1]/a", "href") ==
        std::vector<std::string>{"search?severity=blocker"});
  CHECK(text_at(d, "//section[@id='counts']/ul[1]/li[2]") == "major 1");
  CHECK(text_at(d, "//section[@id='counts']/ul[2]/li[1]") == "open 2");
  CHECK(attrs_at(d, "//section[@id='newest']//li/a", "href") ==
        std::vector<std::string>{"gotchas/pd-batch-invariant", "gotchas/pd-cache-hit"});
  CHECK(attrs_at(d, "//section[@id='verified']//li/a", "href") ==
        std::vector<std::string>{"gotchas/pd-cache-hit", "gotchas/pd-batch-invariant"});
  CHECK(text_at(d, "//section[@id='engines']//li[a='vLLM']/span[@class='count']") == "2");
  CHECK(attrs_at(d, "//form[@role='search']", "action") == std::vector<std::string>{"search"});
  CHECK(attrs_at(d, "//form[@role='search']/input", "name") == std::vector<std::string>{"q"});
  const Renderer s(LinkStyle::static_site);
  auto st = parsed(s.home(tree().view()));
  CHECK(attrs_at(*st, "//form[@role='search']", "action") ==
        std::vector<std::string>{"search.html"});
  CHECK(attrs_at(*st, "//section[@id='engines']//li[1]/a", "href") ==
        std::vector<std::string>{"engines/lmcache.html"});
}

TEST_CASE("home page lede names the engines with the most gotchas, from the records", "[pages]") {
  // What the lede says the gotchas are about: the text between "what breaks in" and ",
  // whether it bites you".
  auto lede = [](const std::vector<std::pair<std::string, std::string>>& files) {
    const kb::test::Tree t = kb::test::make_tree(files);
    auto doc = parsed(Renderer(LinkStyle::live).home(t.view()));
    const std::string text = text_at(*doc, "//p[@class='lede']");
    const auto from = text.find("what breaks in ");
    const auto to = text.find(", whether it bites you");
    if (from == std::string::npos || to == std::string::npos) return "(no lede: " + text + ")";
    return text.substr(from + 15, to - from - 15);
  };
  auto engine = [](const std::string& slug, const std::string& name) {
    return std::make_pair("engines/" + slug + ".yaml", "name: " + name + "\n");
  };
  int gotchas = 0;
  auto gotcha = [&](const std::string& affects) {
    const std::string slug = "g" + std::to_string(++gotchas);
    return std::make_pair("gotchas/" + slug + ".yaml",
                          "title: " + slug +
                              "\nseverity: minor\nstatus: open\nsymptom: s\naffects: [" + affects +
                              "]\n");
  };
  std::vector<std::pair<std::string, std::string>> files = {
      engine("aa", "Alpha"), engine("bb", "Beta"), engine("cc", "Gamma"),
      gotcha("bb"),          gotcha("bb, aa"),     gotcha("bb")};
  // Most gotchas first; an engine no gotcha references is not named.
  CHECK(lede(files) == "Beta and Alpha");
  CHECK(lede({engine("aa", "Alpha")}) == "LLM-serving stacks");

  // An engine added to the records is named, by its record's name, without a template
  // change; past five, the rest are "friends", in a stable order.
  files.push_back(engine("zz", "Zeta Serve"));
  files.push_back(gotcha("zz"));
  CHECK(lede(files) == "Beta, Alpha and Zeta Serve");
  for (const char* slug : {"dd", "ee", "ff"}) {
    files.push_back(engine(slug, std::string("Engine ") + slug));
    files.push_back(gotcha(slug));
  }
  CHECK(lede(files) == "Beta, Alpha, Engine dd, Engine ee, Engine ff and friends");
}

TEST_CASE("search page: snippets with marks, filters with counts", "[pages]") {
  kb::pages::View v = tree().view();
  std::string asked;
  v.search = [&](std::string_view q, std::size_t) {
    asked = std::string(q);
    return std::vector<kb::SearchHit>{
        {"gotchas/pd-batch-invariant", "", 1.0, "the \x02Mooncake\x03 <b>id</b>", ""},
        {"engines/mooncake", "", 2.0, "\x02Mooncake\x03", ""},
        {"gotchas/gone", "", 3.0, "not in this snapshot", ""}};
  };
  const Renderer r(LinkStyle::live);
  kb::pages::SearchParams p;
  p.q = "mooncake";
  auto doc = parsed(r.search(v, p));
  const auto& d = *doc;
  CHECK(asked == "mooncake");
  CHECK(text_at(d, "//p[@id='search-status']") == "2 results.");
  CHECK(attrs_at(d, "//ol[@id='results']/li/a", "href") ==
        std::vector<std::string>{"gotchas/pd-batch-invariant", "engines/mooncake"});
  CHECK(text_at(d, "//ol[@id='results']/li[1]//span[@class='snippet']/mark") == "Mooncake");
  CHECK(text_at(d, "//ol[@id='results']/li[1]//span[@class='snippet']") ==
        "the Mooncake <b>id</b>");
  CHECK(text_at(d, "//select[@id='f-severity']/option[@value='major']") == "major (1)");
  CHECK(text_at(d, "//select[@id='f-engine']/option[@value='mooncake']") == "Mooncake (1)");
  CHECK(attrs_at(d, "//input[@id='q']", "value") == std::vector<std::string>{"mooncake"});

  p.severity = "blocker";
  auto filtered = parsed(r.search(v, p));
  CHECK(text_at(*filtered, "//p[@id='search-status']") == "0 results.");
  CHECK(attrs_at(*filtered, "//select[@id='f-severity']/option[@selected]", "value") ==
        std::vector<std::string>{"blocker"});

  kb::pages::SearchParams by_engine;
  by_engine.engine = "Mooncake";  // a name resolves like a reference
  auto engine = parsed(r.search(v, by_engine));
  CHECK(attrs_at(*engine, "//ol[@id='results']/li/a", "href") ==
        std::vector<std::string>{"gotchas/pd-batch-invariant"});
}

TEST_CASE("static search page searches in the browser", "[pages]") {
  const Renderer r(LinkStyle::static_site);
  auto doc = parsed(r.search(tree().view(), {}));
  CHECK(attrs_at(*doc, "//script", "src") ==
        std::vector<std::string>{"search-index.js", "static/search.js"});
  CHECK(doc->select_node("//ol[@id='results']"));
  CHECK(attrs_at(*doc, "//form[@id='search-form']", "action") ==
        std::vector<std::string>{"search.html"});
}

TEST_CASE("diagnostics page lists what kb lint says", "[pages]") {
  auto t = kb::test::make_tree(
      {{"gotchas/broken.yaml",
        "title: x\nseverity: major\nstatus: open\nsymptom: x\naffects: [mooncache]\n"},
       {"engines/mooncake.yaml", "name: Mooncake\n"}});
  const Renderer r(LinkStyle::live);
  auto doc = parsed(r.diagnostics(t.view()));
  const auto& d = *doc;
  CHECK(text_at(d, "//tbody/tr[1]/td[1]") == "error");
  CHECK(text_at(d, "//tbody/tr[1]/td[2]/code") == "gotchas/broken.yaml:5:11");
  CHECK(text_at(d, "//tbody/tr[1]/td[3]") == "ref.dangling");
  CHECK(attrs_at(d, "//tbody/tr[1]/td[2]/a", "href") == std::vector<std::string>{"gotchas/broken"});
  auto clean = parsed(r.diagnostics(tree().view()));
  CHECK(clean->select_nodes("//p[@class='ok']").size() == 1);
}

TEST_CASE("404 page offers the resolver's candidates", "[pages]") {
  const Renderer r(LinkStyle::live);
  auto page = r.serve(tree().view(), "/engines/mooncache", {});
  CHECK(page.outcome == Outcome::not_found);
  auto doc = parsed(page.body);
  CHECK(text_at(*doc, "//p[@class='did-you-mean']") == "Did you mean Mooncake?");
  CHECK(attrs_at(*doc, "//p[@class='did-you-mean']/a", "href") ==
        std::vector<std::string>{"../engines/mooncake"});
  auto top = parsed(r.serve(tree().view(), "/mooncache", {}).body);
  CHECK(text_at(*top, "//p[@class='did-you-mean']/a") == "Mooncake");
  CHECK(attrs_at(*top, "//p[@class='did-you-mean']/a", "href") ==
        std::vector<std::string>{"engines/mooncake"});
}

TEST_CASE("serve: pages, JSON and YAML beside them, redirects, assets", "[pages]") {
  const Renderer r(LinkStyle::live);
  const auto v = tree().view();
  CHECK(r.serve(v, "/", {}).outcome == Outcome::ok);
  auto alias = r.serve(v, "/engines/mooncake-transfer-engine", {});
  CHECK(alias.outcome == Outcome::moved);
  CHECK(alias.location == "../engines/mooncake");
  auto named = r.serve(v, "/engines/Mooncake.json", {});
  CHECK(named.outcome == Outcome::moved);
  CHECK(named.location == "../engines/mooncake.json");
  auto json = r.serve(v, "/gotchas/pd-cache-hit.json", {});
  CHECK(json.content_type == "application/json; charset=utf-8");
  CHECK(json.body.find("\"id\": \"gotchas/pd-cache-hit\"") != std::string::npos);
  auto yaml = r.serve(v, "/gotchas/pd-cache-hit.yaml", {});
  CHECK(yaml.content_type == "text/plain; charset=utf-8");
  CHECK(yaml.body == tree().linted.corpus->find("gotchas/pd-cache-hit")->source_text);
  // A result has a page: what was run, the verdict in words, where the figures come from.
  auto result = r.serve(v, "/results/run-a", {});
  CHECK(result.outcome == Outcome::ok);
  CHECK(result.body.find("id=\"verdict\"") != std::string::npos);
  CHECK(result.body.find("failed the oracle&#39;s pass criterion") != std::string::npos);
  CHECK(result.body.find("Where the figures come from") != std::string::npos);
  auto css = r.serve(v, "/static/kb.css", {});
  CHECK(css.content_type == "text/css; charset=utf-8");
  CHECK(css.body.find("prefers-color-scheme: dark") != std::string::npos);
  CHECK(r.serve(v, "/static/../pages.h", {}).outcome == Outcome::not_found);
  CHECK(r.serve(v, "/feed.xml", {}).content_type == "application/atom+xml; charset=utf-8");
}

TEST_CASE("Atom feed of new and changed gotchas", "[pages]") {
  const Renderer r(LinkStyle::static_site);
  auto doc = parsed(r.feed(tree().view()));
  const auto feed = doc->child("feed");
  CHECK(std::string(feed.attribute("xmlns").value()) == "http://www.w3.org/2005/Atom");
  CHECK(std::string(feed.child_value("updated")) == "2026-10-04T00:00:00Z");
  std::vector<std::string> titles, links;
  for (auto e : feed.children("entry")) {
    titles.push_back(e.child_value("title"));
    links.push_back(e.child("link").attribute("href").value());
  }
  CHECK(links ==
        std::vector<std::string>{"gotchas/pd-batch-invariant.html", "gotchas/pd-cache-hit.html"});
  CHECK(std::string(feed.child("entry").child_value("content"))
            .find("<code>FileMapper.fields</code>") != std::string::npos);
}

TEST_CASE("templates given with --web-dir are read from disk, falling back to the compiled-in ones",
          "[pages]") {
  const auto dir =
      std::filesystem::temp_directory_path() / ("kb-webdir-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "templates");
  {
    std::ofstream(dir / "templates" / "diagnostics.mustache")
        << "<p id=\"edited\">{{errors}} errors</p>";
  }
  const Renderer r(LinkStyle::live, dir);
  auto doc = parsed(r.diagnostics(tree().view()));
  CHECK(text_at(*doc, "//p[@id='edited']") == "0 errors");
  CHECK(parsed(r.home(tree().view()))->select_node("//section[@id='counts']"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("gotcha page: it opens with what to do", "[pages]") {
  const Renderer r(LinkStyle::live);
  auto doc = record_page(r, "gotchas/pd-cache-hit");
  const auto& d = *doc;
  // Right after the title: how bad, which engines and what fixes them, the first step.
  CHECK(std::string(d.select_node("//h1/following-sibling::*[1]").node().attribute("id").value()) ==
        "act-now");
  CHECK(text_at(d, "//section[@id='act-now']/p[@class='act-severity']/strong") ==
        "Blocker: fail the rollout that has it");
  CHECK(kb::test::normalize_space(text_at(d, "//section[@id='act-now']//ul/li[1]")) ==
        "vLLM >=0.26.0, <0.28: no fix yet");
  CHECK(kb::test::normalize_space(text_at(d, "//section[@id='act-now']//ul/li[2]")) ==
        "LMCache: no fix yet");
  CHECK(kb::test::normalize_space(text_at(d, "//section[@id='act-now']/div[@class='act-first']")) ==
        "Do first: Run the oracle.");
}
