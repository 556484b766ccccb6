// `kb site`: every page written, every relative link landing on a file of the site, and
// a rebuild that replaces or removes only what kb wrote (listed in `.kb-site`), never a
// half-written site, never a file of someone else's.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <fstream>
#include <set>

#include "kb/error.h"
#include "pages_fixture.h"
#include "site.h"

namespace fs = std::filesystem;

namespace {

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path temp_dir(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("kb-site-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p.parent_path());
  return p;
}

const kb::test::Tree& tree() {
  static const kb::test::Tree t = kb::test::make_tree(kb::test::seed_like_files());
  return t;
}

// A relative href of `page` resolved inside the site, without query and fragment.
fs::path resolve(const fs::path& page, std::string href) {
  href = href.substr(0, href.find_first_of("?#"));
  return (page.parent_path() / href).lexically_normal();
}

}  // namespace

TEST_CASE("kb site writes every page, the JSON and YAML beside each, feed, index, assets",
          "[pages]") {
  const fs::path out = temp_dir("site");
  const auto report = kb::site::write_site(tree().linted, {out, {}});
  std::set<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.is_regular_file()) files.insert(fs::relative(e.path(), out).generic_string());
  }
  const std::set<std::string> expected = {".kb-site",
                                          "404.html",
                                          "api/v1/openapi.json",
                                          "check/index.html",
                                          "diagnostics.html",
                                          "feed.xml",
                                          "index.html",
                                          "search-index.js",
                                          "search.html",
                                          "static/favicon.svg",
                                          "static/kb.css",
                                          "static/search.js",
                                          "settings/batch-invariant.html",
                                          "settings/batch-invariant.json",
                                          "settings/batch-invariant.yaml",
                                          "settings/kv-offload.html",
                                          "settings/kv-offload.json",
                                          "settings/kv-offload.yaml",
                                          "settings/kv-transfer.html",
                                          "settings/kv-transfer.json",
                                          "settings/kv-transfer.yaml",
                                          "engines/lmcache.html",
                                          "engines/lmcache.json",
                                          "engines/lmcache.yaml",
                                          "engines/mooncake.html",
                                          "engines/mooncake.json",
                                          "engines/mooncake.yaml",
                                          "engines/nixl.html",
                                          "engines/nixl.json",
                                          "engines/nixl.yaml",
                                          "engines/vllm.html",
                                          "engines/vllm.json",
                                          "engines/vllm.yaml",
                                          "gotchas/pd-batch-invariant.html",
                                          "gotchas/pd-batch-invariant.json",
                                          "gotchas/pd-batch-invariant.yaml",
                                          "gotchas/pd-cache-hit.html",
                                          "gotchas/pd-cache-hit.json",
                                          "gotchas/pd-cache-hit.yaml",
                                          "oracles/monolithic-equivalence.html",
                                          "oracles/monolithic-equivalence.json",
                                          "oracles/monolithic-equivalence.yaml",
                                          "results/mooncake-control.html",
                                          "results/mooncake-control.json",
                                          "results/mooncake-control.yaml",
                                          "results/run-a.html",
                                          "results/run-a.json",
                                          "results/run-a.yaml",
                                          "results/run-b.html",
                                          "results/run-b.json",
                                          "results/run-b.yaml",
                                          "schemas/engines.schema.json",
                                          "schemas/gotchas.schema.json",
                                          "schemas/models.schema.json",
                                          "schemas/oracles.schema.json",
                                          "schemas/results.schema.json",
                                          "schemas/settings.schema.json",
                                          "schemas/vocabulary.schema.json"};
  CHECK(files == expected);
  CHECK(report.files == expected.size());
  CHECK(report.pages == 18);  // the results have pages too
  CHECK(kb::test::read_text(out / "gotchas/pd-cache-hit.yaml") ==
        tree().linted.corpus->find("gotchas/pd-cache-hit")->source_text);
  // The JSON Schemas are the repository's own (schemas/, generated by kb schema).
  for (const char* name : {"gotchas", "engines", "settings"}) {
    const std::string file = std::string("schemas/") + name + ".schema.json";
    INFO(file);
    CHECK(kb::test::read_text(out / file) == kb::test::read_text(fs::path(KB_SOURCE_DIR) / file));
  }
  // The static search page has no box for a log: nothing could read it without a server.
  CHECK(kb::test::read_text(out / "search.html").find("log-form") == std::string::npos);
  // The vocabulary they refer to names this site's records (the test tree's vllm engine).
  const auto vocabulary =
      nlohmann::json::parse(kb::test::read_text(out / "schemas/vocabulary.schema.json"));
  CHECK(vocabulary["$defs"].contains("engine"));
  CHECK(vocabulary["$defs"]["engine"]["pattern"].get<std::string>().find("[vV][lL][lL][mM]") !=
        std::string::npos);
  fs::remove_all(out.parent_path());
}

TEST_CASE("every link of the static site is relative and lands on one of its files", "[pages]") {
  const fs::path out = temp_dir("links");
  kb::site::write_site(tree().linted, {out, {}});
  std::size_t checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.path().extension() != ".html") continue;
    // 404.html links from the base path: it is answered for paths that do not exist (the
    // next test); resolved from the site's root, its links land on files too.
    const bool not_found = e.path().filename() == "404.html";
    auto doc = kb::test::parse_page(kb::test::read_text(e.path()));
    REQUIRE(doc->first_child());
    for (const char* xpath : {"//a/@href", "//link/@href", "//script/@src", "//form/@action"}) {
      for (const auto& n : doc->select_nodes(xpath)) {
        const std::string href = n.attribute().value();
        INFO(e.path().string() << ": " << href);
        if (href.rfind("https://", 0) == 0 || href.rfind("#", 0) == 0) continue;
        CHECK(href.find(':') == std::string::npos);
        if (not_found) {
          CHECK(href.rfind("/", 0) == 0);
          CHECK(fs::is_regular_file(out / href.substr(1, href.find_first_of("?#") - 1)));
          ++checked;
          continue;
        }
        CHECK(href.rfind("/", 0) == std::string::npos);
        CHECK(fs::is_regular_file(resolve(e.path(), href)));
        ++checked;
      }
    }
  }
  CHECK(checked > 150);
  fs::remove_all(out.parent_path());
}

TEST_CASE("the static site's check page is marked live-only and has no form", "[pages][site]") {
  const fs::path out = temp_dir("check");
  kb::site::write_site(tree().linted, {out, {}});
  std::string error;
  auto doc = kb::test::parse_page(kb::test::read_text(out / "check/index.html"), &error);
  INFO(error);
  REQUIRE(doc->first_child());
  const auto& d = *doc;
  CHECK(kb::test::text_at(d, "//h1") == "Am I affected?");
  CHECK(kb::test::text_at(d, "//p[@id='live-only']")
            .rfind("This page needs a running kb serve: the static site cannot check", 0) == 0);
  // The header's search box is the only form: nothing posts to a server that is not there.
  CHECK(kb::test::attrs_at(d, "//form", "action") == std::vector<std::string>{"../search.html"});
  CHECK(!d.select_node("//textarea"));
  CHECK(kb::test::text_at(d, "//h2[@id='cli']/following-sibling::pre[1]") ==
        "kb check deployment.yaml");
  CHECK(kb::test::text_at(d, "//h2[@id='api']/following-sibling::pre[1]")
            .find("curl -sS -X POST --data-binary @deployment.yaml") == 0);
  CHECK(kb::test::text_at(d, "//h2[@id='api']/following-sibling::pre[1]")
            .find("/api/v1/check?fail_on=blocker") != std::string::npos);
  // The header of every page links to it.
  auto home = kb::test::parse_page(kb::test::read_text(out / "index.html"));
  CHECK(kb::test::attrs_at(*home, "//header/nav/a[.='Am I affected?']", "href") ==
        std::vector<std::string>{"check/index.html"});
  CHECK(kb::test::attrs_at(d, "//header/nav/a[.='Am I affected?']", "href") ==
        std::vector<std::string>{"../check/index.html"});
  fs::remove_all(out.parent_path());
}

// Every file under `dir`, relative, '/'-separated.
std::set<std::string> files_under(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_directory()) out.insert(fs::relative(e.path(), dir).generic_string());
  }
  return out;
}

void spit(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

TEST_CASE("a rebuild removes the pages it no longer writes, and only those", "[pages][site]") {
  // Before: a rebuild replaced the whole directory, so a gh-pages .git/, a CNAME or notes
  // put beside the site were deleted without a word.
  const fs::path out = temp_dir("swap");
  kb::site::write_site(tree().linted, {out, {}});
  spit(out / "left-over.html", "mine");
  spit(out / "CNAME", "kb.example.org\n");
  spit(out / ".git/HEAD", "ref: refs/heads/gh-pages\n");
  spit(out / "gotchas/my-notes.txt", "notes in a directory kb made");
  auto small = kb::test::make_tree({{"engines/vllm.yaml", "name: vLLM\n"}});
  kb::site::write_site(small.linted, {out, {}});
  CHECK(kb::test::read_text(out / "left-over.html") == "mine");
  CHECK(kb::test::read_text(out / "CNAME") == "kb.example.org\n");
  CHECK(kb::test::read_text(out / ".git/HEAD") == "ref: refs/heads/gh-pages\n");
  CHECK(kb::test::read_text(out / "gotchas/my-notes.txt") == "notes in a directory kb made");
  CHECK(!fs::exists(out / "gotchas/pd-cache-hit.html"));
  CHECK(!fs::exists(out / "oracles"));  // kb made it, and nothing else is in it now
  CHECK(fs::exists(out / "engines/vllm.html"));
  const std::set<std::string> left = files_under(out);
  const std::set<std::string> expected = {".git/HEAD",
                                          ".kb-site",
                                          "api/v1/openapi.json",
                                          "404.html",
                                          "CNAME",
                                          "check/index.html",
                                          "diagnostics.html",
                                          "engines/vllm.html",
                                          "engines/vllm.json",
                                          "engines/vllm.yaml",
                                          "feed.xml",
                                          "gotchas/my-notes.txt",
                                          "index.html",
                                          "left-over.html",
                                          "search-index.js",
                                          "search.html",
                                          "static/favicon.svg",
                                          "static/kb.css",
                                          "static/search.js",
                                          "schemas/engines.schema.json",
                                          "schemas/gotchas.schema.json",
                                          "schemas/models.schema.json",
                                          "schemas/oracles.schema.json",
                                          "schemas/results.schema.json",
                                          "schemas/settings.schema.json",
                                          "schemas/vocabulary.schema.json"};
  CHECK(left == expected);
  std::size_t siblings = 0;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    (void)e;
    ++siblings;
  }
  CHECK(siblings == 1);  // nothing written beside it
  fs::remove_all(out.parent_path());
}

TEST_CASE("the manifest lists what kb wrote and the directories it made", "[pages][site]") {
  const fs::path out = temp_dir("manifest");
  fs::create_directories(out / "engines");  // the user's: never kb's to remove
  auto small = kb::test::make_tree({{"engines/vllm.yaml", "name: vLLM\n"}});
  kb::site::write_site(small.linted, {out, {}});
  const std::string manifest = kb::test::read_text(out / ".kb-site");
  CHECK(manifest.rfind("# kb site manifest", 0) == 0);
  CHECK(manifest.find("\nstatic/\n") != std::string::npos);
  CHECK(manifest.find("\nengines/\n") == std::string::npos);
  CHECK(manifest.find("\nengines/vllm.html\n") != std::string::npos);
  CHECK(manifest.find("\nindex.html\n") != std::string::npos);
  auto none =
      kb::test::make_tree({{"gotchas/g.yaml", "title: G\nseverity: minor\nstatus: open\n"}});
  kb::site::write_site(none.linted, {out, {}});
  CHECK(fs::is_directory(out / "engines"));  // emptied, but not made by kb
  CHECK(fs::is_empty(out / "engines"));
  fs::remove_all(out.parent_path());
}

TEST_CASE("kb site refuses to overwrite a file it did not write, unless forced", "[pages][site]") {
  const fs::path out = temp_dir("foreign");
  spit(out / "thesis.tex", "precious");
  spit(out / "index.html", "my own home page");
  try {
    kb::site::write_site(tree().linted, {out, {}});
    FAIL("no error");
  } catch (const kb::Error& e) {
    CHECK(e.code() == kb::Errc::invalid_argument);
    CHECK(std::string(e.what()) == "kb site did not write " + (out / "index.html").string() +
                                       "; refusing to overwrite (pass --force to replace it)");
  }
  CHECK(files_under(out) == std::set<std::string>{"index.html", "thesis.tex"});
  CHECK(kb::test::read_text(out / "index.html") == "my own home page");

  kb::site::write_site(tree().linted, {out, {}, true});
  CHECK(kb::test::read_text(out / "index.html") != "my own home page");
  CHECK(kb::test::read_text(out / "thesis.tex") == "precious");
  // From now on index.html is kb's: a rebuild needs no --force.
  kb::site::write_site(tree().linted, {out, {}});
  fs::remove_all(out.parent_path());
}

TEST_CASE("an edited manifest cannot make kb remove anything outside the site", "[pages][site]") {
  const fs::path out = temp_dir("hostile");
  const fs::path outside = out.parent_path() / "outside.txt";
  spit(outside, "keep me");
  spit(out / "sub/kept.txt", "keep me too");
  fs::create_symlink(out / "sub", out / "link");
  spit(out / ".kb-site",
       "# kb site manifest\n../outside.txt\n" + outside.string() + "\nlink/kept.txt\n./x\nsub/\n");
  kb::site::write_site(tree().linted, {out, {}});
  CHECK(kb::test::read_text(outside) == "keep me");
  CHECK(kb::test::read_text(out / "sub/kept.txt") == "keep me too");
  fs::remove_all(out.parent_path());
}

TEST_CASE("a site written by an older kb is rebuilt in place, nothing removed", "[pages][site]") {
  const fs::path out = temp_dir("legacy");
  spit(out / ".kb-site", "written by kb site; the whole directory is replaced on the next run\n");
  spit(out / "index.html", "old kb's page");
  spit(out / "CNAME", "kb.example.org\n");
  kb::site::write_site(tree().linted, {out, {}});
  CHECK(kb::test::read_text(out / "index.html") != "old kb's page");
  CHECK(kb::test::read_text(out / "CNAME") == "kb.example.org\n");
  CHECK(kb::test::read_text(out / ".kb-site").rfind("# kb site manifest", 0) == 0);
  fs::remove_all(out.parent_path());
}

TEST_CASE("a failed template leaves the old site in place", "[pages]") {
  const fs::path out = temp_dir("failed");
  kb::site::write_site(tree().linted, {out, {}});
  const fs::path web = out.parent_path() / "web";
  fs::create_directories(web / "templates");
  { std::ofstream(web / "templates" / "oracle.mustache") << "{{#unclosed}}"; }
  const std::string manifest = kb::test::read_text(out / ".kb-site");
  const std::set<std::string> before = files_under(out);
  CHECK_THROWS_AS(kb::site::write_site(tree().linted, {out, web}), kb::Error);
  CHECK(fs::exists(out / "oracles/monolithic-equivalence.html"));
  CHECK(files_under(out) == before);  // no staged file left behind
  CHECK(kb::test::read_text(out / ".kb-site") == manifest);
  std::size_t siblings = 0;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    (void)e;
    ++siblings;
  }
  CHECK(siblings == 2);  // the site and the web dir; the half-written one is gone
  fs::remove_all(out.parent_path());
}

TEST_CASE("a new site directory appears whole, or not at all", "[pages][site]") {
  const fs::path out = temp_dir("fresh") / "site";
  fs::create_directories(out.parent_path());
  const auto siblings = [&] {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(out.parent_path()))
      names.insert(e.path().filename().string());
    return names;
  };
  // A failed build into a directory that did not exist leaves nothing behind.
  const fs::path web = out.parent_path().parent_path() / "web-fresh";
  fs::create_directories(web / "templates");
  { std::ofstream(web / "templates" / "oracle.mustache") << "{{#unclosed}}"; }
  CHECK_THROWS_AS(kb::site::write_site(tree().linted, {out, web}), kb::Error);
  CHECK_FALSE(fs::exists(out));
  CHECK(siblings().empty());
  // Built in a hidden directory beside it and renamed into place: only the site is left.
  const auto report = kb::site::write_site(tree().linted, {out, {}});
  CHECK(siblings() == std::set<std::string>{"site"});
  CHECK(fs::exists(out / "oracles/monolithic-equivalence.html"));
  CHECK(files_under(out).size() == report.files);
  const std::string manifest = kb::test::read_text(out / ".kb-site");
  CHECK(manifest.find("\noracles/monolithic-equivalence.html\n") != std::string::npos);
  CHECK(manifest.find("\noracles/\n") != std::string::npos);
  // The next build replaces it in place, as any existing site.
  const auto again = kb::site::write_site(tree().linted, {out, {}});
  CHECK(again.files == report.files);
  CHECK(siblings() == std::set<std::string>{"site"});
  fs::remove_all(out.parent_path().parent_path());
}

TEST_CASE("kb site: 404.html links from the path the site is served from", "[pages]") {
  // A static host answers /gotchas/x/y/z with 404.html: links relative to that path would
  // point nowhere, so they start at the site's base path.
  const fs::path out = temp_dir("site-404");
  kb::site::write_site(tree().linted, {out, {}});
  const std::string root = contents(out / "404.html");
  CHECK(root.find("href=\"/static/kb.css\"") != std::string::npos);
  CHECK(root.find("href=\"static/kb.css\"") == std::string::npos);
  const fs::path repo = temp_dir("site-404-repo");
  kb::site::SiteOptions options{repo, {}};
  options.base_path = "/kb";
  kb::site::write_site(tree().linted, options);
  const std::string page = contents(repo / "404.html");
  CHECK(page.find("href=\"/kb/static/kb.css\"") != std::string::npos);
  CHECK(page.find("href=\"/kb/index.html\"") != std::string::npos);
  // Every other page keeps relative links (it works offline and below any path).
  CHECK(contents(repo / "index.html").find("href=\"static/kb.css\"") != std::string::npos);
}
