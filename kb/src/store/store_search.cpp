// Full-text search over the index: ranked hits with snippets, and the plain matches the
// gotcha list's `q=` filter uses (user text to FTS5 queries: store_query.h).

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kb/model.h"
#include "store/fts_tokenizer.h"
#include "store/store_hits.h"
#include "store/store_impl.h"
#include "store/store_query.h"
#include "store/store_ranker.h"

namespace kb {

using namespace query_text;

namespace {

// The best rows of a query by bm25 with column weights (id and content_hash are not text):
// a title hit outweighs one in the symptom, which outweighs the rest. bm25() is called as
// a function, not through FTS5's `rank` column: the same values for two thirds of the CPU
// (103 against 154 ms for a word in 92k of 100k records).
constexpr const char* kRankedQuery =
    "SELECT rowid, bm25(fts, 0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0) AS score FROM fts"
    " WHERE fts MATCH ? ORDER BY score LIMIT ?";
// A last term shorter than this is never taken as a prefix: "a*" matches everything.
constexpr std::size_t kMinPrefixChars = 3;

// Whether a query's last term may be taken as the start of a word: it has kMinPrefixChars,
// and so has its last token, the one the prefix applies to. `router's` is "router" then
// any word starting with "s" (every term starting so read, 60-100 ms at 100k records, to
// find what nobody typed); `kv-ca` is "kv" then any word starting with "ca".
bool prefix_allowed(sqlite3* db, const std::string& term) {
  if (utf8_chars(term) < kMinPrefixChars) return false;
  FtsTokenizer tok(db);
  const std::vector<std::string> tokens = tok.tokens(term, true);
  return tokens.empty() || utf8_chars(tokens.back()) >= kMinPrefixChars;
}

// The best rows of one FTS5 query, ranked once per index generation and kept: a word found
// in most records costs a ranking of every row holding it (about 0.2 s at 100k records),
// and a search box asks for the same few words again and again.
struct Ranked {
  std::mutex mu;  ///< held while ranking, so concurrent asks of one query rank it once
  bool ready = false;
  std::vector<std::pair<std::int64_t, double>> rows;  ///< (rowid, bm25) best first
  /// Hits of the first kKeptHits rows as read back (snippets made), by rowid: a row of
  /// one generation always reads back the same, and a snippet re-tokenizes the row.
  /// Kept from a query's second page on: most sentences are asked once, and copying
  /// their hits for nothing cost more than a page's JSON.
  std::mutex hits_mu;
  std::unordered_map<std::int64_t, SearchHit> hits;
  std::size_t pages = 0;  ///< pages read of this query (under hits_mu)
  /// Until `ready`: only the first rows a page showed (MemRanker::rank_first), the best
  /// `first_need` gotchas past the rows `first_skip` (ascending rowids).
  std::vector<std::pair<std::int64_t, double>> first_rows;
  std::size_t first_need = 0;
  std::vector<std::int64_t> first_skip;
};

// Rows ranked and kept per query: the largest page (limit 100) with room to skip rows a
// reload changed (the snapshot asks again for more when it drops some). Gotchas come first
// among these (gotchas_first), so fewer rows would change what a page shows, not only
// how deep it can go: the static site's search ranks with the same window.
constexpr std::int64_t kRankedRows = 256;
// Queries kept per generation; past this the cache starts over (a query ranks again).
constexpr std::size_t kMaxQueries = 512;
// Rows per query whose hits are kept with their snippets (the largest page: limit 100).
// At most 512 x 100 hits of ~300 bytes: 15 MiB.
constexpr std::size_t kKeptHits = 100;

}  // namespace

/// Every query's kept ranking, for one index generation.
struct RankedQueries {
  std::mutex mu;
  std::uint64_t generation = 0;
  std::unordered_map<std::string, std::shared_ptr<Ranked>> by_match;
};

std::shared_ptr<RankedQueries> make_ranked_queries() {
  return std::make_shared<RankedQueries>();
}

/// The ranking held in memory: one per generation, built here for a small index, on a
/// thread of its own for a large one (FTS5 ranks meanwhile).
struct MemRanking {
  std::mutex mu;
  std::shared_ptr<const MemRanker> ranker;
  std::uint64_t generation = 0;
  bool building = false;
  std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
  std::thread worker;
  ~MemRanking() {
    stop->store(true);
    if (worker.joinable()) worker.join();
  }
};

std::shared_ptr<MemRanking> make_mem_ranking() {
  return std::make_shared<MemRanking>();
}

namespace {

// Rows an index may have for its ranking to be built on the first search that needs it;
// a larger one is built on a thread (about 5 s at 100k records).
constexpr std::int64_t kBuildInline = 20000;

// The ranking in memory for generation `gen`, or nullptr while it is being built.
std::shared_ptr<const MemRanker> mem_ranker(const std::shared_ptr<MemRanking>& ranking,
                                            const std::filesystem::path& path, std::uint64_t gen,
                                            sqlite3* db) {
  MemRanking& m = *ranking;
  std::unique_lock<std::mutex> lock(m.mu);
  if (m.ranker && m.generation == gen) return m.ranker;
  if (m.building) return nullptr;
  std::int64_t rows = 0;
  {
    sql::Stmt count(db, "SELECT count(*) FROM fts_docsize");
    if (count.step()) rows = count.int64(0);
  }
  if (rows <= kBuildInline || path == ":memory:") {
    lock.unlock();
    auto built = MemRanker::build(db, nullptr);
    lock.lock();
    if (built && gen >= m.generation) {
      m.ranker = built;
      m.generation = gen;
    }
    return built;
  }
  if (m.worker.joinable()) m.worker.join();  // the last build, done
  m.building = true;
  std::weak_ptr<MemRanking> self = ranking;
  m.worker = std::thread([file = path.string(), gen, stop = m.stop, self] {
    std::shared_ptr<const MemRanker> built;
    sqlite3* conn = nullptr;
    if (sqlite3_open_v2(file.c_str(), &conn, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr) ==
        SQLITE_OK) {
      sqlite3_busy_timeout(conn, 2000);
      built = MemRanker::build(conn, stop.get());
    }
    sqlite3_close(conn);
    if (auto m = self.lock()) {
      std::lock_guard<std::mutex> lock(m->mu);
      m->building = false;
      if (built && gen >= m->generation) {
        m->ranker = std::move(built);
        m->generation = gen;
      }
    }
  });
  return nullptr;
}

// A part of a search as the ranking in memory takes it.
struct Query {
  const std::vector<std::vector<std::string>>* groups;
  bool prefix;
  MemRanker::Combine combine;
  MemRanker::Memo* memo = nullptr;  ///< what the search's parts share
};

// Gotchas before the other records among the best rows, each part in bm25 order: an
// operator searching a symptom wants the gotcha, then the engine or setting it names. Only
// the kept rows are looked up (a join over every match would cost a lookup per match).
void gotchas_first(sqlite3* db, std::vector<std::pair<std::int64_t, double>>& rows) {
  if (rows.size() < 2) return;
  std::string sql = "SELECT rowid FROM records WHERE kind != 'gotcha' AND rowid IN (";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) sql += ',';
    sql += std::to_string(rows[i].first);
  }
  sql += ')';
  sql::Stmt st(db, sql.c_str());
  std::unordered_map<std::int64_t, bool> other;
  while (st.step()) other.emplace(st.int64(0), true);
  if (other.empty()) return;
  std::stable_partition(rows.begin(), rows.end(),
                        [&](const auto& row) { return !other.count(row.first); });
}

// The kept ranking of `match` for index generation `gen`, ranking it first when no caller
// has, into `rows`: its best rows, gotchas first. When `need` > 0 and the ranking in memory
// answers, only the first `need` rows not in `seen` may be ranked and kept (`*whole`
// false): a page of a sentence's any-word matches needs no more, and finding them alone
// stops its walk far sooner. A caller holding an older generation than the cache ranks
// without keeping.
std::shared_ptr<Ranked> ranking(RankedQueries& cache, std::uint64_t gen, sqlite3* db,
                                const std::string& match, const MemRanker* mem, const Query& query,
                                std::size_t need, const std::unordered_set<std::int64_t>& seen,
                                std::vector<std::pair<std::int64_t, double>>& rows_out,
                                bool* whole) {
  std::shared_ptr<Ranked> entry;
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (gen > cache.generation) {
      cache.by_match.clear();
      cache.generation = gen;
    }
    if (gen == cache.generation) {
      if (cache.by_match.size() >= kMaxQueries && !cache.by_match.count(match))
        cache.by_match.clear();
      auto& slot = cache.by_match[match];
      if (!slot) slot = std::make_shared<Ranked>();
      entry = slot;
    }
  }
  if (!entry) entry = std::make_shared<Ranked>();
  std::lock_guard<std::mutex> lock(entry->mu);
  *whole = true;
  if (!entry->ready && need > 0 && mem) {
    std::vector<std::int64_t> skip(seen.begin(), seen.end());
    std::sort(skip.begin(), skip.end());
    if (entry->first_need >= need && entry->first_skip == skip) {
      rows_out = entry->first_rows;
      *whole = false;
      return entry;
    }
    bool all_rows = true;
    auto held = mem->rank_first(db, *query.groups, query.prefix, query.combine,
                                static_cast<std::size_t>(kRankedRows), query.memo,
                                MemRanker::First{need, &skip}, &all_rows);
    if (held && !all_rows) {
      entry->first_rows = std::move(*held);
      entry->first_need = need;
      entry->first_skip = std::move(skip);
      rows_out = entry->first_rows;
      *whole = false;
      return entry;
    }
    if (held) {
      mem->gotchas_first(*held);
      entry->rows = std::move(*held);
      entry->ready = true;
    }
  }
  if (!entry->ready) {
    // Into a local first: a ranking cut short (the query budget) must leave nothing behind.
    std::vector<std::pair<std::int64_t, double>> rows;
    std::optional<std::vector<std::pair<std::int64_t, double>>> held;
    if (mem)
      held = mem->rank(db, *query.groups, query.prefix, query.combine,
                       static_cast<std::size_t>(kRankedRows), query.memo);
    if (held) {
      rows = std::move(*held);
      mem->gotchas_first(rows);
    } else {
      sql::Stmt st(db, kRankedQuery);
      st.bind(1, match).bind(2, kRankedRows);
      while (st.step()) rows.emplace_back(st.int64(0), st.real(1));
      gotchas_first(db, rows);
    }
    entry->rows = std::move(rows);
    entry->ready = true;
    entry->first_rows.clear();
  }
  rows_out = entry->rows;
  return entry;
}

// Appends up to `limit` hits of FTS5 query `match`, best first: the kept ranking's first
// rows, with the hits kept beside it, reading back only the rows not kept yet.
// Rows in `seen` (an earlier part's hits) are skipped, and the rows added join it.
void ranked_hits(RankedQueries& cache, std::uint64_t gen, sqlite3* db, const std::string& match,
                 const MemRanker* mem, const Query& query, std::size_t limit,
                 std::vector<SearchHit>& out, std::unordered_set<std::int64_t>& seen) {
  std::vector<std::pair<std::int64_t, double>> ranked_rows;
  bool whole = true;
  auto ranked = ranking(cache, gen, db, match, mem, query, limit, seen, ranked_rows, &whole);
  std::vector<std::pair<std::int64_t, double>> rows;
  for (const auto& row : ranked_rows) {
    if (!seen.count(row.first)) rows.push_back(row);
  }
  std::size_t next = 0, added = 0;
  while (added < limit) {
    if (next == rows.size()) {
      // The first rows alone ran short (a reload removed some): the whole ranking makes up
      // for them, past the rows shown.
      if (whole) break;
      ranking(cache, gen, db, match, mem, query, 0, seen, ranked_rows, &whole);
      rows.clear();
      next = 0;
      for (const auto& row : ranked_rows) {
        if (!seen.count(row.first)) rows.push_back(row);
      }
      continue;
    }
    const std::size_t end = std::min(rows.size(), next + (limit - added));
    std::vector<std::optional<SearchHit>> batch(end - next);
    std::vector<std::int64_t> missing;
    bool keep = false;
    {
      std::lock_guard<std::mutex> lock(ranked->hits_mu);
      keep = ++ranked->pages > 1;
      for (std::size_t i = next; i < end; ++i) {
        auto it = ranked->hits.find(rows[i].first);
        if (it != ranked->hits.end())
          batch[i - next] = it->second;
        else
          missing.push_back(rows[i].first);
      }
    }
    auto found = read_hits(db, *query.groups, query.prefix, missing);
    if (keep) {
      std::lock_guard<std::mutex> lock(ranked->hits_mu);
      for (std::size_t i = next; i < std::min(end, kKeptHits); ++i) {
        auto it = found.find(rows[i].first);
        if (it != found.end()) ranked->hits.emplace(it->first, it->second);
      }
    }
    // A row a newer generation removed is missing here and skipped: the next rows make up
    // for it. (The snapshot drops rows that changed.)
    for (std::size_t i = next; i < end; ++i) {
      std::optional<SearchHit>& hit = batch[i - next];
      if (!hit) {
        auto it = found.find(rows[i].first);
        if (it == found.end()) continue;
        hit = std::move(it->second);
      }
      hit->rank = rows[i].second;
      out.push_back(std::move(*hit));
      seen.insert(rows[i].first);
      ++added;
    }
    next = end;
  }
}

// The rowid of the record a one-term query names by id (`engines/x`), or of the gotcha it
// names by slug (a word like `vllm` is a search, not the engine's page), if any: that
// record comes first.
std::optional<std::int64_t> named_record(sqlite3* db, const std::vector<std::string>& terms) {
  if (terms.size() != 1) return std::nullopt;
  std::string t;
  for (char c : terms[0]) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string ids[] = {t, std::string(kind_namespace(Kind::gotcha)) + "/" + t};
  sql::Stmt st(db, "SELECT rowid FROM records WHERE id=?");
  for (const std::string& id : ids) {
    st.reset();
    st.bind(1, id);
    if (st.step()) return st.int64(0);
  }
  return std::nullopt;
}

}  // namespace

std::vector<SearchHit> Store::search(std::string_view query, std::size_t limit,
                                     std::chrono::milliseconds budget,
                                     const SearchSynonyms* synonyms,
                                     std::vector<std::string>* found) const {
  if (found) found->clear();
  const std::vector<std::string> terms = content_terms(search_terms(query));
  if (terms.empty() || limit == 0) return {};
  std::vector<std::vector<std::string>> groups;
  for (const std::string& t : terms)
    groups.push_back(synonyms ? synonyms->alternatives(t) : std::vector<std::string>{t});
  if (synonyms) synonyms->join_pairs(terms, groups);
  Lease lease(impl_.get(), true);
  sqlite3* db = lease.get();
  QueryBudget limit_time(db, budget);
  // Read before any row: a ranking kept for this generation describes these rows or newer.
  const std::uint64_t gen = impl_->generation.load(std::memory_order_acquire);
  // Records holding every term as written come first; only when they are too few does
  // the last term count as the start of a word, for the rows not already found. Each part
  // is one plain query (no NOT) whose rows an earlier part found are skipped: its bm25 then
  // counts exactly the words it asks for, which the static site's search computes alike.
  const std::string exact = groups_query(groups, false);
  std::vector<SearchHit> hits;
  std::unordered_set<std::int64_t> seen;
  // A pasted id finds its record first (its id is in the indexed text, so it matches).
  if (auto rowid = named_record(db, terms)) {
    auto found = read_hits(db, groups, false, {*rowid});
    if (auto it = found.find(*rowid); it != found.end()) {
      hits.push_back(std::move(it->second));
      seen.insert(*rowid);
    }
  }
  // The ranking in memory answers as FTS5 would, without ranking every row holding a
  // common word; FTS5 answers while it is being built, and for phrases (`kv-cache`).
  const auto mem = mem_ranker(impl_->mem, impl_->path, gen, db);
  using C = MemRanker::Combine;
  MemRanker::Memo memo;
  const std::size_t named = hits.size();
  ranked_hits(*impl_->ranked, gen, db, exact, mem.get(), Query{&groups, false, C::all, &memo},
              limit - hits.size(), hits, seen);
  // A row holding every term as written: each term finds something.
  const bool every_found = hits.size() > named;
  const bool prefix_ok = prefix_allowed(db, terms.back());
  if (hits.size() < limit && prefix_ok)
    ranked_hits(*impl_->ranked, gen, db, groups_query(groups, true), mem.get(),
                Query{&groups, true, C::all, &memo}, limit - hits.size(), hits, seen);
  // Then the records holding some of the words, those holding more of them (and in their
  // title) first: a sentence finds what matches most of it.
  if (hits.size() < limit && terms.size() > 1)
    ranked_hits(*impl_->ranked, gen, db, any_query(groups), mem.get(),
                Query{&groups, false, C::any, &memo}, limit - hits.size(), hits, seen);
  if (found) {
    for (std::size_t g = 0; g < terms.size(); ++g) {
      if (every_found || memo.found(g).value_or(false)) found->push_back(terms[g]);
    }
  }
  return hits;
}

void Store::prepare_search() const {
  Lease lease(impl_.get(), true);
  const std::uint64_t gen = impl_->generation.load(std::memory_order_acquire);
  mem_ranker(impl_->mem, impl_->path, gen, lease.get());
}

std::string_view Store::search_ranking() const {
  const std::uint64_t gen = impl_->generation.load(std::memory_order_acquire);
  MemRanking& m = *impl_->mem;
  std::lock_guard<std::mutex> lock(m.mu);
  if (m.ranker && m.generation == gen) return "memory";
  return m.building ? "building" : "none";
}

bool Store::finds(std::string_view word, const SearchSynonyms* synonyms,
                  std::chrono::milliseconds budget, const std::vector<std::string>* found) const {
  const std::vector<std::string> terms = search_terms(word);
  // A term a search just found as written is found as a prefix too.
  if (found && terms.size() == 1 &&
      std::find(found->begin(), found->end(), terms[0]) != found->end())
    return true;
  if (terms.size() != 1) return !terms.empty() && !search(word, 1, budget, synonyms).empty();
  const std::vector<std::vector<std::string>> groups{synonyms ? synonyms->alternatives(terms[0])
                                                              : std::vector<std::string>{terms[0]}};
  Lease lease(impl_.get(), true);
  sqlite3* db = lease.get();
  QueryBudget limit_time(db, budget);
  // The terms in memory answer without reading the index.
  const std::uint64_t gen = impl_->generation.load(std::memory_order_acquire);
  if (auto mem = mem_ranker(impl_->mem, impl_->path, gen, db)) {
    if (auto found = mem->finds(db, groups.front(), prefix_allowed(db, terms[0]))) return *found;
  }
  sql::Stmt st(db, "SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1");
  st.bind(1, groups_query(groups, prefix_allowed(db, terms[0])));
  return st.step();
}

std::vector<std::pair<std::string, std::string>> Store::match(
    std::string_view query, std::chrono::milliseconds budget) const {
  std::string q = fts_query(query);
  if (q.empty()) return {};
  Lease lease(impl_.get(), true);
  sqlite3* db = lease.get();
  QueryBudget limit_time(db, budget);
  sql::Stmt st(db, "SELECT id, content_hash FROM fts WHERE fts MATCH ?");
  st.bind(1, q);
  std::vector<std::pair<std::string, std::string>> out;
  while (st.step()) out.emplace_back(st.text(0), st.text(1));
  return out;
}

}  // namespace kb
