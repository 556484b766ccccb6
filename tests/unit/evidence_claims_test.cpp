#include <catch2/catch.hpp>

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

TEST_CASE("an unreproduced claim contradicted by failing results is a warning at the phrase",
          "[evidence][claims]") {
  Files files = seed_like_tree();
  files["engines/sglang.yaml"] = engine("SGLang");
  files["gotchas/pd.yaml"] = R"(title: P/D cache hits differ
severity: major
status: open
symptom: |
  No observed failure yet. The reporter
  says: "I have not
  reproduced a divergence".
)";
  auto corpus = corpus_of(files);
  auto index = EvidenceIndex::build(*corpus);
  auto diags = with_prefix(index.check_claims(*corpus, "2026-10-05", 90), "evidence.");
  INFO(dump(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "evidence.unreproduced-claim");
  CHECK(diags[0].severity == kb::Severity::warning);
  CHECK(diags[0].file == "gotchas/pd.yaml");
  CHECK(diags[0].record == "gotchas/pd");
  CHECK(diags[0].line == 5);
  CHECK(diags[0].column == 3);
  CHECK(diags[0].message ==
        "symptom says \"no observed failure\" but linked results record 10 failures: results/a, "
        "results/b, results/c and 1 more");

  // The same words with only passing evidence contradict nothing.
  auto quiet = corpus_of({{"engines/vllm.yaml", engine("vLLM")},
                          {"oracles/o.yaml", "title: O\n"},
                          {"gotchas/g.yaml",
                           "title: G\nseverity: major\nstatus: open\n"
                           "symptom: I have not reproduced it.\n"},
                          {"results/r.yaml", result("o", "[vllm]", "", 2, 0, "g")}});
  CHECK(
      with_prefix(EvidenceIndex::build(*quiet).check_claims(*quiet, "2026-10-05", 90), "evidence.")
          .empty());
}

TEST_CASE("the unreproduced phrase is found across a folded line", "[evidence][claims]") {
  auto corpus = corpus_of({{"engines/vllm.yaml", engine("vLLM")},
                           {"oracles/o.yaml", "title: O\n"},
                           {"gotchas/g.yaml",
                            "title: G\nseverity: major\nstatus: open\n"
                            "symptom: x\nnotes: |\n  Still unrepro\n"
                            "  This has not\n    yet been reproduced.\n"},
                           {"results/r.yaml", result("o", "[vllm]", "", 0, 1, "g")}});
  auto diags = EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0);
  INFO(dump(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].message.rfind("notes says \"not yet been reproduced\"", 0) == 0);
  CHECK(diags[0].line == 7);
  CHECK(diags[0].column == 12);
}

TEST_CASE("each wording of an unreproduced claim is found, in any case", "[evidence][claims]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"It is NOT REPRODUCIBLE here.", "not reproducible"},
      {"Upstream hasn\xE2\x80\x99t been reproduced it.", "hasn't been reproduced"},
      {"Marked Unreproduced by triage.", "unreproduced"},
      {"No\tobserved   failure so far.", "no observed failure"},
      {"We never reproduced it.", "never reproduced"},
  };
  for (const auto& [text, phrase] : cases) {
    auto corpus = corpus_of({{"engines/vllm.yaml", engine("vLLM")},
                             {"oracles/o.yaml", "title: O\n"},
                             {"gotchas/g.yaml", "title: G\nseverity: major\nstatus: open\n"
                                                "symptom: \"" + text + "\"\n"},
                             {"results/r.yaml", result("o", "[vllm]", "", 0, 1, "g")}});
    auto diags = EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0);
    INFO(text << "\n" << dump(diags));
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].message.rfind("symptom says \"" + phrase + "\"", 0) == 0);
  }
  // Near misses of every phrase's key word are not claims.
  auto corpus = corpus_of({{"engines/vllm.yaml", engine("vLLM")},
                           {"oracles/o.yaml", "title: O\n"},
                           {"gotchas/g.yaml", "title: G\nseverity: major\nstatus: open\n"
                                              "symptom: Reproduced on every run; observed twice.\n"},
                           {"results/r.yaml", result("o", "[vllm]", "", 0, 1, "g")}});
  CHECK(EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0).empty());
}

TEST_CASE("fixed gotchas whose newest result still fails", "[evidence][claims]") {
  const std::string fixed = R"(title: G
severity: major
status: fixed
affects:
  - {engine: vllm, versions: ">=0.26.0, <0.28"}
symptom: x
)";
  Files base = {{"engines/vllm.yaml", engine("vLLM")},
                {"engines/lmcache.yaml", engine("LMCache")},
                {"oracles/o.yaml", "title: O\n"},
                {"gotchas/g.yaml", fixed},
                {"results/old.yaml",
                 result("o", "[{engine: vllm, version: 0.26.0}]", "", 0, 3, "g", "2026-09-01")}};

  SECTION("a failure inside the affected range, nothing newer: warning") {
    auto corpus = corpus_of(base);
    auto diags = EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0);
    INFO(dump(diags));
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].code == "evidence.fixed-but-failing");
    CHECK(diags[0].severity == kb::Severity::warning);
    CHECK(diags[0].line == 3);
    CHECK(diags[0].column == 1);
    CHECK(diags[0].message ==
          "status is fixed but the newest result for engines/vllm 0.26.0 on oracles/o, "
          "results/old (2026-09-01), still fails: 3/3 failed");
  }
  SECTION("a failure on a version outside the range, where the fix should hold: error") {
    base["results/new.yaml"] =
        result("o", "[{engine: vllm, version: 0.28.1}, lmcache]", "", 1, 2, "g", "2026-08-01");
    auto corpus = corpus_of(base);
    auto diags = EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0);
    INFO(dump(diags));
    REQUIRE(diags.size() == 1);
    CHECK(diags[0].severity == kb::Severity::error);
    CHECK(diags[0].message ==
          "status is fixed but the newest result for engines/vllm 0.28.1 on oracles/o, "
          "results/new (2026-08-01), still fails: 2/3 failed; 0.28.1 is outside every affects "
          "range of engines/vllm");
  }
  SECTION("a passing result on a newer version settles it") {
    base["results/new.yaml"] =
        result("o", "[{engine: vllm, version: 0.28.0}]", "", 3, 0, "g", "2026-08-01");
    auto corpus = corpus_of(base);
    CHECK(EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0).empty());
  }
  SECTION("open gotchas are not checked") {
    base["gotchas/g.yaml"] = "title: G\nseverity: major\nstatus: open\nsymptom: x\n";
    auto corpus = corpus_of(base);
    CHECK(EvidenceIndex::build(*corpus).check_claims(*corpus, "2026-10-05", 0).empty());
  }
}

TEST_CASE("stale verification is a warning at the newest reference", "[evidence][claims]") {
  Files files = {{"engines/vllm.yaml", engine("vLLM")},
                 {"oracles/o.yaml", "title: O\n"},
                 {"gotchas/g.yaml", R"(title: G
severity: major
status: open
symptom: x
references:
  - {type: issue, repo: a/b, number: 1, state: open, as_of: 2026-01-10}
  - {type: issue, repo: a/b, number: 2, state: open, as_of: 2026-03-01}
  - {type: commit, repo: a/b, ref: abc}
)"},
                 {"gotchas/none.yaml", "title: N\nseverity: minor\nstatus: open\nsymptom: x\n"}};
  auto corpus = corpus_of(files);
  auto index = EvidenceIndex::build(*corpus);

  auto diags = index.check_claims(*corpus, "2026-06-01", 90);
  INFO(dump(diags));
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "evidence.stale");
  CHECK(diags[0].severity == kb::Severity::warning);
  CHECK(diags[0].line == 7);
  CHECK(diags[0].column == 5);
  CHECK(diags[0].message ==
        "newest verification is 2026-03-01, 92 days before 2026-06-01 (limit 90 days)");

  CHECK(index.check_claims(*corpus, "2026-05-30", 90).empty());  // 90 days: not yet stale
  CHECK(index.check_claims(*corpus, "2026-06-01", 0).empty());   // check off

  // A newer linked result counts as verification.
  files["results/r.yaml"] = result("o", "[vllm]", "", 1, 0, "g", "2026-05-20");
  auto c2 = corpus_of(files);
  CHECK(EvidenceIndex::build(*c2).check_claims(*c2, "2026-06-01", 90).empty());

  CHECK_THROWS_AS(index.check_claims(*corpus, "2026-13-01", 90), kb::Error);
}

TEST_CASE("a result naming a missing gotcha or oracle is the corpus' ref.dangling only",
          "[evidence][claims]") {
  auto corpus =
      corpus_of({{"engines/vllm.yaml", engine("vLLM")},
                 {"oracles/o.yaml", "title: O\n"},
                 {"results/r.yaml", result("nope", "[vllm]", "", 0, 1, "gotchas/missing")}});
  auto index = EvidenceIndex::build(*corpus);
  CHECK(index.for_gotcha("gotchas/missing").state == Reproduction::no_evidence);
  CHECK(index.results_for_oracle("nope") == std::vector<std::string>{"results/r"});
  CHECK(with_prefix(index.check_claims(*corpus, "2026-10-05", 90), "evidence.").empty());
  CHECK(with_prefix(corpus->diagnostics(), "ref.dangling").size() == 2);
}
