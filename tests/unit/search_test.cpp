#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "kb/corpus.h"
#include "kb/evidence.h"
#include "kb/store.h"

namespace {

kb::Store indexed(const std::vector<std::pair<std::string, std::string>>& records) {
  std::vector<kb::FileResult> files;
  for (const auto& [path, yaml] : records) files.push_back(kb::load_record_text(path, yaml));
  auto corpus = kb::Corpus::from_files("search", std::move(files));
  kb::EvidenceIndex evidence = kb::EvidenceIndex::build(*corpus);
  kb::Store store = kb::Store::open_writable(":memory:");
  store.sync(nullptr, *corpus, evidence);
  return store;
}

// "scheduler" in a title outweighs a body word by far, so a prefix query for "sched"
// ranks it first; the word as written is only in the other record's symptom.
const kb::Store& store() {
  static const kb::Store s = indexed({
      {"gotchas/title-hit.yaml",
       "title: Scheduler starves the decode queue\nseverity: major\nstatus: open\n"
       "symptom: Requests wait forever.\n"},
      {"gotchas/body-hit.yaml",
       "title: Knob confusion\nseverity: minor\nstatus: open\n"
       "symptom: Setting the sched knob twice hangs the worker.\n"},
      {"gotchas/unrelated.yaml",
       "title: Disk thrashing\nseverity: info\nstatus: open\nsymptom: Slow disks.\n"},
  });
  return s;
}

std::vector<std::string> ids(const std::vector<kb::SearchHit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.id);
  return out;
}

}  // namespace

TEST_CASE("search: records with the word as written come before prefix matches", "[search]") {
  CHECK(ids(store().search("sched", 10)) ==
        std::vector<std::string>{"gotchas/body-hit", "gotchas/title-hit"});
  // The exact hit alone fills a limit of one: no prefix match is looked for.
  CHECK(ids(store().search("sched", 1)) == std::vector<std::string>{"gotchas/body-hit"});
  // Every term must hold; only the last may be a prefix.
  CHECK(ids(store().search("knob sched", 10)) == std::vector<std::string>{"gotchas/body-hit"});
  CHECK(ids(store().search("sched knob", 10)) == std::vector<std::string>{"gotchas/body-hit"});
  CHECK(store().search("schedu knob", 10).empty());
}

TEST_CASE("search: among prefix matches bm25 ranks, title first", "[search]") {
  CHECK(ids(store().search("sch", 10)) ==
        std::vector<std::string>{"gotchas/title-hit", "gotchas/body-hit"});
  auto hits = store().search("sch", 10);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].rank < hits[1].rank);
  CHECK(hits[0].snippet.find("\x02Scheduler\x03") != std::string::npos);
}

TEST_CASE("search: a last word under 3 characters is never a prefix", "[search]") {
  CHECK(store().search("sc", 10).empty());
  CHECK(store().search("s", 10).empty());
  // The FTS query for filtering lists keeps its prefix.
  CHECK(kb::fts_query("kv sc") == "\"kv\" \"sc\"*");
}
