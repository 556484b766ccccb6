// What `kb oracle run` records, on the pages: the first divergence and an interrupted
// run beside the result in a gotcha's evidence table, and an oracle's runner.

#include <catch2/catch.hpp>

#include "pages_fixture.h"

using kb::pages::LinkStyle;
using kb::pages::Renderer;
using kb::test::parse_page;
using kb::test::text_at;

namespace {

const kb::test::Tree& tree() {
  static const kb::test::Tree t = kb::test::make_tree({
      {"engines/vllm.yaml", "name: vLLM\nprobe:\n  - {path: /version, version: version}\n"},
      {"oracles/cold-vs-warm.yaml",
       "title: Cold versus warm\nrunner:\n  kind: cold-vs-warm\n  params: {warm_runs: 3}\n"},
      {"gotchas/warm-differs.yaml",
       "title: Warm runs differ\nseverity: major\nstatus: open\naffects: [vllm]\n"
       "symptom: |\n  They differ.\noracles: [cold-vs-warm]\n"},
      {"results/run-1.yaml",
       "oracle: cold-vs-warm\ndate: 2026-10-05\nsubject:\n  engines: [{engine: vllm, version: "
       "0.26.0}]\n  model: toy-model\npassed: 3\nfailed: 1\nskipped: 2\nincomplete: true\n"
       "evidence_for: [warm-differs]\nfailures:\n  - {prompt: 2, trial: 1, run: 1, position: 17,"
       " compared: tokens, expected: a b, got: a c}\n"},
  });
  return t;
}

std::unique_ptr<pugi::xml_document> page(const char* id) {
  const Renderer r(LinkStyle::live);
  const kb::Record* rec = tree().linted.corpus->find(id);
  REQUIRE(rec != nullptr);
  auto html = r.record(tree().view(), *rec);
  REQUIRE(html);
  std::string error;
  auto doc = parse_page(*html, &error);
  INFO(error);
  REQUIRE(doc->first_child());
  return doc;
}

}  // namespace

TEST_CASE("the fixture tree of oracle runs lints clean", "[pages][oracle]") {
  CHECK(tree().linted.corpus->diagnostics().empty());
}

TEST_CASE("gotcha page: a result's first divergence and an interrupted run", "[pages][oracle]") {
  auto doc = page("gotchas/warm-differs");
  CHECK(text_at(*doc, "//section[@id='evidence']//tbody/tr[1]/td[2]/span[@class='meta detail']") ==
        "(first divergence: prompt 2, token 17; interrupted run)");
  CHECK(text_at(*doc, "//section[@id='evidence']//tbody/tr[1]/td[4]") == "1");
}

TEST_CASE("oracle page: the runner and how to run it", "[pages][oracle]") {
  auto doc = page("oracles/cold-vs-warm");
  CHECK(text_at(*doc, "//section[@id='runner']/p/code[1]") == "cold-vs-warm (warm_runs: 3)");
  CHECK(text_at(*doc, "//section[@id='runner']/p/code[2]") ==
        "kb oracle run cold-vs-warm --subject URL");
}
