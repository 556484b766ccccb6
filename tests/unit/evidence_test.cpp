#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "evidence_fixtures.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"

using kb::Corpus;
using kb::Diagnostic;
using kb::EvidenceIndex;
using kb::Reproduction;
using namespace evidence_fixtures;

TEST_CASE("linked results are grouped by oracle and subject", "[evidence]") {
  Files files = seed_like_tree();
  files["engines/sglang.yaml"] = engine("SGLang");
  auto corpus = corpus_of(files);
  INFO(dump(corpus->diagnostics()));
  REQUIRE(count_severity(corpus->diagnostics(), kb::Severity::error) == 0);

  auto index = EvidenceIndex::build(*corpus);
  const auto& s = index.for_gotcha("gotchas/pd");
  CHECK(s.state == Reproduction::reproduced);
  CHECK(s.failed == 10);
  CHECK(s.passed == 0);
  CHECK(s.runs == 4);
  CHECK(s.newest_date == "2026-10-02");

  REQUIRE(s.groups.size() == 3);
  CHECK(s.groups[0].oracle == "oracles/cold-vs-warm");
  CHECK(s.groups[0].summary() == "vllm: 1/1 failed in 1 run");
  CHECK(s.groups[1].oracle == "oracles/monolithic-equivalence");
  CHECK(s.groups[1].summary() == "vllm 0.26.0 + lmcache: 6/6 failed in 2 runs");
  CHECK(s.groups[1].results == std::vector<std::string>{"results/a", "results/b"});
  CHECK(s.groups[1].newest_date == "2026-09-30");
  CHECK(s.groups[1].engines ==
        std::vector<std::pair<std::string, std::string>>{{"vllm", "0.26.0"}, {"lmcache", ""}});
  CHECK(s.groups[2].summary() == "vllm 0.27.1 + lmcache: 3/3 failed in 1 run");

  REQUIRE(s.by_oracle.size() == 2);
  CHECK(s.by_oracle[1].oracle == "oracles/monolithic-equivalence");
  CHECK(s.by_oracle[1].failed == 9);
  CHECK(s.by_oracle[1].passed == 0);
  CHECK(s.by_oracle[1].runs == 3);

  REQUIRE(s.controls.size() == 2);
  CHECK(s.controls[0].summary() == "mooncake + vllm: 2/2 passed in 1 run");
  CHECK(s.controls[1].summary() == "nixl + vllm: 1/1 passed in 1 run");
  CHECK(s.controls_omitted == 0);

  CHECK(kb::summary_line(s) ==
        "reproduced: 10/10 failed in 4 runs (cold-vs-warm 1/1, monolithic-equivalence 9/9); "
        "2 passing controls");
}

TEST_CASE("passing results alone are not a reproduction", "[evidence]") {
  Files files = {{"engines/vllm.yaml", engine("vLLM")},
                 {"oracles/o.yaml", "title: O\n"},
                 {"gotchas/g.yaml", "title: G\nseverity: minor\nstatus: open\nsymptom: x\n"},
                 {"results/p.yaml", result("o", "[vllm]", "", 5, 0, "g")},
                 {"results/q.yaml", result("o", "[vllm]", "", 0, 0, "g")}};
  auto corpus = corpus_of(files);
  const auto index_s = EvidenceIndex::build(*corpus);
  const auto& s = index_s.for_gotcha("gotchas/g");
  CHECK(s.state == Reproduction::not_reproduced);
  CHECK(s.passed == 5);
  CHECK(s.runs == 2);
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].summary() == "vllm: 5/5 passed in 2 runs");
  CHECK(kb::summary_line(s) == "not reproduced: 5/5 passed in 2 runs");
}

TEST_CASE("a gotcha nothing links to has no evidence and no controls", "[evidence]") {
  auto corpus = corpus_of(seed_like_tree());
  auto index = EvidenceIndex::build(*corpus);
  const auto& s = index.for_gotcha("gotchas/nobody");
  CHECK(s.state == Reproduction::no_evidence);
  CHECK(s.groups.empty());
  CHECK(kb::summary_line(s) == "no evidence");

  Files files = seed_like_tree();
  files["gotchas/declared.yaml"] =
      "title: D\nseverity: major\nstatus: open\noracles: [monolithic-equivalence]\nsymptom: x\n";
  auto c2 = corpus_of(files);
  const auto index_d = EvidenceIndex::build(*c2);
  const auto& d = index_d.for_gotcha("gotchas/declared");
  CHECK(d.state == Reproduction::no_evidence);
  CHECK(d.controls.empty());

  EvidenceIndex empty;
  CHECK(empty.for_gotcha("gotchas/pd").state == Reproduction::no_evidence);
  CHECK(to_string(Reproduction::not_reproduced) == "not-reproduced");
}

TEST_CASE("controls come from oracles the gotcha declares, not only those its results use",
          "[evidence]") {
  Files files = seed_like_tree();
  // Link only the cold-vs-warm result; monolithic-equivalence is declared in `oracles:`.
  for (const char* f : {"results/a.yaml", "results/b.yaml", "results/c.yaml"}) {
    files[f] = result("monolithic-equivalence", "[vllm, lmcache]", "", 0, 1, "other");
  }
  files["engines/sglang.yaml"] = engine("SGLang");
  auto corpus = corpus_of(files);
  const auto index_s = EvidenceIndex::build(*corpus);
  const auto& s = index_s.for_gotcha("gotchas/pd");
  CHECK(s.state == Reproduction::reproduced);
  REQUIRE(s.groups.size() == 1);
  REQUIRE(s.controls.size() == 2);
  CHECK(s.controls[0].oracle == "oracles/monolithic-equivalence");
}

TEST_CASE("a subject that also has linked results is never a control", "[evidence]") {
  Files files = seed_like_tree();
  files["engines/sglang.yaml"] = engine("SGLang");
  files["results/nixl-linked.yaml"] = result("monolithic-equivalence", "[nixl, vllm]",
                                             "{connector: nixl, kv_transfer: pd}", 0, 1, "pd");
  auto corpus = corpus_of(files);
  const auto index_s = EvidenceIndex::build(*corpus);
  const auto& s = index_s.for_gotcha("gotchas/pd");
  REQUIRE(s.controls.size() == 1);
  CHECK(s.controls[0].subject == "mooncake + vllm");
}

TEST_CASE("config joins the subject label only where engines alone are ambiguous", "[evidence]") {
  Files files = {{"engines/vllm.yaml", engine("vLLM")},
                 {"oracles/o.yaml", "title: O\n"},
                 {"gotchas/g.yaml", "title: G\nseverity: minor\nstatus: open\nsymptom: x\n"},
                 {"results/pd.yaml", result("o", "[vllm]", "{kv_transfer: pd}", 0, 2, "g")},
                 {"results/mono.yaml", result("o", "[vllm]", "{kv_transfer: none}", 3, 0, "")},
                 {"results/bare.yaml", result("o", "[]", "{x: 1}", 1, 0, "")}};
  auto corpus = corpus_of(files);
  auto index = EvidenceIndex::build(*corpus);
  const auto& s = index.for_gotcha("gotchas/g");
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].summary() == "vllm [kv_transfer=pd]: 2/2 failed in 1 run");
  REQUIRE(s.controls.size() == 2);
  CHECK(s.controls[0].subject == "[x=1]");
  CHECK(s.controls[1].subject == "vllm [kv_transfer=none]");
  CHECK(index.results_for_oracle("oracles/o") ==
        std::vector<std::string>{"results/bare", "results/mono", "results/pd"});
  CHECK(index.results_for_oracle("oracles/none").empty());
}

TEST_CASE("errors and skips are counted but neither pass nor fail", "[evidence]") {
  Files files = {
      {"engines/vllm.yaml", engine("vLLM")},
      {"oracles/o.yaml", "title: O\n"},
      {"gotchas/g.yaml", "title: G\nseverity: minor\nstatus: open\nsymptom: x\n"},
      {"results/r.yaml", result("o", "[vllm]", "", 0, 0, "g") + "errors: 2\nskipped: 1\n"}};
  auto corpus = corpus_of(files);
  const auto index_s = EvidenceIndex::build(*corpus);
  const auto& s = index_s.for_gotcha("gotchas/g");
  CHECK(s.state == Reproduction::no_evidence);
  CHECK(s.errors == 2);
  REQUIRE(s.groups.size() == 1);
  CHECK(s.groups[0].summary() == "vllm: nothing passed or failed in 1 run, 2 errors, 1 skipped");
  CHECK(kb::summary_line(s) == "no evidence: 1 linked run, none passed or failed");
}

TEST_CASE("dates", "[evidence]") {
  CHECK(kb::date_to_days("1970-01-01") == 0);
  CHECK(kb::date_to_days("2026-10-03") == 20729);
  CHECK(kb::date_to_days("2024-02-29") == 19782);
  CHECK_FALSE(kb::date_to_days("2026-02-29"));
  CHECK_FALSE(kb::date_to_days("2026-1-03"));
  CHECK_FALSE(kb::date_to_days("2026-10-0x"));
  CHECK(kb::date_to_days(kb::today_date()).has_value());
}

TEST_CASE("building the index at 100k records keeps controls bounded", "[evidence][scale]") {
  std::vector<kb::FileResult> files;
  auto add = [&](std::shared_ptr<kb::Record> r) {
    kb::FileResult f;
    f.file = r->file;
    f.record = std::move(r);
    files.push_back(std::move(f));
  };
  for (int e = 0; e < 50; ++e) {
    auto r = std::make_shared<kb::Record>();
    r->kind = kb::Kind::engine;
    r->id = "engines/e" + std::to_string(e);
    r->file = r->id + ".yaml";
    r->engine->name = "E" + std::to_string(e);
    add(r);
  }
  for (int o = 0; o < 20; ++o) {
    auto r = std::make_shared<kb::Record>();
    r->kind = kb::Kind::oracle;
    r->id = "oracles/o" + std::to_string(o);
    r->file = r->id + ".yaml";
    r->title = "O";
    add(r);
  }
  for (int g = 0; g < 20000; ++g) {
    auto r = std::make_shared<kb::Record>();
    r->kind = kb::Kind::gotcha;
    r->id = "gotchas/g" + std::to_string(g);
    r->file = r->id + ".yaml";
    r->oracles.push_back({"o" + std::to_string(g % 20), "oracles[0]", {}, "", {}});
    add(r);
  }
  for (int i = 0; i < 80000; ++i) {
    auto r = std::make_shared<kb::Record>();
    r->kind = kb::Kind::result;
    r->id = "results/r" + std::to_string(i);
    r->file = r->id + ".yaml";
    r->result->oracle.raw = "o" + std::to_string(i % 20);
    r->result->date = "2026-09-" + std::to_string(10 + i % 20);
    // 1000 subjects, 50 per oracle; a subject either always fails or always passes.
    r->result->subject.engines.push_back(
        {"e" + std::to_string(i % 50), "", {}, std::to_string(i % 1000), {}});
    r->result->passed = i % 1000 % 3 == 0 ? 0 : 2;
    r->result->failed = i % 1000 % 3 == 0 ? 1 : 0;
    if (i % 2 == 0)
      r->result->evidence_for.push_back({"g" + std::to_string(i % 20000), "", {}, "", {}});
    add(r);
  }
  auto corpus = Corpus::from_files("mem", std::move(files));
  auto index = EvidenceIndex::build(*corpus);
  auto diags = index.check_claims(*corpus, "2026-10-05", 90);
  CHECK(index.for_gotcha("gotchas/g0").runs == 4);
  CHECK(index.for_gotcha("gotchas/g0").controls.size() == kb::kMaxControls);
  CHECK(index.for_gotcha("gotchas/g0").controls_omitted > 0);
}

TEST_CASE("the shipped records reproduce the seeds' figures", "[evidence][records]") {
  auto corpus = Corpus::load(std::string(KB_SOURCE_DIR) + "/records");
  auto index = EvidenceIndex::build(*corpus);

  const auto& seed0 = index.for_gotcha("gotchas/pd-cache-hit-silently-differs-from-cold-run");
  CHECK(seed0.state == Reproduction::reproduced);
  REQUIRE(seed0.by_oracle.size() == 2);
  CHECK(seed0.by_oracle[0].oracle == "oracles/cold-vs-warm-prefix-cache");
  CHECK(seed0.by_oracle[0].failed >= 1);
  CHECK(seed0.by_oracle[0].passed == 0);
  CHECK(seed0.by_oracle[1].oracle == "oracles/monolithic-equivalence");
  CHECK(seed0.by_oracle[1].failed == 9);
  CHECK(seed0.by_oracle[1].passed == 0);
  CHECK(seed0.by_oracle[1].runs == 3);

  std::vector<std::string> summaries;
  for (const auto& g : seed0.groups) {
    if (g.oracle == "oracles/monolithic-equivalence") summaries.push_back(g.summary());
  }
  CHECK(summaries == std::vector<std::string>{"vllm 0.26.0 + lmcache: 6/6 failed in 2 runs",
                                              "vllm 0.27.1 + lmcache: 3/3 failed in 1 run"});

  // The seed's two controls; later records may add more, each a passing run.
  std::vector<std::string> controls;
  for (const auto& c : seed0.controls) {
    CHECK(c.failed == 0);
    CHECK(c.passed > 0);
    if (c.oracle == "oracles/monolithic-equivalence") controls.push_back(c.subject);
  }
  CHECK(std::count(controls.begin(), controls.end(), "mooncake + vllm") == 1);
  CHECK(std::count(controls.begin(), controls.end(), "nixl + vllm") == 1);

  const auto& seed2 = index.for_gotcha("gotchas/pd-batch-invariant-mode-absent-from-kv-namespace");
  CHECK(seed2.state == Reproduction::no_evidence);
  CHECK(seed2.groups.empty());
  CHECK(seed2.controls.empty());

  // Seed 002 says it is unreproduced, and no failing result contradicts it.
  auto diags = with_prefix(index.check_claims(*corpus, "2026-10-05", 90), "evidence.");
  INFO(dump(diags));
  CHECK(diags.empty());
}
