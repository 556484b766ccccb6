#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "kb/error.h"
#include "kb/snapshot.h"
#include "live/snapshot_impl.h"

namespace {

const std::string kFixture = std::string(KB_TEST_DATA) + "/serve/records";

kb::LintOptions lint_options() {
  kb::LintOptions o;
  o.today = "2026-10-05";
  return o;
}

std::shared_ptr<const kb::Snapshot> fixture_snapshot() {
  return std::make_shared<const kb::Snapshot>(kb::lint_tree(kFixture, lint_options()), nullptr, 1,
                                              nullptr);
}

std::vector<std::string> ids(const std::vector<const kb::Record*>& records) {
  std::vector<std::string> out;
  for (const auto* r : records) out.push_back(r->id);
  return out;
}

std::map<std::string, std::size_t> facet(const kb::GotchaPage& page, const std::string& name) {
  for (const auto& [n, counts] : page.facets) {
    if (n == name) return {counts.begin(), counts.end()};
  }
  FAIL("no facet " << name);
  return {};
}

kb::FileResult file(const std::string& path, const std::string& yaml) {
  auto f = kb::load_record_text(path, yaml);
  REQUIRE(f.record);
  return f;
}

// An index of `files`, as `kb build` writes one.
std::shared_ptr<kb::Store> index_of(const std::vector<kb::FileResult>& files) {
  kb::Linted linted = kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options());
  auto store = std::make_shared<kb::Store>(kb::Store::open_writable(":memory:"));
  store->sync(nullptr, *linted.corpus, linted.evidence, false);
  return store;
}

// A snapshot of `files` searching `store` (which may hold other versions of them).
kb::Snapshot snapshot_on(const std::vector<kb::FileResult>& files,
                         const std::shared_ptr<kb::Store>& store, std::uint64_t generation) {
  return kb::Snapshot(kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), store,
                      generation, nullptr);
}

std::string gotcha_yaml(const std::string& slug, const std::string& title) {
  return "id: gotchas/" + slug + "\ntitle: " + title +
         "\nseverity: major\nstatus: open\nsymptom: |\n  " + title + "\n";
}

}  // namespace

TEST_CASE("gotchas are sorted by severity then id, withdrawn left out, with facets", "[snapshot]") {
  auto snap = fixture_snapshot();
  kb::GotchaQuery q;
  q.limit = 100;
  auto page = snap->gotchas(q);
  CHECK(page.total == 11);
  CHECK(page.next_page_token.empty());
  CHECK(ids(page.items) == std::vector<std::string>{"gotchas/alpha-blocker", "gotchas/iota-blocker",
                                                    "gotchas/beta-major", "gotchas/eta-major",
                                                    "gotchas/gamma-major", "gotchas/lambda-major",
                                                    "gotchas/delta-minor", "gotchas/mu-minor",
                                                    "gotchas/theta-minor", "gotchas/epsilon-info",
                                                    "gotchas/kappa-info"});
  CHECK(facet(page, "severity") == std::map<std::string, std::size_t>{
                                       {"blocker", 2}, {"major", 4}, {"minor", 3}, {"info", 2}});
  CHECK(facet(page, "status") ==
        std::map<std::string, std::size_t>{{"open", 6}, {"mitigated", 3}, {"fixed", 2}});
  CHECK(facet(page, "family") == std::map<std::string, std::size_t>{
                                     {"disaggregation", 3}, {"offload", 4}, {"scheduling", 3}});
  CHECK(facet(page, "engine") == std::map<std::string, std::size_t>{
                                     {"vllm", 6}, {"lmcache", 4}, {"mooncake", 3}, {"nixl", 2}});
  CHECK(facet(page, "reproduced") == std::map<std::string, std::size_t>{{"reproduced", 1},
                                                                        {"not-reproduced", 1},
                                                                        {"no-evidence", 9}});
  // Most frequent value first.
  CHECK(page.facets[1].second.front() == std::pair<std::string, std::size_t>{"major", 4});
}

TEST_CASE("filters combine across fields and OR within one", "[snapshot]") {
  auto snap = fixture_snapshot();
  kb::GotchaQuery q;
  q.limit = 100;
  q.engine = "vLLM";  // a display name resolves like a reference does
  CHECK(snap->gotchas(q).total == 6);
  q.engine = "mooncake-transfer-engine";
  CHECK(ids(snap->gotchas(q).items) == std::vector<std::string>{"gotchas/iota-blocker",
                                                                "gotchas/eta-major",
                                                                "gotchas/delta-minor"});
  q.engine = "vllm";
  q.severity = "blocker,major";
  CHECK(ids(snap->gotchas(q).items) ==
        std::vector<std::string>{"gotchas/alpha-blocker", "gotchas/beta-major", "gotchas/eta-major",
                                 "gotchas/lambda-major"});
  q = {};
  q.reproduced = "reproduced";
  CHECK(ids(snap->gotchas(q).items) == std::vector<std::string>{"gotchas/alpha-blocker"});
  q = {};
  q.status = "withdrawn";
  CHECK(ids(snap->gotchas(q).items) == std::vector<std::string>{"gotchas/zeta-withdrawn"});
  q = {};
  q.include_withdrawn = true;
  CHECK(snap->gotchas(q).total == 12);
  q = {};
  q.family = "offload";
  q.status = "open";
  CHECK(ids(snap->gotchas(q).items) == std::vector<std::string>{"gotchas/lambda-major"});
}

TEST_CASE("bad filter values, sorts and tokens are invalid arguments", "[snapshot]") {
  auto snap = fixture_snapshot();
  auto code_of = [&](kb::GotchaQuery q) {
    try {
      snap->gotchas(q);
    } catch (const kb::Error& e) {
      return std::string(kb::errc_code(e.code())) + ": " + e.what();
    }
    return std::string("no error");
  };
  kb::GotchaQuery q;
  q.severity = "critical";
  CHECK(code_of(q) == "invalid-argument: severity must be one of blocker, major, minor, info");
  q = {};
  q.engine = "vllmx";
  CHECK(code_of(q).rfind("invalid-argument: engine: no engine 'vllmx'; did you mean 'vllm'?", 0) ==
        0);
  q = {};
  q.sort = "random";
  CHECK(code_of(q) == "invalid-argument: sort must be one of severity, id, updated");
  q = {};
  q.page_token = "not base64!";
  CHECK(code_of(q).rfind("invalid-argument: page_token", 0) == 0);
  q = {};
  q.limit = 2;
  q.sort = "id";
  std::string id_token = snap->gotchas(q).next_page_token;
  REQUIRE(!id_token.empty());
  q.sort = "severity";
  q.page_token = id_token;
  CHECK(code_of(q).rfind("invalid-argument: page_token", 0) == 0);
}

TEST_CASE("keyset pages visit every gotcha exactly once in every sort order", "[snapshot]") {
  auto snap = fixture_snapshot();
  for (auto sort : kb::kGotchaSorts) {
    for (std::size_t limit : {1u, 3u, 4u, 11u}) {
      kb::GotchaQuery all;
      all.sort = std::string(sort);
      all.limit = 100;
      auto expected = ids(snap->gotchas(all).items);
      kb::GotchaQuery q;
      q.sort = std::string(sort);
      q.limit = limit;
      std::vector<std::string> seen;
      for (int pages = 0; pages < 20; ++pages) {
        auto page = snap->gotchas(q);
        CHECK(page.total == 11);
        for (auto& id : ids(page.items)) seen.push_back(id);
        if (page.next_page_token.empty()) break;
        q.page_token = page.next_page_token;
      }
      INFO("sort " << sort << " limit " << limit);
      CHECK(seen == expected);
    }
  }
  kb::GotchaQuery q;
  q.sort = "updated";
  q.limit = 3;
  CHECK(ids(snap->gotchas(q).items) == std::vector<std::string>{"gotchas/iota-blocker",
                                                                "gotchas/lambda-major",
                                                                "gotchas/eta-major"});
}

TEST_CASE("a token stays valid when records change between pages", "[snapshot]") {
  std::vector<kb::FileResult> files = {file("gotchas/a.yaml", gotcha_yaml("a", "A")),
                                       file("gotchas/c.yaml", gotcha_yaml("c", "C")),
                                       file("gotchas/e.yaml", gotcha_yaml("e", "E"))};
  auto first = std::make_shared<const kb::Snapshot>(
      kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), nullptr, 1, nullptr);
  kb::GotchaQuery q;
  q.sort = "id";
  q.limit = 1;
  auto page = first->gotchas(q);
  REQUIRE(ids(page.items) == std::vector<std::string>{"gotchas/a"});
  files.erase(files.begin() + 1);
  files.push_back(file("gotchas/b.yaml", gotcha_yaml("b", "B")));
  kb::Snapshot second(kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), nullptr,
                      2, first.get());
  q.page_token = page.next_page_token;
  q.limit = 10;
  CHECK(ids(second.gotchas(q).items) == std::vector<std::string>{"gotchas/b", "gotchas/e"});
}

TEST_CASE("referencing lists each record naming an id once, sorted", "[snapshot]") {
  auto snap = fixture_snapshot();
  CHECK(ids(snap->referencing("gotchas/alpha-blocker")) ==
        std::vector<std::string>{"gotchas/beta-major", "gotchas/eta-major", "results/alpha-run"});
  CHECK(
      ids(snap->referencing("engines/mooncake")) ==
      std::vector<std::string>{"gotchas/delta-minor", "gotchas/eta-major", "gotchas/iota-blocker"});
  CHECK(ids(snap->referencing("oracles/monolithic-equivalence")) ==
        std::vector<std::string>{"gotchas/alpha-blocker", "gotchas/gamma-major",
                                 "results/alpha-run", "results/gamma-run"});
  CHECK(snap->referencing("engines/sglang").empty());
}

TEST_CASE("records pages by id within one type", "[snapshot]") {
  auto snap = fixture_snapshot();
  auto page = snap->records(kb::Kind::engine, "", 2);
  CHECK(page.total == 5);
  CHECK(ids(page.items) == std::vector<std::string>{"engines/lmcache", "engines/mooncake"});
  page = snap->records(kb::Kind::engine, page.next_page_token, 10);
  CHECK(ids(page.items) ==
        std::vector<std::string>{"engines/nixl", "engines/sglang", "engines/vllm"});
  CHECK(page.next_page_token.empty());
  CHECK_THROWS_AS(
      snap->records(kb::Kind::result, snap->records(kb::Kind::engine, "", 1).next_page_token, 1),
      kb::Error);
}

TEST_CASE("change stamps carry forward unchanged records and keep tombstones", "[snapshot]") {
  std::vector<kb::FileResult> files = {file("gotchas/a.yaml", gotcha_yaml("a", "A")),
                                       file("gotchas/b.yaml", gotcha_yaml("b", "B")),
                                       file("gotchas/c.yaml", gotcha_yaml("c", "C"))};
  auto s1 = std::make_shared<const kb::Snapshot>(
      kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), nullptr, 1, nullptr);
  CHECK(s1->changes_since(0).size() == 3);
  const auto cursor1 = s1->changes_cursor();
  CHECK(s1->changes_since(cursor1).empty());

  files[1] = file("gotchas/b.yaml", gotcha_yaml("b", "B changed"));
  files.erase(files.begin() + 2);
  files.push_back(file("gotchas/d.yaml", gotcha_yaml("d", "D")));
  auto s2 = std::make_shared<const kb::Snapshot>(
      kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), nullptr, 2, s1.get());
  auto changes = s2->changes_since(cursor1);
  std::map<std::string, bool> got;
  for (const auto& c : changes) {
    CHECK(c.changed_at_ms > cursor1);
    got[c.id] = c.deleted;
  }
  CHECK(got == std::map<std::string, bool>{
                   {"gotchas/b", false}, {"gotchas/c", true}, {"gotchas/d", false}});
  CHECK(s2->changes_cursor() > cursor1);

  // Nothing changed: nothing new, and the tombstone stays where it was.
  kb::Snapshot s3(kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), nullptr, 3,
                  s2.get());
  CHECK(s3.changes_since(s2->changes_cursor()).empty());
  CHECK(s3.changes_since(cursor1).size() == 3);
}

TEST_CASE("search drops hits indexed from another version of a record", "[snapshot]") {
  std::vector<kb::FileResult> files = {file("gotchas/a.yaml", gotcha_yaml("a", "Thrashing disk")),
                                       file("gotchas/b.yaml", gotcha_yaml("b", "Thrashing cache"))};
  auto store = index_of(files);
  const kb::Snapshot current = snapshot_on(files, store, 1);
  CHECK(current.search("thrashing", 10).size() == 2);
  CHECK(current.search("\"NEAR(", 10).empty());

  files[0] = file("gotchas/a.yaml", gotcha_yaml("a", "Thrashing disk, edited"));
  const kb::Snapshot older_than_index = snapshot_on(files, store, 2);
  auto hits = older_than_index.search("thrashing", 10);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].id == "gotchas/b");
}

TEST_CASE("a page of hits is filled again when its best hits were dropped", "[snapshot]") {
  // The index holds "a" as its best hit for the word; the snapshot holds a newer "a".
  std::vector<kb::FileResult> files = {
      file("gotchas/a.yaml", gotcha_yaml("a", "Thrashing thrashing thrashing disk")),
      file("gotchas/b.yaml", gotcha_yaml("b", "Thrashing cache of a much longer title here"))};
  auto store = index_of(files);
  REQUIRE(snapshot_on(files, store, 1).search("thrashing", 1).at(0).id == "gotchas/a");

  files[0] = file("gotchas/a.yaml", gotcha_yaml("a", "Thrashing disk, edited"));
  const kb::Snapshot older_than_index = snapshot_on(files, store, 2);
  auto hits = older_than_index.search("thrashing", 1);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].id == "gotchas/b");
}

TEST_CASE("without an index, search finds nothing and q filters to nothing", "[snapshot]") {
  auto snap = fixture_snapshot();
  CHECK(snap->search("prefix", 10).empty());
  kb::GotchaQuery q;
  q.q = "prefix";
  CHECK(snap->gotchas(q).total == 0);
  CHECK(snap->diagnostics_of(kb::Severity::error) == 0);
}

namespace {

// Everything a snapshot answers from its indexes, for comparing two of them.
std::string fingerprint(const kb::Snapshot& s) {
  std::string out;
  for (auto sort : kb::kGotchaSorts) {
    kb::GotchaQuery q;
    q.sort = std::string(sort);
    q.limit = 1000;
    q.include_withdrawn = true;
    auto page = s.gotchas(q);
    for (const auto* r : page.items) out += r->id + ",";
    for (const auto& [name, counts] : page.facets) {
      out += name + ":";
      for (const auto& [v, n] : counts) out += v + "=" + std::to_string(n) + ",";
    }
    out += "\n";
  }
  for (const auto& r : s.corpus().records()) {
    out += r->id + " <-";
    for (const auto* from : s.referencing(r->id)) out += " " + from->id;
    out += "\n";
  }
  return out;
}

std::vector<kb::FileResult> fixture_files() {
  std::vector<kb::FileResult> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kFixture)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files.push_back(
        file(std::filesystem::relative(entry.path(), kFixture).generic_string(), text.str()));
  }
  return files;
}

// The files of `c` as values, sharing their records.
std::vector<kb::FileResult> file_copies(const kb::Corpus& c) {
  std::vector<kb::FileResult> out;
  for (const auto& f : c.files()) out.push_back(*f);
  return out;
}

void replace_file(std::vector<kb::FileResult>& files, const std::string& path,
                  const std::string& yaml) {
  for (auto& f : files) {
    if (f.file == path) f = file(path, yaml);
  }
}

}  // namespace

TEST_CASE("a snapshot patched from the previous one answers like one built from scratch",
          "[snapshot]") {
  const std::string g = "gotchas/beta-major.yaml";
  const std::string head = "id: gotchas/beta-major\ntitle: Beta\nstatus: open\nsymptom: |\n  x\n";
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> edits = {
      {"title only",
       {g, head + "severity: major\naffects: [vllm, nixl]\nrelated: [alpha-blocker]\n"}},
      {"severity", {g, head + "severity: info\naffects: [vllm, nixl]\nrelated: [alpha-blocker]\n"}},
      {"affects", {g, head + "severity: major\naffects: [sglang]\nrelated: [alpha-blocker]\n"}},
      {"related", {g, head + "severity: major\naffects: [vllm, nixl]\nrelated: [iota-blocker]\n"}},
      {"withdrawn",
       {g, head.substr(0, head.find("status")) +
               "status: withdrawn\nsymptom: |\n  x\nseverity: major\n"}},
      {"result fails now",
       {"results/gamma-run.yaml",
        "id: results/gamma-run\noracle: monolithic-equivalence\ndate: 2026-09-29\nsubject:\n  "
        "engines: "
        "[{engine: lmcache}]\npassed: 0\nfailed: 2\nevidence_for: [gotchas/gamma-major]\n"}},
      {"engine renamed",
       {"engines/nixl.yaml", "id: engines/nixl\nname: NIXL2\nrepo: ai-dynamo/nixl\n"}},
      {"a newer date",
       {g, head + "severity: major\naffects: [vllm, nixl]\nrelated: [alpha-blocker]\n"
                  "updated: 2031-05-05\n"}},
  };
  for (const auto& [what, edit] : edits) {
    auto files = fixture_files();
    auto before = std::make_shared<const kb::Snapshot>(
        kb::lint_corpus(kb::Corpus::from_files("/x", files), lint_options()), nullptr, 1, nullptr);
    // Keep unchanged records the same objects, as Corpus::reload does.
    std::vector<kb::FileResult> next = file_copies(before->corpus());
    replace_file(next, edit.first, edit.second);
    auto corpus = kb::Corpus::from_files("/x", next);
    kb::Snapshot patched(kb::lint_corpus(corpus, lint_options()), nullptr, 2, before.get());
    kb::Snapshot fresh(kb::lint_corpus(corpus, lint_options()), nullptr, 2, nullptr);
    INFO(what);
    CHECK(fingerprint(patched) == fingerprint(fresh));
    CHECK(patched.knowledge_base_date() == fresh.knowledge_base_date());
    auto changes = patched.changes_since(before->changes_cursor());
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].id + ".yaml" == edit.first);
  }
}

TEST_CASE("the knowledge base date follows edits of the record that holds it", "[snapshot]") {
  const std::string g = "gotchas/beta-major.yaml";
  const std::string body =
      "id: gotchas/beta-major\ntitle: Beta\nstatus: open\nsymptom: |\n  x\nseverity: major\n"
      "affects: [vllm, nixl]\nrelated: [alpha-blocker]\n";
  auto first = std::make_shared<const kb::Snapshot>(
      kb::lint_corpus(kb::Corpus::from_files("/x", fixture_files()), lint_options()), nullptr, 1,
      nullptr);
  const std::string base = first->knowledge_base_date();
  REQUIRE(base < "2031-05-05");
  auto step = [&](const std::shared_ptr<const kb::Snapshot>& prev, const std::string& text,
                  std::uint64_t gen) {
    std::vector<kb::FileResult> next = file_copies(prev->corpus());
    replace_file(next, g, text);
    return std::make_shared<const kb::Snapshot>(
        kb::lint_corpus(kb::Corpus::from_files("/x", next), lint_options()), nullptr, gen,
        prev.get());
  };
  auto newer = step(first, body + "updated: 2031-05-05\n", 2);
  CHECK(newer->knowledge_base_date() == "2031-05-05");
  auto back = step(newer, body, 3);  // the record that held the newest date lost it
  CHECK(back->knowledge_base_date() == base);
}

TEST_CASE("a reload keeps the evidence index only when no evidence input changed", "[snapshot]") {
  auto files = fixture_files();
  auto before = kb::Corpus::from_files("/x", files);
  auto with = [&](const std::string& path, const std::string& yaml) {
    std::vector<kb::FileResult> next = file_copies(*before);
    replace_file(next, path, yaml);
    return kb::Corpus::from_files("/x", next);
  };
  const std::string gamma =
      "id: gotchas/gamma-major\ntitle: G\nseverity: major\nstatus: open\nsymptom: |\n  x\n";
  CHECK(kb::same_evidence(
      *before, *with("gotchas/gamma-major.yaml", gamma + "oracles: [monolithic-equivalence]\n")));
  CHECK_FALSE(kb::same_evidence(*before, *with("gotchas/gamma-major.yaml", gamma)));
  CHECK_FALSE(kb::same_evidence(
      *before, *with("results/gamma-run.yaml",
                     "id: results/gamma-run\noracle: monolithic-equivalence\ndate: "
                     "2026-09-29\npassed: 1\nfailed: 0\n")));
  CHECK_FALSE(
      kb::same_evidence(*before, *with("engines/nixl.yaml", "id: engines/nixl\nname: Other\n")));
  CHECK(kb::same_evidence(
      *before, *with("engines/nixl.yaml", "id: engines/nixl\nname: NIXL\nrepo: ai-dynamo/nixl\n")));
}
