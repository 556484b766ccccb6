#include <catch2/catch.hpp>

#include "../test_files.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/results_import.h"

namespace fs = std::filesystem;
using kb::ReportFormat;
using kb::ReportParse;

namespace {

using kb::test::read_file;

ReportParse parse_fixture(const std::string& name) {
  return kb::parse_report(read_file(fs::path(KB_TEST_DATA) / "junit" / name), name);
}

std::string dump(const std::vector<kb::Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) {
    s += std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.code + " " + d.message +
         "\n";
  }
  return s;
}

std::shared_ptr<const kb::Corpus> corpus_of(const std::map<std::string, std::string>& files) {
  std::vector<kb::FileResult> loaded;
  for (const auto& [file, text] : files) loaded.push_back(kb::load_record_text(file, text));
  return kb::Corpus::from_files("records", std::move(loaded));
}

const std::map<std::string, std::string> kTree = {
    {"engines/vllm.yaml", "name: vLLM\n"},
    {"engines/lmcache.yaml", "name: LMCache\naliases: [lm-cache]\n"},
    {"oracles/monolithic-equivalence.yaml", "title: Monolithic equivalence\n"},
    {"gotchas/pd.yaml", "title: PD\nseverity: blocker\nstatus: open\nsymptom: x\n"},
};

kb::ResultSpec spec_for_tree() {
  kb::ResultSpec spec;
  spec.oracle = "monolithic-equivalence";
  spec.date = "2026-09-30";
  spec.subject.engines = kb::parse_subject_spec("vllm@0.26.0, lm-cache");
  spec.subject.config = kb::parse_config_spec("kv_transfer=pd,connector=lmcache");
  spec.evidence_for = {"pd"};
  return spec;
}

}  // namespace

TEST_CASE("JUnit: failures, errors and skips are counted per test case", "[results_import]") {
  auto r = parse_fixture("pytest-mixed.xml");
  INFO(dump(r.diagnostics));
  CHECK(r.format == ReportFormat::junit);
  CHECK(r.diagnostics.empty());
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 2);
  CHECK(r.counts->failed == 2);
  CHECK(r.counts->errors == 1);
  CHECK(r.counts->skipped == 1);
  CHECK(r.counts->failing ==
        std::vector<std::string>{"tests.test_pd_equivalence.test_prompt[long]",
                                 "tests.test_pd_equivalence.test_prompt[chat]",
                                 "tests.test_pd_equivalence.test_prompt[tools]"});
}

TEST_CASE("JUnit: ctest's single-suite report", "[results_import]") {
  auto r = parse_fixture("ctest.xml");
  INFO(dump(r.diagnostics));
  CHECK(r.diagnostics.empty());
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 2);
  CHECK(r.counts->failed == 1);
  CHECK(r.counts->errors == 0);
  CHECK(r.counts->skipped == 1);
}

TEST_CASE("JUnit: malformed XML is an error at its line and column", "[results_import]") {
  auto r = parse_fixture("malformed.xml");
  CHECK_FALSE(r.counts);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "results.malformed");
  CHECK(r.diagnostics[0].severity == kb::Severity::error);
  CHECK(r.diagnostics[0].file == "malformed.xml");
  CHECK(r.diagnostics[0].line == 5);
  CHECK(r.diagnostics[0].column == 5);
  CHECK(r.diagnostics[0].message == "malformed XML: Start-end tags mismatch");

  auto cut = kb::parse_junit("<testsuites>\n  <testsuite name=\"x\">\n", "cut.xml");
  REQUIRE(cut.diagnostics.size() == 1);
  CHECK(cut.diagnostics[0].code == "results.malformed");
  CHECK(cut.diagnostics[0].line == 2);  // the end of the text
  CHECK(cut.diagnostics[0].column == 23);
}

TEST_CASE("JUnit: an empty report and a non-JUnit document are errors", "[results_import]") {
  auto empty = parse_fixture("empty.xml");
  CHECK_FALSE(empty.counts);
  REQUIRE(empty.diagnostics.size() == 1);
  CHECK(empty.diagnostics[0].code == "results.empty");

  auto html = parse_fixture("not-junit.xml");
  CHECK_FALSE(html.counts);
  REQUIRE(html.diagnostics.size() == 1);
  CHECK(html.diagnostics[0].code == "results.bad-shape");
  CHECK(html.diagnostics[0].line == 2);
  CHECK(html.diagnostics[0].column == 1);
  CHECK(html.diagnostics[0].message == "root element is <html>, not <testsuites> or <testsuite>");

  auto nothing = kb::parse_report("", "nothing.xml", ReportFormat::junit);
  CHECK_FALSE(nothing.counts);
  REQUIRE(nothing.diagnostics.size() == 1);
  CHECK(nothing.diagnostics[0].code == "results.malformed");
}

TEST_CASE("JUnit: suite totals that disagree with the test cases are warnings",
          "[results_import]") {
  auto r = parse_fixture("mismatch.xml");
  INFO(dump(r.diagnostics));
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 2);
  CHECK(r.counts->failed == 1);
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].code == "results.count-mismatch");
  CHECK(r.diagnostics[0].severity == kb::Severity::warning);
  CHECK(r.diagnostics[0].line == 1);
  CHECK(r.diagnostics[0].column == 1);
  CHECK(r.diagnostics[0].message ==
        "testsuites says failures=0 but its test cases give failures=1; using the test cases");
  CHECK(r.diagnostics[1].line == 2);
  CHECK(r.diagnostics[1].column == 3);
  CHECK(r.diagnostics[1].message ==
        "testsuite 'outer' says failures=0 but its test cases give failures=1; using the test "
        "cases");
}

TEST_CASE("JSON: a counts summary", "[results_import]") {
  auto r = parse_fixture("summary.json");
  CHECK(r.format == ReportFormat::json);
  CHECK(r.diagnostics.empty());
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 3);
  CHECK(r.counts->failed == 1);
  CHECK(r.counts->errors == 0);
  CHECK(r.counts->skipped == 2);

  auto total = kb::parse_json_summary(R"({"passed": 1, "failed": 1, "total": 3})", "t.json");
  REQUIRE(total.counts);
  REQUIRE(total.diagnostics.size() == 1);
  CHECK(total.diagnostics[0].code == "results.count-mismatch");
  CHECK(total.diagnostics[0].message == "total is 3 but the counts add up to 2; using the counts");
}

TEST_CASE("JSON: a list of test cases with outcomes", "[results_import]") {
  auto r = parse_fixture("cases.json");
  INFO(dump(r.diagnostics));
  CHECK(r.diagnostics.empty());
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 1);
  CHECK(r.counts->failed == 2);
  CHECK(r.counts->errors == 1);
  CHECK(r.counts->skipped == 1);
  CHECK(r.counts->failing == std::vector<std::string>{"long", "chat", "tools"});
}

TEST_CASE("JSON: pytest-json-report's summary and tests", "[results_import]") {
  auto r = parse_fixture("pytest-json-report.json");
  INFO(dump(r.diagnostics));
  CHECK(r.diagnostics.empty());
  REQUIRE(r.counts);
  CHECK(r.counts->passed == 2);
  CHECK(r.counts->failed == 1);
  CHECK(r.counts->failing == std::vector<std::string>{"tests/test_pd.py::test_prompt[long]"});
}

TEST_CASE("JSON: bad reports are errors at their position", "[results_import]") {
  auto outcome = parse_fixture("bad-outcome.json");
  CHECK_FALSE(outcome.counts);
  REQUIRE(outcome.diagnostics.size() == 1);
  CHECK(outcome.diagnostics[0].code == "results.unknown-outcome");
  CHECK(outcome.diagnostics[0].line == 3);
  CHECK(outcome.diagnostics[0].column == 28);

  auto syntax = parse_fixture("malformed.json");
  CHECK_FALSE(syntax.counts);
  REQUIRE_FALSE(syntax.diagnostics.empty());
  CHECK(syntax.diagnostics[0].severity == kb::Severity::error);
  CHECK(syntax.diagnostics[0].line == 3);

  auto count = kb::parse_json_summary(R"({"passed": -1, "failed": 2})", "c.json");
  CHECK_FALSE(count.counts);
  REQUIRE(count.diagnostics.size() == 1);
  CHECK(count.diagnostics[0].code == "results.bad-count");
  CHECK(count.diagnostics[0].column == 12);

  auto shape = kb::parse_json_summary(R"({"duration": 3})", "s.json");
  CHECK_FALSE(shape.counts);
  REQUIRE(shape.diagnostics.size() == 1);
  CHECK(shape.diagnostics[0].code == "results.bad-shape");

  auto empty = kb::parse_json_summary("[]", "e.json");
  CHECK_FALSE(empty.counts);
  REQUIRE(empty.diagnostics.size() == 1);
  CHECK(empty.diagnostics[0].code == "results.empty");

  auto skips = kb::parse_json_summary(R"({"passed": 0, "failed": 0, "skipped": 4})", "k.json");
  REQUIRE(skips.counts);
  REQUIRE(skips.diagnostics.size() == 1);
  CHECK(skips.diagnostics[0].code == "results.inconclusive");
  CHECK(skips.diagnostics[0].severity == kb::Severity::warning);
}

TEST_CASE("subject, config and source flags", "[results_import]") {
  auto engines = kb::parse_subject_spec("vllm@0.26.0, lmcache ,nixl@v0.4");
  REQUIRE(engines.size() == 3);
  CHECK(engines[0].raw == "vllm");
  CHECK(engines[0].versions == "0.26.0");
  CHECK(engines[1].raw == "lmcache");
  CHECK(engines[1].versions.empty());
  CHECK(engines[2].versions == "v0.4");
  CHECK_THROWS_AS(kb::parse_subject_spec("vllm,,lmcache"), kb::Error);
  CHECK_THROWS_AS(kb::parse_subject_spec("vllm@not a version"), kb::Error);
  CHECK_THROWS_AS(kb::parse_subject_spec(""), kb::Error);

  auto config = kb::parse_config_spec("kv_transfer=pd, prefix_caching=true");
  CHECK(config == std::vector<kb::ConfigEntry>{{"kv_transfer", "pd"}, {"prefix_caching", "true"}});
  CHECK_THROWS_AS(kb::parse_config_spec("kv_transfer"), kb::Error);
  CHECK_THROWS_AS(kb::parse_config_spec("a=1,a=2"), kb::Error);

  auto issue =
      kb::citation_from_url("https://github.com/vllm-project/vllm/issues/52617#issuecomment-1");
  CHECK(issue.type == "issue");
  CHECK(issue.repo == "vllm-project/vllm");
  CHECK(issue.number == 52617);
  auto pr = kb::citation_from_url("https://github.com/vllm-project/vllm/pull/44455/files");
  CHECK(pr.type == "pr");
  CHECK(pr.number == 44455);
  auto commit = kb::citation_from_url("https://github.com/vllm-project/vllm/commit/98dff2a");
  CHECK(commit.type == "commit");
  CHECK(commit.ref == "98dff2a");
  auto short_form = kb::citation_from_url("LMCache/LMCache#1234");
  CHECK(short_form.type == "issue");
  CHECK(short_form.repo == "LMCache/LMCache");
  CHECK(short_form.number == 1234);
  auto url = kb::citation_from_url("https://ci.example.com/job/42");
  CHECK(url.type == "url");
  CHECK(url.url == "https://ci.example.com/job/42");
}

TEST_CASE("names resolve to canonical ids and a default id", "[results_import]") {
  auto corpus = corpus_of(kTree);
  auto spec = spec_for_tree();
  CHECK(kb::canonicalize(*corpus, spec).empty());
  CHECK(spec.oracle == "oracles/monolithic-equivalence");
  CHECK(spec.subject.engines[1].raw == "lmcache");
  CHECK(spec.evidence_for == std::vector<std::string>{"gotchas/pd"});
  CHECK(spec.id == "results/monolithic-equivalence-vllm-0-26-0-lmcache-2026-09-30");

  auto bad = spec_for_tree();
  bad.oracle = "monolithic-equivalense";
  bad.evidence_for = {"gotchas/nope"};
  bad.date = "2026-02-30";
  bad.id = "../escape";
  auto problems = kb::canonicalize(*corpus, bad);
  REQUIRE(problems.size() == 4);
  CHECK(problems[0] ==
        "oracle: no oracle 'monolithic-equivalense' in records (did you mean "
        "oracles/monolithic-equivalence?)");
  CHECK(problems[1].rfind("evidence-for: no gotcha 'gotchas/nope'", 0) == 0);
  CHECK(problems[2] == "date: '2026-02-30' is not YYYY-MM-DD");
  CHECK(problems[3].rfind("id: '../escape' is not a result id", 0) == 0);

  auto named = spec_for_tree();
  named.id = "run-a";
  CHECK(kb::canonicalize(*corpus, named).empty());
  CHECK(named.id == "results/run-a");
}

TEST_CASE("the written record loads clean and changes the gotcha's state", "[results_import]") {
  auto before = corpus_of(kTree);
  auto index_before = kb::EvidenceIndex::build(*before);
  CHECK(index_before.for_gotcha("gotchas/pd").state == kb::Reproduction::no_evidence);

  auto spec = spec_for_tree();
  REQUIRE(kb::canonicalize(*before, spec).empty());
  auto report = parse_fixture("pytest-mixed.xml");
  REQUIRE(report.counts);
  spec.counts = *report.counts;
  spec.source = kb::citation_from_url("https://github.com/vllm-project/vllm/issues/52617");
  spec.title = "LMCache P/D: \"run\" #3";
  const std::string text = kb::result_record_yaml(spec);

  CHECK(text ==
        "id: results/monolithic-equivalence-vllm-0-26-0-lmcache-2026-09-30\n"
        "title: \"LMCache P/D: \\\"run\\\" #3\"\n"
        "oracle: oracles/monolithic-equivalence\n"
        "date: 2026-09-30\n"
        "subject:\n"
        "  engines:\n"
        "    - {engine: vllm, version: 0.26.0}\n"
        "    - {engine: lmcache}\n"
        "  config:\n"
        "    kv_transfer: pd\n"
        "    connector: lmcache\n"
        "passed: 2\n"
        "failed: 2\n"
        "errors: 1\n"
        "skipped: 1\n"
        "evidence_for:\n"
        "  - gotchas/pd\n"
        "source: {type: issue, repo: vllm-project/vllm, number: 52617}\n"
        "notes: |\n"
        "  Failed or errored:\n"
        "  - tests.test_pd_equivalence.test_prompt[long]\n"
        "  - tests.test_pd_equivalence.test_prompt[chat]\n"
        "  - tests.test_pd_equivalence.test_prompt[tools]\n");

  const std::string file = spec.id.substr(8);
  auto loaded = kb::load_record_text("results/" + file + ".yaml", text);
  INFO(dump(loaded.diagnostics));
  CHECK(loaded.diagnostics.empty());
  REQUIRE(loaded.record);
  CHECK(loaded.record->result->failed == 2);
  CHECK(loaded.record->result->errors == 1);
  CHECK(loaded.record->result->subject.config.size() == 2);

  auto files = kTree;
  files["results/" + file + ".yaml"] = text;
  auto after = corpus_of(files);
  CHECK(after->diagnostics().empty());
  auto index_after = kb::EvidenceIndex::build(*after);
  const auto& s = index_after.for_gotcha("gotchas/pd");
  CHECK(s.state == kb::Reproduction::reproduced);
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].summary() == "vllm 0.26.0 + lmcache: 2/4 failed in 1 run, 1 error, 1 skipped");
}

TEST_CASE("notes that cannot be a literal block are quoted", "[results_import]") {
  kb::ResultSpec spec = spec_for_tree();
  spec.id = "results/x";
  spec.notes = "  leading spaces\nand a tab\there\n";
  const std::string text = kb::result_record_yaml(spec);
  CHECK(text.find("notes: \"  leading spaces\\nand a tab\\there\\n\"\n") != std::string::npos);
  auto loaded = kb::load_record_text("results/x.yaml", text);
  REQUIRE(loaded.record);
  CHECK(loaded.record->notes == spec.notes);
}

TEST_CASE("new files are written whole and never replace an existing one", "[results_import]") {
  const fs::path dir =
      fs::temp_directory_path() / ("kb-results-import-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const fs::path path = dir / "results" / "r.yaml";
  CHECK(kb::write_new_file(path, "id: results/r\n"));
  CHECK(read_file(path) == "id: results/r\n");
  CHECK_FALSE(kb::write_new_file(path, "something else\n"));
  CHECK(read_file(path) == "id: results/r\n");
  std::size_t entries = 0;
  for (const auto& e : fs::directory_iterator(dir / "results")) entries += e.is_regular_file();
  CHECK(entries == 1);  // no temporary left behind
  fs::remove_all(dir);
}
