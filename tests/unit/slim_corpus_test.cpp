// A corpus loaded slim keeps lists, facets, checks and names in memory and reads every
// other field back from the index: what it answers must be what a whole load answers.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/lint.h"
#include "kb/record_dates.h"
#include "kb/store.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(KB_TEST_DATA) / "serve" / "records";

kb::LintOptions lint_options() {
  kb::LintOptions o;
  o.today = "2027-06-01";  // the fixture's verifications are stale by then: claims with positions
  return o;
}

std::string render(const std::vector<kb::Diagnostic>& diags) {
  std::string out;
  for (const auto& d : diags) {
    out += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.code +
           " " + d.message + "\n";
  }
  return out;
}

// The fixture with a claim the lint checks in a body and status fixed under failing
// evidence: diagnostics whose positions come from the file's bytes.
void add_claims(const kb::test::TempTree& tree) {
  std::string alpha = tree.read("gotchas/alpha-blocker.yaml");
  auto swap = [&](const std::string& from, const std::string& to) {
    auto at = alpha.find(from);
    REQUIRE(at != std::string::npos);
    alpha.replace(at, from.size(), to);
  };
  swap("The alpha root cause.", "This has not been reproduced yet.");
  swap("status: open", "status: fixed");
  tree.write("gotchas/alpha-blocker.yaml", alpha);
  // References: the newest as_of is not the first; one has no date.
  tree.write("gotchas/beta-major.yaml",
             tree.read("gotchas/beta-major.yaml") +
                 "references:\n"
                 "  - {type: issue, repo: o/r, number: 1, date: 2026-01-05, as_of: 2026-03-01}\n"
                 "  - {type: pr, repo: o/r, number: 2, date: 2025-12-30, as_of: 2026-04-02}\n"
                 "  - {type: doc, url: 'https://example.com/x'}\n");
}

struct TempDb {
  fs::path path = fs::temp_directory_path() / ("kb-slim-" + std::to_string(::getpid()) + ".db");
  ~TempDb() {
    std::error_code ec;
    fs::remove(path, ec);
  }
};

}  // namespace

TEST_CASE("slim records drop their bodies and read them back whole", "[corpus][slim]") {
  kb::test::TempTree tree(kFixture);
  add_claims(tree);
  TempDb db;
  kb::Linted slim = kb::build_index_file(tree.dir, lint_options(), db.path);
  kb::Linted whole = kb::lint_tree(tree.dir, lint_options());
  REQUIRE(slim.corpus->records().size() == whole.corpus->records().size());

  const kb::Record* beta = slim.corpus->find("gotchas/beta-major");
  REQUIRE(beta != nullptr);
  CHECK(beta->source_text.empty());
  CHECK(beta->symptom.empty());
  CHECK(beta->title == whole.corpus->find("gotchas/beta-major")->title);
  // A body that may hold a claim the lint checks stays, so the claim checks need no file.
  const kb::Record* alpha = slim.corpus->find("gotchas/alpha-blocker");
  REQUIRE(alpha != nullptr);
  CHECK(alpha->root_cause == "This has not been reproduced yet.\n");
  CHECK(alpha->symptom.empty());

  // Read back from the files (the build's index was not committed while it linted).
  int cited = 0;
  for (const auto& r : whole.corpus->records()) {
    INFO(r->id);
    const kb::Record* s = slim.corpus->find(r->id);
    REQUIRE(s != nullptr);
    auto back = slim.corpus->whole(*s);
    CHECK(back->source_text == r->source_text);
    CHECK(back->symptom == r->symptom);
    CHECK(back->workaround == r->workaround);
    CHECK(back->description == r->description);
    CHECK(slim.corpus->source_text(*s) == r->source_text);
    // The parts of other namespaces are one null pointer each, through load, lint and
    // index: nothing on the way wrote one into being.
    for (const kb::Record* rec : {s, r.get()}) {
      CHECK(rec->engine.has_value() == (rec->kind == kb::Kind::engine));
      CHECK(rec->setting.has_value() == (rec->kind == kb::Kind::setting));
      CHECK(rec->result.has_value() == (rec->kind == kb::Kind::result));
    }
    // References are dropped too; their dates, which lists and checks read, stay.
    CHECK(s->references.empty());
    CHECK(back->references.size() == r->references.size());
    const kb::CitationDates a = kb::reference_dates(*s), b = kb::reference_dates(*r);
    CHECK(a.newest_as_of == b.newest_as_of);
    CHECK(a.newest_as_of_pos.line == b.newest_as_of_pos.line);
    CHECK(a.earliest == b.earliest);
    CHECK(a.latest == b.latest);
    CHECK(kb::newest_date(*s) == kb::newest_date(*r));
    if (!r->references.empty()) {
      cited += 1;
      CHECK_FALSE(b.latest.empty());
    }
  }
  CHECK(cited == 1);
  // The same diagnostics, positions included.
  CHECK(render(slim.diagnostics) == render(whole.diagnostics));
  const auto codes = [&] {
    std::vector<std::string> out;
    for (const auto& d : slim.diagnostics) out.push_back(d.code);
    return out;
  }();
  CHECK(std::count(codes.begin(), codes.end(), "evidence.unreproduced-claim") == 1);
  CHECK(std::count(codes.begin(), codes.end(), "evidence.fixed-but-failing") == 1);
  // Stale at the newest verification: the second citation's line.
  const std::string stale = render(slim.diagnostics);
  INFO(stale);
  CHECK(stale.find("gotchas/beta-major.yaml:") != std::string::npos);
  CHECK(stale.find("newest verification is 2026-04-02") != std::string::npos);
  const kb::CitationDates beta_dates = kb::reference_dates(*beta);
  CHECK(beta_dates.newest_as_of == "2026-04-02");
  CHECK(beta_dates.earliest == "2025-12-30");
  CHECK(beta_dates.latest == "2026-04-02");
}

TEST_CASE("whole records come back from the index, cached, and only in their version",
          "[corpus][slim][store]") {
  kb::test::TempTree tree(kFixture);
  TempDb db;
  kb::Linted built = kb::build_index_file(tree.dir, lint_options(), db.path);
  REQUIRE(kb::count_severity(built.diagnostics, kb::Severity::error) == 0);
  auto store = std::make_shared<const kb::Store>(kb::Store::open_readonly(db.path));
  auto bodies = kb::record_bodies(store, 2);

  const kb::Record* beta = built.corpus->find("gotchas/beta-major");
  REQUIRE(beta != nullptr);
  const std::string bytes = tree.read("gotchas/beta-major.yaml");
  CHECK(store->source("gotchas/beta-major", beta->content_hash) == bytes);
  CHECK_FALSE(store->source("gotchas/beta-major", "0000000000000000").has_value());
  CHECK_FALSE(store->source("gotchas/nope", beta->content_hash).has_value());

  auto first = bodies->whole(*beta);
  REQUIRE(first != nullptr);
  CHECK(first->source_text == bytes);
  CHECK(first->symptom == kb::lint_tree(tree.dir, lint_options()).corpus->find(beta->id)->symptom);
  CHECK(bodies->whole(*beta) == first);  // cached
  // Two others push it out of a cache of two.
  for (const char* id : {"gotchas/alpha-blocker", "gotchas/gamma-major"})
    REQUIRE(bodies->whole(*built.corpus->find(id)) != nullptr);
  auto again = bodies->whole(*beta);
  REQUIRE(again != nullptr);
  CHECK(again != first);
  CHECK(again->source_text == bytes);

  // A version the index does not hold is not made up.
  kb::Record other = *beta;
  other.content_hash = "0000000000000000";
  CHECK(bodies->whole(other) == nullptr);
  // The full-text index was written from whole records: a word of a body is found.
  auto hits = store->search("alpha symptom", 5);
  REQUIRE_FALSE(hits.empty());
  CHECK(hits.front().id == "gotchas/alpha-blocker");
}

TEST_CASE("a build with errors leaves the index it would replace as it was", "[build][slim]") {
  kb::test::TempTree tree(kFixture);
  TempDb db;
  REQUIRE(kb::count_severity(kb::build_index_file(tree.dir, lint_options(), db.path).diagnostics,
                             kb::Severity::error) == 0);
  const std::string before = kb::test::read_file(db.path);
  tree.write("gotchas/broken.yaml", "id: gotchas/broken\ntitle: [unclosed\n");
  kb::Linted failed = kb::build_index_file(tree.dir, lint_options(), db.path);
  CHECK(kb::count_severity(failed.diagnostics, kb::Severity::error) == 1);
  CHECK(kb::test::read_file(db.path) == before);
  for (const auto& entry : fs::directory_iterator(db.path.parent_path())) {
    CHECK(entry.path().filename().string().rfind(db.path.filename().string() + ".tmp-", 0) ==
          std::string::npos);
  }
}

TEST_CASE("a finding on a slim corpus says what the whole record says, again and after an edit",
          "[check][slim]") {
  kb::test::TempTree tree(kFixture);
  const std::string yaml = "engines: [vllm, nixl, lmcache, mooncake, sglang]\n";
  // Every finding with what it shows of its gotcha's bodies.
  const auto advice = [&](const kb::Linted& l) {
    auto index = kb::CheckIndex::build(*l.corpus, l.evidence);
    std::vector<kb::Diagnostic> diags;
    const kb::Deployment d = kb::parse_deployment(yaml, "deploy.yaml", diags);
    REQUIRE(diags.empty());
    std::string out;
    for (const auto& f : index.run(d).findings)
      out += f.id + " | " + f.symptom + " | " + f.workaround + " | " + f.workaround_markdown + "\n";
    return out;
  };
  {
    TempDb db;
    const kb::Linted slim = kb::build_index_file(tree.dir, lint_options(), db.path);
    const std::string whole = advice(kb::lint_tree(tree.dir, lint_options()));
    INFO(whole);
    CHECK(whole.find("gotchas/alpha-blocker | The alpha symptom: prefix cache hit diverges under "
                     "load. | The alpha workaround. | The alpha workaround.") != std::string::npos);
    CHECK(advice(slim) == whole);
    CHECK(advice(slim) == whole);  // the second time from what the first kept
  }
  // A new version of the record is new text, not what was kept of the last one.
  std::string alpha = tree.read("gotchas/alpha-blocker.yaml");
  const std::string from = "The alpha workaround.";
  alpha.replace(alpha.find(from), from.size(), "Pin the **prefix cache** off.\n\n  Then restart.");
  tree.write("gotchas/alpha-blocker.yaml", alpha);
  TempDb db;
  const kb::Linted slim = kb::build_index_file(tree.dir, lint_options(), db.path);
  const std::string edited = advice(slim);
  INFO(edited);
  CHECK(edited.find("gotchas/alpha-blocker | The alpha symptom: prefix cache hit diverges under "
                    "load. | Pin the prefix cache off. | Pin the **prefix cache** off.\n\nThen "
                    "restart.") != std::string::npos);
  CHECK(edited == advice(kb::lint_tree(tree.dir, lint_options())));
}
