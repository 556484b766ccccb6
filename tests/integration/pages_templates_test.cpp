// Templates are parsed once with their partials spliced in: the bytes must be those
// kainjow gives when it resolves each partial itself, from every thread at once.

#include <catch2/catch.hpp>

#include <unistd.h>

#include <thread>

#include "kainjow_data.h"
#include "kb/error.h"
#include "markdown.h"
#include "pages_fixture.h"
#include "pages_internal.h"

namespace fs = std::filesystem;
using kb::pages::Data;
using kb::pages::List;
using kb::pages::Templates;

namespace {

fs::path web_dir(const std::string& name) {
  const fs::path p =
      fs::temp_directory_path() / ("kb-templates-test-" + std::to_string(::getpid())) / name;
  fs::remove_all(p);
  fs::create_directories(p / "templates");
  return p;
}

void put_file(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / "templates" / name, std::ios::binary) << text;
}

// What the renderer did before splicing: every partial registered as data, parsed by
// kainjow at each use.
std::string kainjow_render(const std::string& text,
                           const std::vector<std::pair<std::string, std::string>>& partials,
                           const Data& data) {
  kainjow::mustache::data k = kb::test::to_kainjow(data);
  for (const auto& [name, body] : partials) {
    k.set(name, kainjow::mustache::partial([body = body] { return body; }));
  }
  kainjow::mustache::mustache tmpl(text);
  REQUIRE(tmpl.is_valid());
  tmpl.set_custom_escape([](const std::string& s) { return kb::pages::escape_html(s); });
  return tmpl.render(k);
}

Data item(const std::string& name, bool flag) {
  Data d;
  d.set("name", name);
  d.set("flag", flag);
  return d;
}

const kb::test::Tree& tree() {
  static const kb::test::Tree t = kb::test::make_tree(kb::test::seed_like_files());
  return t;
}

}  // namespace

TEST_CASE("spliced partials render the bytes kainjow renders when it resolves them", "[pages]") {
  const std::vector<std::pair<std::string, std::string>> partials = {
      {"row", "<li>{{name}}{{#flag}} <b>on</b>{{/flag}}{{>mark}}</li>\n"},
      {"mark", "{{^flag}}  *{{/flag}}"},
      {"block", "{{#items}}\n{{>row}}\n{{/items}}\n  {{^items}}\nnone\n{{/items}}\n"}};
  const std::string page =
      "<h1>{{title}}</h1>\n{{>block}}\n  {{> row }}  \n{{#nested}}{{>block}}{{/nested}}"
      "{{>missing}}<p>{{{raw}}} {{&raw}}</p>\r\n{{>mark}}";
  const fs::path dir = web_dir("splice");
  for (const auto& [name, body] : partials) put_file(dir, "_" + name + ".mustache", body);
  put_file(dir, "page.mustache", page);

  Data data;
  data.set("title", "a < b");
  data.set("name", "top");
  data.set("raw", "<i>x</i>");
  data.set("items", List{item("one", true), item("two & three", false)});
  Data nested;
  nested.set("items", List{});
  data.set("nested", std::move(nested));

  const Templates templates(dir);
  const std::string expected = kainjow_render(page, partials, data);
  CHECK(expected.find("<li>two &amp; three  *</li>") != std::string::npos);
  CHECK(templates.render("page", data) == expected);
  CHECK(templates.render("page", data) == expected);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("a template edited under the web directory is parsed again", "[pages]") {
  const fs::path dir = web_dir("edit");
  put_file(dir, "_name.mustache", "<b>{{name}}</b>");
  put_file(dir, "page.mustache", "[{{>name}}]");
  const Templates templates(dir);
  Data data;
  data.set("name", "x");
  CHECK(templates.render("page", data) == "[<b>x</b>]");
  put_file(dir, "_name.mustache", "<i>{{name}}</i>");
  CHECK(templates.render("page", data) == "[<i>x</i>]");
  put_file(dir, "page.mustache", "({{>name}})");
  CHECK(templates.render("page", data) == "(<i>x</i>)");
  fs::remove_all(dir.parent_path());
}

TEST_CASE("templates that splicing would change are refused", "[pages]") {
  // (partial, page): a section the partial leaves open, a partial that includes itself,
  // a '{' that would join the page's '{' into a tag, delimiters the partial would leak.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{{#section}}", "{{>p}}{{/section}}"},
      {"again {{>p}}", "{{>p}}"},
      {"{", "{{>p}}{x}}"},
      {"{{=<% %>=}}<%x%>", "{{>p}}"},
      {"x", "{{=<% %>=}}<%>p%>"}};
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(i);
    const fs::path dir = web_dir("refused-" + std::to_string(i));
    put_file(dir, "_p.mustache", cases[i].first);
    put_file(dir, "page.mustache", cases[i].second);
    const Templates templates(dir);
    CHECK_THROWS_AS(templates.render("page", Data{}), kb::Error);
  }
  const fs::path dir = web_dir("unused");
  put_file(dir, "_broken.mustache", "{{#section}}");
  put_file(dir, "page.mustache", "fine");
  CHECK(Templates(dir).render("page", Data{}) == "fine");
  fs::remove_all(dir.parent_path());
}

TEST_CASE("one Renderer renders the same pages from many threads at once", "[pages]") {
  const kb::pages::Renderer renderer(kb::pages::LinkStyle::live);
  const auto view = tree().view();
  std::vector<const kb::Record*> records;
  std::vector<std::string> expected;
  for (const auto& r : tree().linted.corpus->records()) {
    if (auto html = renderer.record(view, *r)) {
      records.push_back(r.get());
      expected.push_back(std::move(*html));
    }
  }
  REQUIRE(records.size() == 13);  // gotchas, engines, the oracle, settings, results
  const std::string home = renderer.home(view);
  constexpr int kThreads = 8;
  std::vector<int> mismatches(kThreads, 0);
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < 20; ++round) {
          for (std::size_t i = 0; i < records.size(); ++i) {
            if (*renderer.record(view, *records[i]) != expected[i]) ++mismatches[t];
          }
          if (renderer.home(view) != home) ++mismatches[t];
        }
      });
    }
  }
  CHECK(mismatches == std::vector<int>(kThreads, 0));
}
