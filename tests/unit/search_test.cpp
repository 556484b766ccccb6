#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
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
  // Records holding only some of the words come after, those with more of them first.
  CHECK(ids(store().search("schedu knob", 10)) == std::vector<std::string>{"gotchas/body-hit"});
}

TEST_CASE("search: a sentence finds what matches most of it, stop words aside", "[search]") {
  // No record holds every word: the one holding the most comes first.
  CHECK(ids(store().search("why does the worker hang when I set the knob twice", 10)).at(0) ==
        "gotchas/body-hit");
  // Stop words alone are still searched.
  CHECK(ids(store().search("the of", 10)) ==
        std::vector<std::string>{"gotchas/title-hit", "gotchas/body-hit"});
  CHECK(ids(store().search("slow disks or wait", 10)) ==
        std::vector<std::string>{"gotchas/unrelated", "gotchas/title-hit"});
}

TEST_CASE("search: gotchas come before other records that match as well", "[search]") {
  kb::Store s = indexed({
      {"engines/zeta.yaml", "name: Zeta\ndescription: Zeta drift engine.\n"},
      {"gotchas/zz-drift.yaml",
       "title: Quiet failure\nseverity: minor\nstatus: open\nsymptom: Slow drift.\n"},
  });
  CHECK(ids(s.search("drift", 10)) == std::vector<std::string>{"gotchas/zz-drift", "engines/zeta"});
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

TEST_CASE("search: a last word is a prefix only when its last token has 3 characters",
          "[search]") {
  const kb::Store s = indexed({
      {"gotchas/session.yaml",
       "title: Sticky sessions\nseverity: minor\nstatus: open\n"
       "symptom: The router sends every session to one replica.\n"},
      {"gotchas/possessive.yaml",
       "title: Stale routes\nseverity: minor\nstatus: open\n"
       "symptom: The router's table keeps a dead replica.\n"},
      {"gotchas/cache.yaml",
       "title: Cold blocks\nseverity: minor\nstatus: open\nsymptom: The kv cache misses.\n"},
  });
  // "router's" is "router" then "s": not "router" then any word starting with "s".
  CHECK(ids(s.search("router's", 10)) == std::vector<std::string>{"gotchas/possessive"});
  // "kv-ca" would be "kv" then any word starting with "ca"; "kv-cac" is a prefix.
  CHECK(s.search("kv-ca", 10).empty());
  CHECK(ids(s.search("kv-cac", 10)) == std::vector<std::string>{"gotchas/cache"});
  // A word of one token keeps the rule it had: 3 characters.
  CHECK(ids(s.search("sessi", 10)) == std::vector<std::string>{"gotchas/session"});
}

namespace {

std::string gotcha(const std::string& title, const std::string& symptom) {
  return "title: " + title + "\nseverity: minor\nstatus: open\nsymptom: " + symptom + "\n";
}

// `n` records holding "drift" in their symptom, then the files `extra`.
std::vector<kb::FileResult> drift_files(
    int n, const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<kb::FileResult> files;
  for (int i = 0; i < n; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "gotchas/g%05d.yaml", i);
    files.push_back(kb::load_record_text(
        name, gotcha("Record " + std::to_string(i), "Clock drift between workers.")));
  }
  for (const auto& [path, yaml] : extra) files.push_back(kb::load_record_text(path, yaml));
  return files;
}

}  // namespace

TEST_CASE("search: a word in thousands of records ranks every one of them", "[search]") {
  // The title hit is the last row indexed: a ranking of only the first rows would miss it.
  auto corpus = kb::Corpus::from_files(
      "search", drift_files(2500, {{"gotchas/zz-title.yaml", gotcha("Drift", "Slow.")}}));
  kb::Store store = kb::Store::open_writable(":memory:");
  store.sync(nullptr, *corpus, kb::EvidenceIndex::build(*corpus));
  auto hits = store.search("drift", 3);
  REQUIRE(hits.size() == 3);
  CHECK(hits[0].id == "gotchas/zz-title");
  CHECK(hits[0].snippet ==
        "\x02"
        "Drift\x03");
  CHECK(hits[0].rank < hits[1].rank);
  CHECK(hits[1].rank == hits[2].rank);
  CHECK(hits[1].snippet ==
        "Clock \x02"
        "drift\x03 between workers.");
  // A longer page asked after a shorter one starts with the same hits.
  auto more = store.search("drift", 40);
  REQUIRE(more.size() == 40);
  CHECK(ids(more).at(0) == "gotchas/zz-title");
  CHECK(ids(more).at(1) == hits[1].id);
}

TEST_CASE("search: a ranking kept for a word is dropped when the index changes", "[search]") {
  auto first = kb::Corpus::from_files("search", drift_files(50, {}));
  kb::Store store = kb::Store::open_writable(":memory:");
  store.sync(nullptr, *first, kb::EvidenceIndex::build(*first));
  REQUIRE(store.search("drift", 5).size() == 5);
  CHECK(store.search("drift", 5).at(0).id != "gotchas/new-title");

  auto second = kb::Corpus::from_files(
      "search", drift_files(50, {{"gotchas/new-title.yaml", gotcha("Drift again", "Slow.")}}));
  store.sync(first.get(), *second, kb::EvidenceIndex::build(*second));
  auto hits = store.search("drift", 5);
  REQUIRE(hits.size() == 5);
  CHECK(hits[0].id == "gotchas/new-title");

  auto third = kb::Corpus::from_files("search", drift_files(3, {}));
  store.sync(second.get(), *third, kb::EvidenceIndex::build(*third));
  auto left = ids(store.search("drift", 10));
  std::sort(left.begin(), left.end());
  CHECK(left == std::vector<std::string>{"gotchas/g00000", "gotchas/g00001", "gotchas/g00002"});
}

TEST_CASE("search: hits kept with a ranking are the same as read back, and follow an edit",
          "[search]") {
  auto first = kb::Corpus::from_files(
      "search", drift_files(3, {{"gotchas/edited.yaml", gotcha("Drift", "Old words.")}}));
  kb::Store store = kb::Store::open_writable(":memory:");
  store.sync(nullptr, *first, kb::EvidenceIndex::build(*first));
  const auto cold = store.search("drift", 4);  // read back, and kept
  const auto warm = store.search("drift", 4);  // from what was kept
  REQUIRE(warm.size() == 4);
  for (std::size_t i = 0; i < cold.size(); ++i) {
    CHECK(warm[i].id == cold[i].id);
    CHECK(warm[i].title == cold[i].title);
    CHECK(warm[i].snippet == cold[i].snippet);
    CHECK(warm[i].content_hash == cold[i].content_hash);
    CHECK(warm[i].rank == cold[i].rank);
  }
  // Another query's snippet of the same row is its own.
  CHECK(store.search("clock", 1).at(0).snippet ==
        "\x02"
        "Clock\x03 drift between workers.");

  auto second = kb::Corpus::from_files(
      "search", drift_files(3, {{"gotchas/edited.yaml", gotcha("Drift, renamed", "New words.")}}));
  store.sync(first.get(), *second, kb::EvidenceIndex::build(*second));
  const auto after = store.search("drift", 1);
  REQUIRE(after.size() == 1);
  CHECK(after[0].id == "gotchas/edited");
  CHECK(after[0].title == "Drift, renamed");
  CHECK(after[0].content_hash != cold[0].content_hash);
}

TEST_CASE("search: a symptom's, engine's or setting's other spelling finds its own word",
          "[search]") {
  std::vector<kb::FileResult> files;
  const std::pair<std::string, std::string> records[] = {
      {"settings/symptom.yaml",
       "title: Symptom words\nkey: symptom\ntype: enum\nscope: symptom\nvalues:\n"
       "  - {value: corrupted, synonyms: [garbage, gibberish]}\n"
       "  - {value: hang, synonyms: [stuck]}\n"},
      {"settings/prefix-caching.yaml",
       "title: Prefix caching\nkey: prefix_caching\ntype: bool\nsynonyms: [apc]\n"},
      {"settings/gpu.yaml",
       "title: GPU\nkey: gpu\ntype: enum\nscope: hardware\nvalues:\n"
       "  - {value: a100, synonyms: [A100-80GB, \"NVIDIA-A100-*\"], implies: {gpu_arch: sm80}}\n"
       "  - {value: gb10, implies: {gpu_arch: sm121, unified_memory: true}}\n"},
      {"settings/gpu-arch.yaml",
       "title: GPU architecture\nkey: gpu_arch\ntype: enum\nscope: hardware\nvalues:\n"
       "  - {value: sm80, synonyms: [ampere-datacenter]}\n  - {value: sm121}\n"},
      {"settings/unified-memory.yaml",
       "title: Unified memory\nkey: unified_memory\ntype: bool\nscope: hardware\n"},
      {"engines/tensorrt-llm.yaml",
       "title: TensorRT-LLM\nname: TensorRT-LLM\nrepo: NVIDIA/TensorRT-LLM\n"
       "aliases: [trtllm]\n"},
      {"gotchas/corrupt-output.yaml",
       "title: Output is corrupted after a restore\nseverity: major\nstatus: open\n"
       "symptom: The decode stream is corrupted text.\n"},
      {"gotchas/stuck-worker.yaml",
       "title: The worker is stuck on a lock\nseverity: major\nstatus: open\n"
       "symptom: Requests hang forever.\n"},
      {"gotchas/cache-tensorrt.yaml",
       "title: Block reuse in tensorrt-llm loses prefix caching hits\nseverity: minor\n"
       "status: open\nsymptom: The hit rate is zero.\n"},
  };
  for (const auto& [path, yaml] : records) files.push_back(kb::load_record_text(path, yaml));
  auto corpus = kb::Corpus::from_files("synonyms", std::move(files));
  REQUIRE(kb::count_severity(corpus->diagnostics(), kb::Severity::error) == 0);
  const kb::SearchSynonyms syn = kb::search_synonyms(corpus->records());
  // Toward the group's own word, never to its siblings; the own word itself stays alone.
  CHECK(syn.alternatives("Garbage") == std::vector<std::string>{"Garbage", "corrupted"});
  CHECK(syn.alternatives("corrupted") == std::vector<std::string>{"corrupted"});
  CHECK(syn.alternatives("gibberish") == std::vector<std::string>{"gibberish", "corrupted"});
  // A plural finds its word; `-` and `_` alike; unknown words are left alone.
  CHECK(syn.alternatives("hangs") == std::vector<std::string>{"hangs"});
  CHECK(syn.alternatives("stucks") == std::vector<std::string>{"stucks", "hang"});
  CHECK(syn.alternatives("TRTLLM") == std::vector<std::string>{"TRTLLM", "tensorrt-llm"});
  CHECK(syn.alternatives("apc") == std::vector<std::string>{"apc", "prefix_caching"});
  CHECK(syn.alternatives("Prefix-Caching") == std::vector<std::string>{"Prefix-Caching"});
  CHECK(syn.alternatives("lmcache") == std::vector<std::string>{"lmcache"});
  // A card finds its architecture, never the way back (an architecture holds many cards),
  // and no bool it implies; its other names find it; patterns are no words.
  CHECK(syn.alternatives("A100") == std::vector<std::string>{"A100", "sm80"});
  CHECK(syn.alternatives("a100-80gb") == std::vector<std::string>{"a100-80gb", "a100"});
  CHECK(syn.alternatives("sm80") == std::vector<std::string>{"sm80"});
  CHECK(syn.alternatives("ampere-datacenter") ==
        std::vector<std::string>{"ampere-datacenter", "sm80"});
  CHECK(syn.alternatives("gb10") == std::vector<std::string>{"gb10", "sm121"});
  CHECK(syn.alternatives("NVIDIA-A100-*") == std::vector<std::string>{"NVIDIA-A100-*"});
  // Two words that join into a name written as one: the name joins the first word's.
  {
    const std::vector<std::string> terms{"tensorrt", "LLM", "Tensor", "RT", "prefix", "caching"};
    std::vector<std::vector<std::string>> groups;
    for (const auto& t : terms) groups.push_back(syn.alternatives(t));
    syn.join_pairs(terms, groups);
    // `tensorrt-llm` is no one-word name; `TensorRT` + `LLM` is not `tensorrtllm` either.
    CHECK(groups[0] == std::vector<std::string>{"tensorrt"});
    CHECK(groups[1] == std::vector<std::string>{"LLM"});
    // prefix_caching is written with `_`: not a one-word name.
    CHECK(groups[4] == std::vector<std::string>{"prefix"});
  }
  {
    const std::vector<std::string> terms{"garb", "age", "is", "gar", "bage"};
    std::vector<std::vector<std::string>> groups;
    for (const auto& t : terms) groups.push_back(syn.alternatives(t));
    syn.join_pairs(terms, groups);
    CHECK(groups[0] == std::vector<std::string>{"garb", "garbage"});
    CHECK(groups[1] == std::vector<std::string>{"age"});
    CHECK(groups[2] == std::vector<std::string>{"is"});  // `isgar` names nothing
    CHECK(groups[3] == std::vector<std::string>{"gar", "garbage"});
  }

  kb::EvidenceIndex evidence = kb::EvidenceIndex::build(*corpus);
  kb::Store store = kb::Store::open_writable(":memory:");
  store.sync(nullptr, *corpus, evidence);
  auto top = [&](const std::string& q, const kb::SearchSynonyms* s) {
    auto hits = store.search(q, 10, std::chrono::milliseconds(2000), s);
    return hits.empty() ? std::string() : hits.front().id;
  };
  auto gotchas = [&](const std::string& q) {
    std::vector<std::string> out;
    for (const auto& h : store.search(q, 10)) {
      if (h.id.starts_with("gotchas/")) out.push_back(h.id);
    }
    return out;
  };
  // No gotcha says "gibberish": without synonyms only the symptom record that lists it.
  CHECK(gotchas("gibberish").empty());
  CHECK(top("gibberish", &syn) == "gotchas/corrupt-output");
  CHECK(top("decode gibberish", &syn) == "gotchas/corrupt-output");
  CHECK(top("worker stuck", &syn) == "gotchas/stuck-worker");
  CHECK(top("apc trtllm", &syn) == "gotchas/cache-tensorrt");
  CHECK(gotchas("apc trtllm").empty());
  // Whether a word alone finds anything, as search would: as written, as a prefix, by a
  // synonym; without ranking.
  CHECK(store.finds("corrupted"));
  CHECK(store.finds("corrup"));
  CHECK_FALSE(store.finds("co"));
  CHECK_FALSE(store.finds("blorpt"));
  CHECK(store.finds("Trtllm", &syn));
  CHECK(store.finds("knob worker"));  // a sentence: any of its words
  CHECK_FALSE(store.finds(""));
  // A search says which of its terms it saw some row hold (as written or by a synonym):
  // the typo check then looks only for the others. Every word of a row found; some words
  // of none; a word found only by its synonym; a word found only as a prefix is not
  // reported (finds() looks for it).
  std::vector<std::string> found;
  store.search("worker lock", 10, std::chrono::milliseconds(2000), &syn, &found);
  CHECK(found == std::vector<std::string>{"worker", "lock"});
  store.search("blorpt decode corrup trtllm", 10, std::chrono::milliseconds(2000), &syn, &found);
  CHECK(found == std::vector<std::string>{"decode", "trtllm"});
  for (const std::string w : {"blorpt", "decode", "corrup", "trtllm"}) {
    INFO(w);
    CHECK(store.finds(w, &syn, std::chrono::milliseconds(2000), &found) == store.finds(w, &syn));
  }
  CHECK(store.finds("blorpt", &syn, std::chrono::milliseconds(2000),
                    &found) == false);  // not reported: looked for, and not found
}

TEST_CASE("search: a page asked after a shorter one is the page a first search gives", "[search]") {
  // 400 records holding some of five words, each a different number of times: a sentence
  // of them ranks rows in many orders, more than a first short ranking keeps.
  const std::vector<std::string> words = {"drift", "clock", "stall", "queue", "worker"};
  auto files = [&] {
    std::vector<kb::FileResult> out;
    for (int i = 0; i < 400; ++i) {
      std::string symptom;
      for (std::size_t w = 0; w < words.size(); ++w) {
        for (int n = 0; n < (i * static_cast<int>(w + 3) + i / 7) % 4; ++n)
          symptom += words[w] + " ";
      }
      char name[32];
      std::snprintf(name, sizeof name, "gotchas/p%05d.yaml", i);
      out.push_back(
          kb::load_record_text(name, gotcha("Record " + std::to_string(i), symptom + "end.")));
    }
    return out;
  };
  auto corpus = kb::Corpus::from_files("search", files());
  kb::Store grown = kb::Store::open_writable(":memory:");
  grown.sync(nullptr, *corpus, kb::EvidenceIndex::build(*corpus));
  kb::Store fresh = kb::Store::open_writable(":memory:");
  fresh.sync(nullptr, *corpus, kb::EvidenceIndex::build(*corpus));
  for (const char* q : {"drift clock stall", "queue stall worker drift", "worker clock"}) {
    INFO(q);
    const auto few = grown.search(q, 5);
    const auto page = grown.search(q, 100);  // more rows than the first ranking kept
    const auto want = fresh.search(q, 100);
    REQUIRE(page.size() == 100);
    CHECK(ids(page) == ids(want));
    for (std::size_t i = 0; i < few.size(); ++i) CHECK(few[i].id == page[i].id);
    for (std::size_t i = 0; i < page.size(); ++i) CHECK(page[i].rank == want[i].rank);
  }
}
