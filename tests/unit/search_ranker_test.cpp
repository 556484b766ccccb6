// The ranking search holds in memory (kb/src/store/store_ranker.h) against FTS5's own: for
// queries made of the bundled records' terms -- single words, AND-ed pairs, OR-ed
// sentences, prefixes -- the same rows come back in the same order with the same bm25
// scores as `ORDER BY bm25(fts, ...)`. A difference here is a difference operators would
// see between a small and a large knowledge base, or between server and static site.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

#include "kb/corpus.h"
#include "kb/evidence.h"
#include "kb/store.h"
#include "store/fts_tokenizer.h"
#include "store/store_ranker.h"
#include "store/store_snippet.h"
#include "store/store_topk.h"

namespace fs = std::filesystem;
using Rows = std::vector<std::pair<std::int64_t, double>>;

namespace {

struct Index {
  fs::path dir;
  fs::path file;
  sqlite3* db = nullptr;
  Index() {
    dir = fs::temp_directory_path() / ("kb-ranker-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    file = dir / "kb.db";
    auto corpus = kb::Corpus::load(fs::path(KB_SOURCE_DIR) / "records");
    kb::EvidenceIndex evidence = kb::EvidenceIndex::build(*corpus);
    {
      kb::Store store = kb::Store::open_writable(file);
      store.sync(nullptr, *corpus, evidence);
    }
    sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  }
  ~Index() {
    sqlite3_close(db);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

Index& index() {
  static Index i;
  return i;
}

Rows fts5(sqlite3* db, const std::string& match, std::size_t k) {
  kb::sql::Stmt st(db,
                   "SELECT rowid, bm25(fts, 0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0) AS score FROM fts"
                   " WHERE fts MATCH ? ORDER BY score, rowid LIMIT ?");
  st.bind(1, match).bind(2, static_cast<std::int64_t>(k));
  Rows out;
  while (st.step()) out.emplace_back(st.int64(0), st.real(1));
  return out;
}

std::string quoted(const std::string& t) {
  return "\"" + t + "\"";
}

// Terms of the index at several document frequencies: rare, middling and common.
std::vector<std::string> sample_terms(sqlite3* db) {
  sqlite3_exec(db, "CREATE VIRTUAL TABLE IF NOT EXISTS temp.t_row USING fts5vocab(main, fts, row)",
               nullptr, nullptr, nullptr);
  kb::sql::Stmt st(db,
                   "SELECT term FROM temp.t_row WHERE term GLOB '[a-z]*' AND length(term) > 3 "
                   "ORDER BY doc DESC, term");
  std::vector<std::string> all;
  while (st.step()) all.push_back(st.text(0));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < all.size(); i += std::max<std::size_t>(1, all.size() / 60))
    out.push_back(all[i]);
  return out;
}

void same(const Rows& want, const std::optional<Rows>& got, const std::string& what) {
  INFO(what);
  REQUIRE(got);
  REQUIRE(got->size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("row " << i);
    CHECK((*got)[i].first == want[i].first);
    CHECK(std::abs((*got)[i].second - want[i].second) <=
          1e-12 * std::max(1.0, std::abs(want[i].second)));
  }
}

// Whether `spelling` finds anything in memory (the typo check), as written and as a
// prefix, as FTS5 says.
void finds_as_fts5(sqlite3* db, const kb::MemRanker& ranker, const std::string& spelling) {
  for (bool prefix : {false, true}) {
    INFO(spelling << (prefix ? "*" : ""));
    kb::sql::Stmt st(db, "SELECT 1 FROM fts WHERE fts MATCH ? LIMIT 1");
    st.bind(1, quoted(spelling) + (prefix ? "*" : ""));
    const bool want = st.step();
    const auto got = ranker.finds(db, {spelling}, prefix);
    REQUIRE(got);
    CHECK(*got == want);
  }
}

// An empty in-memory table shaped like the index's `fts` (its columns and tokenizer), for
// snippets of a test's own rows; nullptr if it cannot be made.
sqlite3* fts_table() {
  sqlite3* db = nullptr;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    sqlite3_close(db);
    return nullptr;
  }
  kb::sql::exec(db,
                "CREATE VIRTUAL TABLE fts USING fts5(id UNINDEXED, content_hash UNINDEXED, title,"
                " symptom, root_cause, workaround, notes, other,"
                " tokenize='porter unicode61 remove_diacritics 2')");
  return db;
}

// Compares kb's snippet of each row `match` finds (at most `limit`, in rowid order) with
// FTS5's snippet(); returns how many rows were compared.
std::size_t compare_snippets(sqlite3* db, kb::FtsTokenizer& tok, const std::string& match,
                             const std::vector<kb::SnippetPhrase>& phrases, int limit) {
  static const std::vector<bool> kIndexed = {false, false, true, true, true, true, true, true};
  const kb::SnippetStyle style{"\x02", "\x03", "\xe2\x80\xa6", 24};
  kb::sql::Stmt st(db,
                   "SELECT rowid, snippet(fts, -1, char(2), char(3), '…', 24), id, content_hash,"
                   " title, symptom, root_cause, workaround, notes, other FROM fts"
                   " WHERE fts MATCH ? ORDER BY rowid LIMIT ?");
  st.bind(1, match);
  st.bind(2, static_cast<std::int64_t>(limit));
  std::size_t compared = 0;
  while (st.step()) {
    std::vector<std::string_view> cols;
    for (int c = 2; c < 10; ++c) cols.push_back(st.view(c));
    INFO("rowid " << st.int64(0));
    CHECK(kb::make_snippet(tok, cols, kIndexed, phrases, style) == st.text(1));
    ++compared;
  }
  return compared;
}

}  // namespace

TEST_CASE("search ranking in memory: FTS5's rows, order and bm25 for every kind of query",
          "[search][ranker]") {
  sqlite3* db = index().db;
  REQUIRE(db);
  auto ranker = kb::MemRanker::build(db, nullptr);
  REQUIRE(ranker);
  CHECK(ranker->rows() > 250);
  const auto terms = sample_terms(db);
  REQUIRE(terms.size() >= 40);
  using C = kb::MemRanker::Combine;
  const std::size_t k = 256;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string& a = terms[i];
    const std::string& b = terms[(i * 7 + 3) % terms.size()];
    const std::string& c = terms[(i * 13 + 5) % terms.size()];
    same(fts5(db, quoted(a), k), ranker->rank(db, {{a}}, false, C::all, k), a);
    same(fts5(db, quoted(a) + " " + quoted(b), k), ranker->rank(db, {{a}, {b}}, false, C::all, k),
         a + " AND " + b);
    same(fts5(db, quoted(a) + " OR " + quoted(b) + " OR " + quoted(c), k),
         ranker->rank(db, {{a}, {b}, {c}}, false, C::any, k), a + " OR " + b + " OR " + c);
    // A group of spellings, AND-ed with another word.
    same(fts5(db, "(" + quoted(a) + " OR " + quoted(c) + ") AND " + quoted(b), k),
         ranker->rank(db, {{a, c}, {b}}, false, C::all, k), "(a|c) b");
    // One search's three parts sharing what they have in common.
    kb::MemRanker::Memo memo;
    same(fts5(db, quoted(a) + " " + quoted(c), k),
         ranker->rank(db, {{a}, {c}}, false, C::all, k, &memo), "memo: a c");
    same(fts5(db, quoted(a) + " " + quoted(c) + "*", k),
         ranker->rank(db, {{a}, {c}}, true, C::all, k, &memo), "memo: a c*");
    same(fts5(db, quoted(a) + " OR " + quoted(c), k),
         ranker->rank(db, {{a}, {c}}, false, C::any, k, &memo), "memo: a OR c");
    // The last word as the start of a word.
    const std::string start = a.substr(0, 4);
    same(fts5(db, quoted(b) + " " + quoted(start) + "*", k),
         ranker->rank(db, {{b}, {start}}, true, C::all, k), b + " " + start + "*");
  }
  // Words as an operator types them: the tokenizer folds case and stems.
  same(fts5(db, quoted("Hangs") + " OR " + quoted("Decoding"), k),
       ranker->rank(db, {{"Hangs"}, {"Decoding"}}, false, C::any, k), "Hangs OR Decoding");
  // Whether a word finds anything (the typo check), as FTS5 says.
  for (const std::string& w : {std::string("hang"), std::string("hangs"), std::string("nixl"),
                               std::string("zzqx"), std::string("lmca"), std::string("Decod")}) {
    finds_as_fts5(db, *ranker, w);
  }
  // Spellings of several tokens are phrases: their tokens side by side in one column, the
  // last one a prefix when asked; alone, AND-ed, OR-ed and among other spellings.
  const std::vector<std::string> phrases = {
      "kv-cache",       "prefix-cache", "tensorrt-llm",         "router's",         "p/d",
      "nixl agent",     "cache hit",    "--kv-transfer-config", "vllm serve model", "lmcache.v1",
      "does-not-occur", "decode decode"};
  for (std::size_t i = 0; i < phrases.size(); ++i) {
    const std::string& p = phrases[i];
    const std::string& w = terms[(i * 11 + 2) % terms.size()];
    same(fts5(db, quoted(p), k), ranker->rank(db, {{p}}, false, C::all, k), p);
    same(fts5(db, quoted(p) + "*", k), ranker->rank(db, {{p}}, true, C::all, k), p + "*");
    same(fts5(db, quoted(w) + " " + quoted(p), k), ranker->rank(db, {{w}, {p}}, false, C::all, k),
         w + " AND " + p);
    same(fts5(db, quoted(p) + " OR " + quoted(w), k),
         ranker->rank(db, {{p}, {w}}, false, C::any, k), p + " OR " + w);
    same(fts5(db, "(" + quoted(w) + " OR " + quoted(p) + ") AND " + quoted("cache"), k),
         ranker->rank(db, {{w, p}, {"cache"}}, false, C::all, k), "(w|p) cache");
    const std::string part = p.substr(0, p.size() - 2);
    same(fts5(db, quoted(part) + "*", k), ranker->rank(db, {{part}}, true, C::all, k), part + "*");
    finds_as_fts5(db, *ranker, p);
  }
  // A word of no record ends an all-words search at once, and is nothing in an any-word one.
  same(fts5(db, quoted("cache") + " " + quoted("zzqxv"), k),
       ranker->rank(db, {{"cache"}, {"zzqxv"}}, false, C::all, k), "cache zzqxv");
  same(fts5(db, quoted("cache") + " OR " + quoted("zzqxv"), k),
       ranker->rank(db, {{"cache"}, {"zzqxv"}}, false, C::any, k), "cache OR zzqxv");
  // Fewer rows asked than found: the best ones, in order.
  same(fts5(db, quoted("cache"), 7), ranker->rank(db, {{"cache"}}, false, C::all, 7), "cache k=7");
  // A spelling with no token (a lone symbol): FTS5 answers it.
  CHECK_FALSE(ranker->rank(db, {{"\xe2\x80\x94"}}, false, C::all, k));
}

TEST_CASE("search snippets from the stored text: FTS5's snippet() for every kind of query",
          "[search][ranker]") {
  sqlite3* db = index().db;
  REQUIRE(db);
  kb::FtsTokenizer tok(db);
  REQUIRE(tok.ok());
  const auto terms = sample_terms(db);
  REQUIRE(terms.size() >= 40);
  // Each query: its FTS5 text and its phrases (spellings, the last one a prefix or not).
  struct Q {
    std::string match;
    std::vector<std::string> spellings;
    bool prefix_last;
  };
  std::vector<Q> queries;
  const std::vector<std::string> phrases = {"kv-cache",     "prefix cache", "router's",  "p/d",
                                            "tensorrt-llm", "cache hit",    "lmcache.v1"};
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string& a = terms[i];
    const std::string& b = terms[(i * 7 + 3) % terms.size()];
    const std::string& p = phrases[i % phrases.size()];
    queries.push_back({quoted(a), {a}, false});
    queries.push_back({quoted(a) + " OR " + quoted(b) + " OR " + quoted(p), {a, b, p}, false});
    queries.push_back(
        {quoted(b) + " OR " + quoted(a.substr(0, 4)) + "*", {b, a.substr(0, 4)}, true});
    queries.push_back({quoted(p) + " OR " + quoted(a), {p, a}, false});
    queries.push_back({quoted(a) + " OR " + quoted(p.substr(0, p.size() - 1)) + "*",
                       {a, p.substr(0, p.size() - 1)},
                       true});
  }
  std::size_t compared = 0;
  for (const Q& q : queries) {
    INFO(q.match);
    std::vector<kb::SnippetPhrase> ph;
    for (std::size_t i = 0; i < q.spellings.size(); ++i) {
      const bool prefix = q.prefix_last && i + 1 == q.spellings.size();
      ph.push_back({tok.tokens(q.spellings[i], prefix), prefix});
    }
    compared += compare_snippets(db, tok, q.match, ph, 40);
  }
  CHECK(compared > 2000);
}

TEST_CASE("search snippets: words of any length among any ASCII bytes split as FTS5 splits them",
          "[search][ranker]") {
  // Words are found eight bytes a step: words longer and shorter than eight, next to every
  // ASCII byte (the letters' neighbours '@', '[', '`', '{', digits' '/', ':'), sentence
  // ends, and now and then a byte past ASCII (the column is then tokenized whole).
  sqlite3* db = fts_table();
  REQUIRE(db);
  std::mt19937 rng(5);
  const std::string letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::vector<std::string> vocabulary;
  for (int i = 0; i < 60; ++i) {
    std::string w;
    const std::size_t len = 1 + rng() % 19;
    for (std::size_t k = 0; k < len; ++k) w += letters[rng() % letters.size()];
    vocabulary.push_back(w);
  }
  auto text = [&] {
    std::string t;
    const std::size_t words = rng() % 60;
    for (std::size_t k = 0; k < words; ++k) {
      t += vocabulary[rng() % vocabulary.size()];
      const unsigned r = rng() % 10;
      if (r < 5)
        t += ' ';
      else if (r < 7)
        t += ". ";
      else if (r < 9)
        t += static_cast<char>(1 + rng() % 127);  // any ASCII byte, letters and digits too
      else if (rng() % 8 == 0)
        t += "\xc3\xa9 ";  // past ASCII
      else
        t += ":\n";
    }
    return t;
  };
  for (std::int64_t rowid = 1; rowid <= 300; ++rowid) {
    kb::sql::Stmt ins(db,
                      "INSERT INTO fts(rowid, id, content_hash, title, symptom, root_cause,"
                      " workaround, notes, other) VALUES (?, 'x', 'h', ?, ?, ?, ?, ?, ?)");
    ins.bind(1, rowid);
    for (int c = 2; c <= 7; ++c) ins.bind(c, text());
    ins.step();
  }
  kb::FtsTokenizer tok(db);
  REQUIRE(tok.ok());
  std::size_t compared = 0;
  for (int q = 0; q < 120; ++q) {
    std::string a = vocabulary[rng() % vocabulary.size()];
    std::string b = vocabulary[rng() % vocabulary.size()];
    for (char& ch : a) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (char& ch : b) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool prefix = q % 3 == 0 && b.size() >= 3;
    if (prefix) b = b.substr(0, 3);
    INFO(a << " OR " << b << (prefix ? "*" : ""));
    const std::vector<kb::SnippetPhrase> ph{{tok.tokens(a, false), false},
                                            {tok.tokens(b, prefix), prefix}};
    if (ph[0].tokens.empty() || ph[1].tokens.empty()) continue;
    const std::string& qa = a;
    const std::string& qb = b;
    compared += compare_snippets(db, tok, quoted(qa) + " OR " + quoted(qb) + (prefix ? "*" : ""),
                                 ph, 1000);
  }
  CHECK(compared > 2000);
  sqlite3_close(db);
}

TEST_CASE("search snippets: a column is skipped only when no word in it can stem to a phrase",
          "[search][ranker]") {
  // Porter changes a word's second byte in one way ("eyed" -> "ei"), keeps the first, and
  // folds case and diacritics before: each row puts the one word the query finds in a
  // later column, behind a first column that must be read or skipped rightly.
  sqlite3* db = fts_table();
  REQUIRE(db);
  const std::vector<std::string> words = {"eyed",  "EYED",   "Days",      "ays",     "\xc3\x89yed",
                                          "a",     "i",      "x1",        "caching", "ponies",
                                          "happy", "hoping", "relational"};
  std::int64_t rowid = 0;
  for (const std::string& w : words) {
    kb::sql::Stmt ins(db,
                      "INSERT INTO fts(rowid, id, content_hash, title, symptom, root_cause,"
                      " workaround, notes, other) VALUES (?, 'x', 'h', 'A title of words', ?, ?,"
                      " '', 'an unrelated note', ?)");
    ins.bind(1, ++rowid);
    ins.bind(2, "nothing here but " + w + " at the end of a long enough sentence to cut");
    ins.bind(3, "Some other text. Then " + w + ".");
    ins.bind(4, w + " " + w);
    ins.step();
  }
  kb::FtsTokenizer tok(db);
  REQUIRE(tok.ok());
  std::size_t compared = 0;
  for (const std::string q : {"eyed", "ei", "days", "day", "a", "i", "x1", "cach", "poni", "happi",
                              "hope", "relat", "eye", "ey"}) {
    for (const bool prefix : {false, true}) {
      INFO(q << (prefix ? "*" : ""));
      const std::vector<kb::SnippetPhrase> ph{{tok.tokens(q, prefix), prefix}};
      compared += compare_snippets(db, tok, "\"" + q + "\"" + (prefix ? "*" : ""), ph, 1000);
    }
  }
  CHECK(compared > 20);
  sqlite3_close(db);
}

TEST_CASE("search ranking in memory: a word's kept scores rank as working them out does",
          "[search][ranker]") {
  sqlite3* db = index().db;
  REQUIRE(db);
  // Every word keeps its scores after its first search (the default keeps common ones).
  auto keeping = kb::MemRanker::build(db, nullptr, 1);
  auto fresh = kb::MemRanker::build(db, nullptr, 1u << 31);
  REQUIRE(keeping);
  REQUIRE(fresh);
  // The commonest words' scores are kept before any search (here: every word's).
  CHECK(keeping->bytes() > fresh->bytes());
  const auto terms = sample_terms(db);
  using C = kb::MemRanker::Combine;
  const std::size_t before = keeping->bytes();
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = 0; i < terms.size(); ++i) {
      const std::string& a = terms[i];
      const std::string& b = terms[(i * 5 + 1) % terms.size()];
      const auto kept = keeping->rank(db, {{a}, {b}}, false, C::any, 256);
      const auto worked = fresh->rank(db, {{a}, {b}}, false, C::any, 256);
      REQUIRE(kept);
      REQUIRE(worked);
      INFO(a << " OR " << b << ", round " << round);
      CHECK(*kept == *worked);  // the same rows and the very same scores
      same(fts5(db, quoted(a) + " OR " + quoted(b), 256), kept, a + " OR " + b);
      // Phrases and a word's start keep theirs too.
      const std::string start = b.substr(0, 4);
      const std::string phrase = i % 2 ? "kv-cache" : "router's";
      const auto kept_phrase = keeping->rank(db, {{a}, {phrase}, {start}}, true, C::any, 20);
      const auto worked_phrase = fresh->rank(db, {{a}, {phrase}, {start}}, true, C::any, 20);
      REQUIRE(kept_phrase);
      REQUIRE(worked_phrase);
      CHECK(*kept_phrase == *worked_phrase);
      same(fts5(db, quoted(a) + " OR " + quoted(phrase) + " OR " + quoted(start) + "*", 20),
           kept_phrase, "phrase and start");
    }
    // The first round kept the phrases' and starts' scores; the second found them.
    CHECK(keeping->bytes() > before);
  }
  // The typo check answers from kept phrases (as written or as a prefix) as FTS5 does:
  // phrases found, phrases of no row, a phrase kept only as written asked as a prefix.
  for (const std::string p : {"kv-cache", "router's", "does-not-occur", "cache hit", "p/d"}) {
    for (bool prefix : {false, true}) {
      REQUIRE(keeping->rank(db, {{p}}, prefix, C::all, 5));
      finds_as_fts5(db, *keeping, p);
    }
  }
  REQUIRE(keeping->rank(db, {{"decode decode"}}, false, C::all, 5));
  finds_as_fts5(db, *keeping, "decode decode");
  finds_as_fts5(db, *keeping, "decode deco");
  CHECK(fresh->bytes() == kb::MemRanker::build(db, nullptr, 1u << 31)->bytes());
}

namespace {

// Every row scored, as the ranking did before it stopped early: the shares added in
// phrase order, the rows every group (or any) holds kept, best first.
std::vector<std::pair<std::uint32_t, double>> every_row(const std::vector<kb::TopkPhrase>& phrases,
                                                        std::size_t groups, bool all,
                                                        std::size_t k) {
  std::map<std::uint32_t, std::pair<double, std::uint32_t>> rows;  // row -> score, groups
  for (const auto& p : phrases) {
    for (std::size_t i = 0; i < p.rows->size(); ++i) {
      auto& [score, mask] = rows[p.rows->rows[i]];
      score += p.rows->shares[i];
      mask |= 1u << p.group;
    }
  }
  std::vector<std::pair<std::uint32_t, double>> out;
  for (const auto& [row, s] : rows) {
    if (!all || s.second == (1u << groups) - 1) out.emplace_back(row, s.first);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (out.size() > k) out.resize(k);
  return out;
}

// Lists shaped like a sentence's words: a few rare ones with large shares, common ones
// with small shares, some rows in many lists, and shares drawn from a few values so that
// ties (broken by the lower row) are common.
struct SentenceLists {
  std::size_t groups;
  std::size_t rows_in_index;
  std::vector<kb::ScoredRows> lists;
  std::vector<kb::TopkPhrase> phrases;
  explicit SentenceLists(std::mt19937& rng)
      : groups(1 + rng() % 6), rows_in_index(50 + rng() % 3000) {
    std::vector<std::size_t> group_of;
    for (std::size_t g = 0; g < groups; ++g) {
      const std::size_t spellings = 1 + (rng() % 4 == 0 ? rng() % 3 : 0);
      for (std::size_t a = 0; a < spellings; ++a) {
        kb::ScoredRows l;
        const double density = std::pow(0.5, static_cast<double>(rng() % 10));
        const double idf = 0.01 + static_cast<double>(rng() % 1000) / 100.0 * (1 - density);
        for (std::uint32_t row = 0; row < rows_in_index; ++row) {
          if (std::uniform_real_distribution<double>(0, 1)(rng) < density)
            l.add(row, idf * (1 + static_cast<double>(rng() % 4) / 4.0));
        }
        // Half the lists are looked up by their dense index (a long list's, in the ranker),
        // the others searched.
        if (rng() % 2 == 0) l.index(rows_in_index);
        lists.push_back(std::move(l));
        group_of.push_back(g);
      }
    }
    for (std::size_t i = 0; i < lists.size(); ++i) phrases.push_back({&lists[i], group_of[i]});
  }
  SentenceLists(const SentenceLists&) = delete;
};

}  // namespace

TEST_CASE("search ranking: a long list's dense index gives each row's place, each window's bound",
          "[search][ranker]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 1 + rng() % 5000;
    const double density = std::pow(0.5, static_cast<double>(rng() % 7));
    kb::ScoredRows l;
    for (std::uint32_t row = 0; row < n; ++row) {
      if (std::uniform_real_distribution<double>(0, 1)(rng) < density)
        l.add(row, std::uniform_real_distribution<double>(0.001, 20)(rng));
    }
    l.index(n);
    INFO("round " << round << ": " << l.size() << " of " << n << " rows");
    // Indexed only when it holds a row in 16 (an empty list never is).
    CHECK(l.indexed() == (!l.rows.empty() && l.size() * 16 >= n));
    if (!l.indexed()) continue;
    std::size_t at = 0;
    for (std::uint32_t row = 0; row < n + 130; ++row) {
      const bool held = at < l.size() && l.rows[at] == row;
      REQUIRE(l.place(row) == (held ? at : l.size()));
      // Each window of 64 row numbers: where its rows start, and a bound of their shares
      // no further from the largest than a float's rounding.
      if (row % 64 == 0) CHECK(l.window_start(row / 64) == at);
      if (held) {
        const double most = l.window_max(row / 64);
        CHECK(most >= l.shares[at]);
        double largest = 0;
        for (std::size_t i = at; i < l.size() && l.rows[i] / 64 == row / 64; ++i)
          largest = std::max(largest, l.shares[i]);
        for (std::size_t i = at; i-- > 0 && l.rows[i] / 64 == row / 64;)
          largest = std::max(largest, l.shares[i]);
        CHECK(most <= largest * (1 + 1e-6));
        ++at;
      }
    }
  }
}

TEST_CASE("search ranking: the best k rows found early are those scoring every row finds",
          "[search][ranker]") {
  // Lists shaped like a sentence's words: a few rare ones with large shares, common ones
  // with small shares, some rows in many lists, and shares drawn from a few values so that
  // ties (broken by the lower row) are common.
  std::mt19937 rng(7);
  std::size_t compared = 0, pruned_any = 0;
  for (int round = 0; round < 400; ++round) {
    const SentenceLists s(rng);
    const auto& phrases = s.phrases;
    const std::size_t groups = s.groups;
    for (bool all : {true, false}) {
      for (std::size_t k : {std::size_t{1}, std::size_t{5}, std::size_t{20}, std::size_t{256}}) {
        INFO("round " << round << (all ? " all" : " any") << " k=" << k);
        const auto want = every_row(phrases, groups, all, k);
        const auto got = kb::top_k(phrases, groups, all, k);
        REQUIRE(got == want);  // the same rows, in the same order, with the same doubles
        ++compared;
        pruned_any += !all && want.size() == k;
      }
    }
  }
  CHECK(compared == 3200);
  CHECK(pruned_any > 300);  // most any-word rankings had more rows than they kept
}

TEST_CASE("search ranking: a page's first rows alone are those of the best k, gotchas first",
          "[search][ranker]") {
  // What a page shows of the best k: the gotchas among them first, then the other records,
  // past the rows shown already -- found alone when enough gotchas rank among the best k,
  // else the best k themselves. Either way the page is the one every row's score gives.
  std::mt19937 rng(11);
  std::size_t compared = 0, first_only = 0, whole_full = 0;
  for (int round = 0; round < 300; ++round) {
    const SentenceLists s(rng);
    // Rows that are not gotchas: none, a few, most or all of them.
    const double others = std::array<double, 4>{0.0, 0.2, 0.85, 1.0}[rng() % 4];
    std::vector<bool> other(s.rows_in_index);
    for (std::size_t row = 0; row < other.size(); ++row)
      other[row] = std::uniform_real_distribution<double>(0, 1)(rng) < others;
    for (bool all : {true, false}) {
      for (std::size_t k : {std::size_t{5}, std::size_t{20}, std::size_t{256}}) {
        const auto best = every_row(s.phrases, s.groups, all, k);
        // Shown already: some of the best rows and some others.
        std::vector<std::uint32_t> skip;
        for (std::size_t i = 0; i < best.size(); ++i) {
          if (rng() % 8 == 0) skip.push_back(best[i].first);
        }
        for (int i = 0; i < 3; ++i) skip.push_back(static_cast<std::uint32_t>(rng() % s.rows_in_index));
        std::sort(skip.begin(), skip.end());
        skip.erase(std::unique(skip.begin(), skip.end()), skip.end());
        for (std::size_t need : {std::size_t{1}, std::size_t{4}, std::size_t{20}}) {
          INFO("round " << round << (all ? " all" : " any") << " k=" << k << " need=" << need);
          auto page = best;
          std::stable_partition(page.begin(), page.end(),
                                [&](const auto& r) { return !other[r.first]; });
          std::erase_if(page, [&](const auto& r) {
            return std::binary_search(skip.begin(), skip.end(), r.first);
          });
          const auto got = kb::top_k_first(s.phrases, s.groups, all, k, {&other, &skip, need});
          if (got.whole) {
            REQUIRE(got.rows == best);
            whole_full += page.size() >= need;
          } else {
            // Only what the page shows first: `need` gotchas, in the page's order.
            REQUIRE(page.size() >= need);
            page.resize(need);
            REQUIRE(got.rows == page);
            ++first_only;
          }
          ++compared;
        }
      }
    }
  }
  CHECK(compared == 5400);
  CHECK(first_only > 1000);  // most pages were found alone
  CHECK(whole_full > 100);   // and when gotchas were too few, the best k answered
}

TEST_CASE("search ranking in memory: a few best rows of many, as FTS5 ranks them",
          "[search][ranker]") {
  sqlite3* db = index().db;
  REQUIRE(db);
  auto ranker = kb::MemRanker::build(db, nullptr);
  REQUIRE(ranker);
  const auto terms = sample_terms(db);
  using C = kb::MemRanker::Combine;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string& a = terms[i];
    const std::string& b = terms[(i * 7 + 3) % terms.size()];
    const std::string& c = terms[(i * 13 + 5) % terms.size()];
    const std::string& d = terms[(i * 3 + 11) % terms.size()];
    for (std::size_t k : {std::size_t{1}, std::size_t{4}, std::size_t{20}}) {
      same(fts5(db, quoted(a) + " OR " + quoted(b) + " OR " + quoted(c) + " OR " + quoted(d), k),
           ranker->rank(db, {{a}, {b}, {c}, {d}}, false, C::any, k), "any, k " + std::to_string(k));
      same(fts5(db, quoted(a) + " OR " + quoted(b) + " OR " + quoted("cache") + "*", k),
           ranker->rank(db, {{a}, {b}, {"cache"}}, true, C::any, k), "any cache*");
      same(fts5(db, quoted(a) + " " + quoted("cache") + "*", k),
           ranker->rank(db, {{a}, {"cache"}}, true, C::all, k), "all cache*");
      same(fts5(db, "(" + quoted(a) + " OR " + quoted(c) + ") AND " + quoted(b), k),
           ranker->rank(db, {{a, c}, {b}}, false, C::all, k), "(a|c) b");
    }
  }
}
