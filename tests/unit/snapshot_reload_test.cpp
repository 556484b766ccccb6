// A live reload builds its check index and its claim checks from the previous
// snapshot's, sharing what belongs to records that did not change. Whatever the edit,
// the result must be exactly what a build from scratch over the same tree gives.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/lint.h"
#include "kb/snapshot.h"

using Lines = std::vector<std::string>;

namespace {

const std::filesystem::path kFixture = std::filesystem::path(KB_TEST_DATA) / "serve" / "records";

kb::LintOptions lint_options() {
  kb::LintOptions o;
  o.today = "2026-10-01";
  return o;
}

// Findings, ignored or not, and warnings, with everything a client sees of them.
std::string render(const kb::CheckReport& r) {
  std::string out;
  for (const auto& f : r.findings) {
    out += f.id + " " + f.title + " " + f.severity + " " + f.status + " " + f.evidence +
           (f.possible ? " possible" : "") + " @" + std::to_string(f.pos.line) + ":";
    for (const auto& w : f.why) out += " [" + w + "]";
    out += "\n";
  }
  for (const auto& d : r.diagnostics) out += d.code + " " + d.message + "\n";
  return out;
}

kb::Deployment deployment(const std::string& yaml) {
  std::vector<kb::Diagnostic> diags;
  kb::Deployment d = kb::parse_deployment(yaml, "deploy.yaml", diags);
  REQUIRE(kb::count_severity(diags, kb::Severity::error) == 0);
  return d;
}

// gotchas/beta-major with `fields` added to its id and symptom.
std::string beta(const std::string& fields) {
  return "id: gotchas/beta-major\nsymptom: |\n  x\n" + fields;
}

const std::string kOpen = "title: Nixl handshake stalls\nstatus: open\n";

}  // namespace

TEST_CASE("a check index built from the previous snapshot's answers like a fresh one",
          "[check][reload]") {
  struct Edit {
    std::string what, file, yaml;
    bool names_kept;  // whether the reload keeps the name index, so gotchas are shared
  };
  const std::vector<Edit> edits = {
      {"title only", "gotchas/beta-major.yaml",
       beta("title: Renamed\nstatus: open\nseverity: major\naffects: [vllm, nixl]\n"), true},
      {"severity", "gotchas/beta-major.yaml", beta(kOpen + "severity: blocker\naffects: [vllm, nixl]\n"),
       true},
      {"an engine no other gotcha names", "gotchas/beta-major.yaml",
       beta(kOpen + "severity: major\naffects: [{engine: mooncake, versions: \">=0.3\"}]\n"), true},
      {"applies_when with a config key", "gotchas/beta-major.yaml",
       beta(kOpen + "severity: major\naffects: [vllm]\napplies_when: {all: [{engine: vllm}, "
                    "{config: {kv_role: producer}}]}\n"),
       true},
      {"withdrawn", "gotchas/beta-major.yaml",
       beta("title: T\nseverity: major\nstatus: withdrawn\naffects: [vllm, nixl]\n"), true},
      {"result fails now", "results/gamma-run.yaml",
       "id: results/gamma-run\noracle: monolithic-equivalence\ndate: 2026-09-29\nsubject:\n  "
       "engines: [{engine: lmcache}]\npassed: 0\nfailed: 2\nevidence_for: [gotchas/gamma-major]\n",
       true},
      {"engine renamed", "engines/nixl.yaml", "id: engines/nixl\nname: NIXL2\n", false},
      {"new gotcha", "gotchas/nu-new.yaml",
       "title: New\nseverity: minor\nstatus: open\nsymptom: x\naffects: [sglang]\n", false},
  };
  const std::vector<std::string> deployments = {
      "engines: [{engine: vllm, version: 0.27.0}]\n",
      "engines: [vllm, nixl]\nconfig: {kv_role: producer}\n",
      "engines: [{engine: mooncake, version: 0.3.1}, lmcache, sglang]\n",
      "engines: [nixl2]\n",
      "config: {kv_role: producer}\n",
  };
  for (const auto& e : edits) {
    INFO(e.what);
    kb::test::TempTree tree(kFixture);
    auto c0 = kb::Corpus::load(tree.dir);
    kb::Snapshot before(kb::lint_corpus(c0, lint_options()), nullptr, 1, nullptr);
    REQUIRE(before.checks().size() > 0);

    tree.write(e.file, e.yaml);
    const std::vector<std::string> only = {e.file};
    auto c1 = kb::Corpus::reload(*c0, {}, &only);
    CHECK((&c1->names() == &c0->names()) == e.names_kept);
    kb::Snapshot after(kb::lint_corpus(c1, lint_options()), nullptr, 2, &before);

    auto fresh = kb::lint_corpus(kb::Corpus::load(tree.dir), lint_options());
    auto index = kb::CheckIndex::build(*fresh.corpus, fresh.evidence);
    CHECK(after.checks().size() == index.size());
    for (const auto& yaml : deployments) {
      INFO(yaml);
      const kb::Deployment d = deployment(yaml);
      CHECK(render(after.checks().run(d)) == render(index.run(d)));
    }
  }
}

TEST_CASE("an index shares nothing stale: each reload in a chain answers like a fresh one",
          "[check][reload]") {
  kb::test::TempTree tree(kFixture);
  auto corpus = kb::Corpus::load(tree.dir);
  auto snap = std::make_shared<const kb::Snapshot>(kb::lint_corpus(corpus, lint_options()),
                                                   nullptr, 1, nullptr);
  snap->checks();
  const kb::Deployment d = deployment("engines: [vllm, nixl, lmcache]\n");
  const std::vector<std::string> severities = {"info", "blocker", "minor", "major"};
  for (std::size_t i = 0; i < severities.size(); ++i) {
    INFO(severities[i]);
    tree.write("gotchas/beta-major.yaml",
               beta(kOpen + "severity: " + severities[i] + "\naffects: [vllm, nixl]\n"));
    const std::vector<std::string> only = {"gotchas/beta-major.yaml"};
    corpus = kb::Corpus::reload(snap->corpus(), {}, &only);
    // The previous snapshot goes as soon as the next one exists, as in a live server.
    snap = std::make_shared<const kb::Snapshot>(kb::lint_corpus(corpus, lint_options()), nullptr,
                                                i + 2, snap.get());
    auto fresh = kb::lint_corpus(kb::Corpus::load(tree.dir), lint_options());
    auto index = kb::CheckIndex::build(*fresh.corpus, fresh.evidence);
    CHECK(render(snap->checks().run(d)) == render(index.run(d)));
    const auto report = snap->checks().run(d);
    auto beta = std::find_if(report.findings.begin(), report.findings.end(),
                             [](const kb::Finding& f) { return f.id == "gotchas/beta-major"; });
    REQUIRE(beta != report.findings.end());
    CHECK(beta->severity == severities[i]);
  }
}

namespace {

template <class List>
Lines render(const List& ds) {
  Lines out;
  for (const auto& d : ds) {
    out.push_back(d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " +
                  d.code + " " + d.message + " | " + d.hint + " | " + d.record);
  }
  return out;
}

}  // namespace

TEST_CASE("a live reload's claim checks match a fresh lint of the same tree", "[lint][reload]") {
  kb::test::TempTree tree(kFixture);
  kb::LiveOptions o;
  o.records = tree.dir;
  o.lint.today = "2027-06-01";  // both linked gotchas' verification is stale by then
  kb::LiveKb kb(o);
  const std::string alpha = tree.read("gotchas/alpha-blocker.yaml");
  const auto with = [](std::string text, const std::string& from, const std::string& to) {
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
  };
  struct Edit {
    std::string what, file, yaml;
  };
  const std::vector<Edit> edits = {
      {"claims it was never seen", "gotchas/alpha-blocker.yaml",
       with(alpha, "The alpha root cause.", "This has not been reproduced yet.")},
      {"fixed, yet its result fails", "gotchas/alpha-blocker.yaml",
       with(alpha, "status: open", "status: fixed")},
      // Changes the evidence of an unchanged record: fixed is no longer contradicted.
      {"a result now passes", "results/alpha-run.yaml",
       with(tree.read("results/alpha-run.yaml"), "passed: 0\nfailed: 3", "passed: 3\nfailed: 0")},
      {"an unrelated gotcha's title", "gotchas/beta-major.yaml",
       with(tree.read("gotchas/beta-major.yaml"), "Nixl handshake", "NIXL handshake")},
      {"the file breaks: its last good record goes stale", "gotchas/alpha-blocker.yaml",
       "id: gotchas/alpha-blocker\ntitle: [unclosed\n"},
      {"and is repaired", "gotchas/alpha-blocker.yaml", alpha},
  };
  CHECK(render(kb.current()->diagnostics()) ==
        render(kb::lint_tree(tree.dir, o.lint).diagnostics));
  for (const auto& e : edits) {
    INFO(e.what);
    auto before = kb.current();
    tree.write(e.file, e.yaml);
    REQUIRE(kb.reload());
    auto now = kb.current();
    // No edit changes a name, so the claims of the other records are shared.
    CHECK(&now->corpus().names() == &before->corpus().names());
    // The same corpus, claims checked from scratch (a fresh load would not keep the last
    // good version of a broken file).
    kb::Linted linted{now->corpus_ptr(), kb::EvidenceIndex::build(now->corpus()),
                      now->corpus().diagnostics()};
    kb::Snapshot fresh(std::move(linted), nullptr, 1, nullptr, {o.query_budget, o.lint});
    CHECK(render(now->diagnostics()) == render(fresh.diagnostics()));
  }
  const auto codes = [&] {
    std::vector<std::string> out;
    for (const auto& d : kb.current()->diagnostics()) out.push_back(d.code);
    return out;
  };
  CHECK(codes() == Lines{"evidence.stale", "evidence.stale"});
}
