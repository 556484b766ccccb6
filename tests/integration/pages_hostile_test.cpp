// Hostile record text (tests/data/hostile) and hostile URLs must come out inert in
// every page, live and static: the text is shown, nothing of it executes. Each page is
// parsed as XML (an injected tag would break it or show up as an element) and every
// element and attribute is checked against what can run script.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>

#include "pages_fixture.h"
#include "site.h"

namespace fs = std::filesystem;
using kb::pages::LinkStyle;
using kb::pages::Renderer;
using kb::test::attrs_at;
using kb::test::text_at;

namespace {

const kb::test::Tree& hostile() {
  static const kb::test::Tree t =
      kb::test::make_tree(kb::test::read_tree(fs::path(KB_TEST_DATA) / "hostile"));
  return t;
}

void require_inert(const std::string& page, const std::string& html) {
  const auto problems = kb::test::active_content(page, html);
  for (const auto& p : problems) FAIL_CHECK(p);
  CHECK(problems.empty());
}

std::vector<kb::SearchHit> hostile_hits(std::string_view, std::size_t) {
  return {{"gotchas/hostile", "", 1.0, "\x02<script>\x03alert('snippet')</script>\x03 \x02", ""},
          {"engines/evil", "", 2.0, "<img src=x onerror=alert('snippet2')>", ""}};
}

// Paths a hostile link could send someone to.
const std::vector<std::string> kHostilePaths = {
    "/engines/<script>alert('path')</script>",          "/\"><script>alert('path2')</script>",
    "/gotchas/x\" onmouseover=\"alert('path3')",        "/javascript:alert('path4')",
    "/oracles/<img src=x onerror=alert('path5')>.json", "/a/b/c/<svg onload=alert('path6')>"};

}  // namespace

TEST_CASE("the inertness check finds active content", "[pages]") {
  for (const char* bad :
       {"<p><script>alert(1)</script></p>", "<p><script src=\"https://x/a.js\"></script></p>",
        "<p><a href=\" JavaScript:alert(1)\">x</a></p>", "<p><b onclick=\"x\">b</b></p>",
        "<p><img src=\"data:image/svg+xml,x\" /></p>", "<p><svg></svg></p>", "<p style=\"x\">p</p>",
        "<form action=\"javascript:x\"></form>", "<p><b></p>"}) {
    CHECK(kb::test::active_content("bad", bad).size() == 1);
  }
  CHECK(kb::test::active_content(
            "good", "<p><a href=\"../x\">x</a><script src=\"../static/search.js\"></script></p>")
            .empty());
}

TEST_CASE("the hostile tree loads all but its broken file", "[pages]") {
  CHECK(hostile().linted.corpus->records().size() == 5);
  const auto& diags = hostile().linted.diagnostics;
  CHECK(std::any_of(diags.begin(), diags.end(), [](const kb::Diagnostic& d) {
    return d.code == "schema.enum" &&
           d.message.find("<script>alert('diag')</script>") != std::string::npos;
  }));
}

TEST_CASE("hostile records are inert in every live page", "[pages]") {
  const Renderer r(LinkStyle::live);
  kb::pages::View v = hostile().view();
  v.search = hostile_hits;
  for (const auto& rec : v.corpus.records()) {
    const std::string path = "/" + rec->id;
    auto page = r.serve(v, path, {});
    REQUIRE(page.outcome == kb::pages::Outcome::ok);  // results too have a page
    require_inert(path, page.body);
  }
  require_inert("/", r.serve(v, "/", {}).body);
  require_inert("/diagnostics", r.serve(v, "/diagnostics", {}).body);
  require_inert("/feed.xml", r.serve(v, "/feed.xml", {}).body);
  kb::pages::SearchParams p{"<script>alert('q')</script>", "\"><script>alert('e')</script>",
                            "<b onclick=x>", "\" onfocus=\"alert('s')"};
  require_inert("/search (hostile params)", r.serve(v, "/search", p).body);
  require_inert("/search (mooncake)", r.serve(v, "/search", {"mooncake", "", "", ""}).body);
  for (const auto& path : kHostilePaths) require_inert(path, r.serve(v, path, {}).body);
}

TEST_CASE("hostile text is shown as text", "[pages]") {
  const Renderer r(LinkStyle::live);
  const auto v = hostile().view();
  auto gotcha = kb::test::parse_page(*r.record(v, *v.corpus.find("gotchas/hostile")));
  CHECK(text_at(*gotcha, "//h1") ==
        "<script>alert('title')</script> \" onmouseover=\"alert('title-attr')");
  CHECK(text_at(*gotcha, "//dt[.='Kind']/following-sibling::dd[1]") ==
        "<img src=x onerror=alert('kind')>");
  CHECK(text_at(*gotcha, "//section[@id='symptom']/p").find("<script>alert('symptom')</script>") ==
        0);
  // Dangerous Markdown links keep their text and lose the link.
  CHECK(attrs_at(*gotcha, "//section[@id='symptom']//a[not(@class='anchor')]", "href") ==
        std::vector<std::string>{
            "https://example.com/?q=%22%3E%3Cscript%3Ealert(%27q%27)%3C/script%3E"});
  CHECK(text_at(*gotcha, "//section[@id='symptom']/p").find("click upper entity data vb") !=
        std::string::npos);
  CHECK(text_at(*gotcha, "//section[@id='root-cause']//pre/code") ==
        "<script>alert('fence')</script>");
  CHECK(text_at(*gotcha, "//section[@id='notes']/p").find("{{title}} {{{symptom}}} {{>head}}") !=
        std::string::npos);
  CHECK(text_at(*gotcha, "//section[@id='repairs']//tbody/tr/td[5]") ==
        "<img src=x onerror=alert('reason')>");
  CHECK(text_at(*gotcha, "//section[@id='references']/ul/li[1]")
            .find("<script>alert('ref-title')</script>") == 0);
  CHECK(attrs_at(*gotcha, "//section[@id='references']//a[not(@class='anchor')]", "href") ==
        std::vector<std::string>{"https://github.com/\"><script>alert('repo')</script>",
                                 "https://example.com/\"><script>alert('url')</script>",
                                 "https://github.com/a/b/commit/\"><script>alert('ref')</script>"});
  auto engine = kb::test::parse_page(*r.record(v, *v.corpus.find("engines/evil")));
  CHECK(text_at(*engine, "//h1") == "<script>alert('engine')</script>");
  CHECK(attrs_at(*engine, "//dt[.='Repository']/following-sibling::dd[1]/a", "href") ==
        std::vector<std::string>{
            "https://github.com/%22%3E%3Cscript%3Ealert%28%27repo%27%29%3C/script%3E/x"});
  auto diags = kb::test::parse_page(r.diagnostics(v));
  CHECK(text_at(*diags, "//tbody/tr[1]/td[4]")
            .find("severity: unknown value '<script>alert('diag')</script>'") == 0);
  auto missing = kb::test::parse_page(r.serve(v, kHostilePaths[0], {}).body);
  CHECK(text_at(*missing, "//main/p[1]/code") == kHostilePaths[0]);
}

TEST_CASE("URLs the schema would refuse are still never links", "[pages]") {
  auto engine = std::make_shared<kb::Record>();
  engine->kind = kb::Kind::engine;
  engine->id = "engines/js";
  engine->file = "engines/js.yaml";
  engine->engine->name = "js";
  engine->engine->url = " javascript:alert('engine-url')";
  auto gotcha = std::make_shared<kb::Record>();
  gotcha->id = "gotchas/js";
  gotcha->file = "gotchas/js.yaml";
  gotcha->title = "js";
  // Severity and status are enums parsed at load: no text of the file reaches the page.
  gotcha->severity = kb::GotchaSeverity::major;
  gotcha->status = kb::GotchaStatus::open;
  for (const char* url :
       {"javascript:alert(1)", "JAVASCRIPT:alert(2)", "\tjavascript:alert(3)",
        "data:text/html,<script>alert(4)</script>", "vbscript:alert(5)", "//evil.example/x"}) {
    kb::Citation c;
    c.type = "url";
    c.url = url;
    gotcha->references.push_back(c);
  }
  gotcha->affects.push_back({"js", "affects[0]", {}, "", {}});
  std::vector<kb::FileResult> files(2);
  files[0].file = engine->file;
  files[0].record = engine;
  files[1].file = gotcha->file;
  files[1].record = gotcha;
  kb::LintOptions options;
  options.today = "2026-10-10";
  const kb::Linted linted =
      kb::lint_corpus(kb::Corpus::from_files("mem", std::move(files)), options);
  const kb::pages::ReferenceMap refs(*linted.corpus);
  const kb::DiagnosticList diags(linted.diagnostics);
  const auto v = kb::pages::make_view(linted, refs, diags);
  const Renderer r(LinkStyle::live);
  const std::string page = *r.record(v, *linted.corpus->find("gotchas/js"));
  require_inert("/gotchas/js", page);
  auto doc = kb::test::parse_page(page);
  CHECK(doc->select_nodes("//section[@id='references']//a[not(@class='anchor')]").size() == 0);
  CHECK(text_at(*doc, "//section[@id='references']/ul/li[1]") == "javascript:alert(1)");
  const std::string engine_page = *r.record(v, *linted.corpus->find("engines/js"));
  require_inert("/engines/js", engine_page);
  CHECK(kb::test::parse_page(engine_page)->select_nodes("//dt[.='Home page']").size() == 0);
}

TEST_CASE("hostile records are inert in every page of the static site", "[pages]") {
  const fs::path out =
      fs::temp_directory_path() / ("kb-hostile-site-" + std::to_string(::getpid()));
  kb::site::write_site(hostile().linted, {out, {}});
  std::size_t pages = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    const auto ext = e.path().extension();
    if (ext != ".html" && ext != ".xml") continue;
    require_inert(fs::relative(e.path(), out).string(), kb::test::read_text(e.path()));
    ++pages;
  }
  // home, search, diagnostics, check, 404, 2 gotchas, engine, oracle, result, feed
  CHECK(pages == 11);
  // The search index is data: a script assigning one JSON value, record text in strings.
  const std::string js = kb::test::read_text(out / "search-index.js");
  const std::string prefix = "window.KB_SEARCH_INDEX = ";
  REQUIRE(js.rfind(prefix, 0) == 0);
  REQUIRE(js.size() > prefix.size() + 2);
  const auto index = nlohmann::json::parse(js.substr(prefix.size(), js.size() - prefix.size() - 2));
  std::set<std::string> titles;
  for (const auto& d : index["docs"]) titles.insert(d["c"][0].get<std::string>());
  CHECK(titles.count("<script>alert('title')</script> \" onmouseover=\"alert('title-attr')") == 1);
  CHECK(js.find('\n') == js.size() - 1);
  fs::remove_all(out);
}
