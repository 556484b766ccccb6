#pragma once

// Fuzz target body: user text through kb::fts_query and a real FTS5 MATCH on an in-memory
// index of a few records. fts_query promises a query that is never an FTS5 syntax error,
// so any kb::Error other than a timeout breaks the invariant.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/store.h"

namespace kb::fuzz {

namespace detail {

inline const Store& search_fixture() {
  static const Store store = [] {
    std::vector<FileResult> files;
    files.push_back(load_record_text("engines/mooncake.yaml", "name: Mooncake\n"));
    files.push_back(
        load_record_text("gotchas/kv.yaml", R"(title: KV "cache" hit differs from a cold run
severity: major
status: open
symptom: |
  The prefix-cache *hit* returns output B; a cold run returns A. NEAR AND OR NOT ^ - + : ( )
workaround: Disable `prefix_caching` — or pin VLLM_BATCH_INVARIANT=1. Ünïcödé 日本語 テキスト
affects: [mooncake]
)"));
    files.push_back(load_record_text("gotchas/rdma.yaml", R"(title: RDMA transfer hangs
severity: minor
status: fixed
symptom: Mooncake's transfer engine hangs after 2^31 bytes on ucx.
)"));
    auto corpus = Corpus::from_files("fuzz", std::move(files));
    EvidenceIndex evidence = EvidenceIndex::build(*corpus);
    Store s = Store::open_writable(":memory:");
    s.sync(nullptr, *corpus, evidence);
    return s;
  }();
  return store;
}

}  // namespace detail

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string search(std::string_view data) {
  const std::string q = fts_query(data);
  int quotes = 0;
  for (char c : q) quotes += c == '"';
  if (quotes % 2 != 0) return "unbalanced quotes in " + q;
  try {
    auto hits = detail::search_fixture().search(data, 10);
    if (hits.size() > 10) return "more hits than the limit";
    for (const auto& h : hits) {
      if (h.id.empty()) return "hit without an id";
    }
  } catch (const Error& e) {
    if (e.code() != Errc::timeout) return std::string("search failed: ") + e.what();
  }
  return {};
}

}  // namespace kb::fuzz
