// Full-text search over the index: user text to a safe FTS5 query, ranked hits with
// snippets, and the plain matches the gotcha list's `q=` filter uses.

#include <cctype>
#include <limits>
#include <string>
#include <vector>

#include "store_impl.h"

namespace kb {

namespace {

// Column weights of the ranking (id and content_hash are not text): a title hit outweighs
// one in the symptom, which outweighs the rest.
constexpr const char* kRank = "bm25(0, 0, 10.0, 4.0, 2.0, 2.0, 1.0, 1.0)";
// A query matching more rows ranks only its first kMaxRanked matches (in index order):
// ranking costs time per matching row, so a word in most records would otherwise cost
// seconds at 100k records.
constexpr std::int64_t kMaxRanked = 2000;
// A last term shorter than this is never taken as a prefix: "a*" matches everything.
constexpr std::size_t kMinPrefixChars = 3;

// The searchable terms of user text: split at whitespace and NUL (FTS5 reads its query
// only up to the first NUL), at most 32, each holding a letter, digit or non-ASCII byte.
std::vector<std::string> search_terms(std::string_view user_text) {
  std::vector<std::string> terms;
  std::string cur;
  auto flush = [&] {
    bool searchable = false;
    for (unsigned char c : cur) searchable |= std::isalnum(c) || c >= 0x80;
    if (searchable) terms.push_back(cur);
    cur.clear();
  };
  for (char c : user_text) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\0')
      flush();
    else
      cur += c;
  }
  flush();
  if (terms.size() > 32) terms.resize(32);
  return terms;
}

// Every term quoted (so it is never FTS5 syntax) and AND-ed; the last one a prefix when asked.
std::string terms_query(const std::vector<std::string>& terms, bool prefix_last) {
  std::string q;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!q.empty()) q += ' ';
    q += '"';
    for (char c : terms[i]) {
      if (c == '"') q += '"';
      q += c;
    }
    q += '"';
    if (prefix_last && i + 1 == terms.size()) q += '*';
  }
  return q;
}

std::size_t utf8_chars(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// Appends up to `limit` hits of FTS5 query `match`, best first, ranking at most kMaxRanked
// rows. ORDER BY rank lets FTS5 sort by the ranking alone, so snippets are made only for
// the rows returned.
void ranked_hits(sqlite3* db, const std::string& match, std::size_t limit,
                 std::vector<SearchHit>& out) {
  std::int64_t last_rowid = std::numeric_limits<std::int64_t>::max();
  {
    sql::Stmt st(db, "SELECT rowid FROM fts WHERE fts MATCH ? LIMIT 1 OFFSET ?");
    st.bind(1, match).bind(2, kMaxRanked - 1);
    if (st.step()) last_rowid = st.int64(0);
  }
  sql::Stmt st(db,
      "SELECT id, title, rank, snippet(fts, -1, char(2), char(3), '…', 24), content_hash"
      " FROM fts WHERE fts MATCH ? AND rank MATCH ? AND rowid <= ? ORDER BY rank LIMIT ?");
  st.bind(1, match).bind(2, std::string_view(kRank)).bind(3, last_rowid)
      .bind(4, static_cast<std::int64_t>(limit));
  while (st.step()) out.push_back({st.text(0), st.text(1), st.real(2), st.text(3), st.text(4)});
}

}  // namespace

std::string fts_query(std::string_view user_text) {
  return terms_query(search_terms(user_text), true);
}

std::vector<SearchHit> Store::search(std::string_view query, std::size_t limit,
                                     std::chrono::milliseconds budget) const {
  const std::vector<std::string> terms = search_terms(query);
  if (terms.empty() || limit == 0) return {};
  Lease lease(impl_.get(), true);
  sqlite3* db = lease.get();
  QueryBudget limit_time(db, budget);
  // Records holding every term as written come first; only when they are too few does
  // the last term count as the start of a word, for the rows not already found.
  const std::string exact = terms_query(terms, false);
  std::vector<SearchHit> hits;
  ranked_hits(db, exact, limit, hits);
  if (hits.size() < limit && utf8_chars(terms.back()) >= kMinPrefixChars) {
    const std::string prefix = std::string("(").append(terms_query(terms, true)) + ") NOT (" +
                               exact + ")";
    ranked_hits(db, prefix, limit - hits.size(), hits);
  }
  return hits;
}

std::vector<std::pair<std::string, std::string>> Store::match(std::string_view query,
                                                               std::chrono::milliseconds budget) const {
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
