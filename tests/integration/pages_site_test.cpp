// `kb site`: every page written, every relative link landing on a file of the site,
// and the directory replaced atomically (never a half-written or foreign directory).

#include <catch2/catch.hpp>

#include <unistd.h>
#include <set>

#include "kb/error.h"
#include "pages_fixture.h"
#include "site.h"

namespace fs = std::filesystem;

namespace {

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
                                          "diagnostics.html",
                                          "feed.xml",
                                          "index.html",
                                          "search-index.js",
                                          "search.html",
                                          "static/favicon.svg",
                                          "static/kb.css",
                                          "static/search.js",
                                          "settings/batch-invariant.json",
                                          "settings/batch-invariant.yaml",
                                          "settings/kv-offload.json",
                                          "settings/kv-offload.yaml",
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
                                          "results/mooncake-control.json",
                                          "results/mooncake-control.yaml",
                                          "results/run-a.json",
                                          "results/run-a.yaml",
                                          "results/run-b.json",
                                          "results/run-b.yaml"};
  CHECK(files == expected);
  CHECK(report.files == expected.size());
  CHECK(report.pages == 11);
  CHECK(kb::test::read_text(out / "gotchas/pd-cache-hit.yaml") ==
        tree().linted.corpus->find("gotchas/pd-cache-hit")->source_text);
  fs::remove_all(out.parent_path());
}

TEST_CASE("every link of the static site is relative and lands on one of its files", "[pages]") {
  const fs::path out = temp_dir("links");
  kb::site::write_site(tree().linted, {out, {}});
  std::size_t checked = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    if (e.path().extension() != ".html") continue;
    auto doc = kb::test::parse_page(kb::test::read_text(e.path()));
    REQUIRE(doc->first_child());
    for (const char* xpath : {"//a/@href", "//link/@href", "//script/@src", "//form/@action"}) {
      for (const auto& n : doc->select_nodes(xpath)) {
        const std::string href = n.attribute().value();
        INFO(e.path().string() << ": " << href);
        if (href.rfind("https://", 0) == 0 || href.rfind("#", 0) == 0) continue;
        CHECK(href.find(':') == std::string::npos);
        CHECK(href.rfind("/", 0) == std::string::npos);
        CHECK(fs::is_regular_file(resolve(e.path(), href)));
        ++checked;
      }
    }
  }
  CHECK(checked > 150);
  fs::remove_all(out.parent_path());
}

TEST_CASE("kb site swaps the new site in and removes the old one", "[pages]") {
  const fs::path out = temp_dir("swap");
  kb::site::write_site(tree().linted, {out, {}});
  { std::ofstream(out / "left-over.html") << "old"; }
  auto small = kb::test::make_tree({{"engines/vllm.yaml", "name: vLLM\n"}});
  kb::site::write_site(small.linted, {out, {}});
  CHECK(!fs::exists(out / "left-over.html"));
  CHECK(!fs::exists(out / "gotchas/pd-cache-hit.html"));
  CHECK(fs::exists(out / "engines/vllm.html"));
  std::size_t siblings = 0;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    (void)e;
    ++siblings;
  }
  CHECK(siblings == 1);  // no temporary or old directory left beside it
  fs::remove_all(out.parent_path());
}

TEST_CASE("kb site refuses to replace a directory it did not write", "[pages]") {
  const fs::path out = temp_dir("foreign");
  fs::create_directories(out);
  { std::ofstream(out / "thesis.tex") << "precious"; }
  CHECK_THROWS_AS(kb::site::write_site(tree().linted, {out, {}}), kb::Error);
  CHECK(kb::test::read_text(out / "thesis.tex") == "precious");
  std::size_t siblings = 0;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    (void)e;
    ++siblings;
  }
  CHECK(siblings == 1);
  fs::remove_all(out.parent_path());
}

TEST_CASE("a failed template leaves the old site in place", "[pages]") {
  const fs::path out = temp_dir("failed");
  kb::site::write_site(tree().linted, {out, {}});
  const fs::path web = out.parent_path() / "web";
  fs::create_directories(web / "templates");
  { std::ofstream(web / "templates" / "oracle.mustache") << "{{#unclosed}}"; }
  CHECK_THROWS_AS(kb::site::write_site(tree().linted, {out, web}), kb::Error);
  CHECK(fs::exists(out / "oracles/monolithic-equivalence.html"));
  std::size_t siblings = 0;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    (void)e;
    ++siblings;
  }
  CHECK(siblings == 2);  // the site and the web dir; the half-written one is gone
  fs::remove_all(out.parent_path());
}
