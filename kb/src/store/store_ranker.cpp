// Search's ranking in memory (store_ranker.h): FTS5's postings read once, scored with its
// bm25 term by term.

#include "store/store_ranker.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kb {
namespace {

// The weights search ranks with (store_search.cpp's bm25 call), by column name; id and
// content_hash are not indexed.
int column_weight(std::string_view col) {
  if (col == "title") return 10;
  if (col == "symptom") return 4;
  if (col == "root_cause" || col == "workaround") return 2;
  return 1;  // notes, other
}

void put_varint(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

std::uint64_t get_varint(const char*& p) {
  std::uint64_t v = 0;
  int shift = 0;
  while (true) {
    const auto b = static_cast<unsigned char>(*p++);
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
    shift += 7;
  }
}

// FTS5's own tokenizer for the index's `tokenize` option, so that a query word becomes
// the token FTS5 would search for.
class QueryTokenizer {
 public:
  explicit QueryTokenizer(sqlite3* db) {
    fts5_api* api = nullptr;
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, nullptr) != SQLITE_OK) return;
    sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(st);
    sqlite3_finalize(st);
    if (!api) return;
    void* ctx = nullptr;
    if (api->xFindTokenizer(api, "porter", &ctx, &module_) != SQLITE_OK) return;
    const char* args[] = {"unicode61", "remove_diacritics", "2"};
    if (module_.xCreate(ctx, args, 3, &tok_) != SQLITE_OK) tok_ = nullptr;
  }
  ~QueryTokenizer() {
    if (tok_) module_.xDelete(tok_);
  }
  QueryTokenizer(const QueryTokenizer&) = delete;
  QueryTokenizer& operator=(const QueryTokenizer&) = delete;

  bool ok() const { return tok_ != nullptr; }

  // The tokens of `text` as FTS5 reads a query phrase (a prefix one when asked).
  std::vector<std::string> tokens(std::string_view text, bool prefix) {
    std::vector<std::string> out;
    if (!tok_) return out;
    const int flags = FTS5_TOKENIZE_QUERY | (prefix ? FTS5_TOKENIZE_PREFIX : 0);
    module_.xTokenize(tok_, &out, flags, text.data(), static_cast<int>(text.size()),
                      [](void* out, int tflags, const char* token, int n, int, int) {
                        // A colocated token is a synonym of the one before: none here.
                        if (!(tflags & FTS5_TOKEN_COLOCATED))
                          static_cast<std::vector<std::string>*>(out)->emplace_back(token, n);
                        return SQLITE_OK;
                      });
    return out;
  }

 private:
  fts5_tokenizer module_{};
  Fts5Tokenizer* tok_ = nullptr;
};

// Per-thread scratch of one query: as many slots as the index has rows.
struct Scratch {
  std::vector<double> score;
  std::vector<double> freq;
  std::vector<std::uint32_t> mask;
  std::vector<std::uint32_t> touched;  // rows with a score, in the order first reached
  std::vector<std::uint32_t> phrase;   // rows of the current phrase
  void fit(std::size_t n) {
    if (score.size() < n) {
      score.assign(n, 0);
      freq.assign(n, 0);
      mask.assign(n, 0);
    }
    touched.clear();
    phrase.clear();
  }
};

}  // namespace

std::shared_ptr<const MemRanker> MemRanker::build(sqlite3* db, const std::atomic<bool>* stop) {
  auto r = std::shared_ptr<MemRanker>(new MemRanker());
  try {
    // One read transaction, unless the connection is in one already (an in-memory index's
    // only connection, mid-update): then that one.
    const bool own = sqlite3_get_autocommit(db) != 0;
    if (own) sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr);
    struct End {
      sqlite3* db;
      bool own;
      ~End() {
        if (own) sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr);
      }
    } end{db, own};
    {
      sql::Stmt rows(db, "SELECT id FROM fts_docsize ORDER BY id");
      while (rows.step()) r->rowids_.push_back(rows.int64(0));
    }
    r->lengths_.assign(r->rowids_.size(), 0);
    sqlite3_exec(db,
                 "CREATE VIRTUAL TABLE IF NOT EXISTS temp.kb_fts_instance USING "
                 "fts5vocab(main, fts, instance)",
                 nullptr, nullptr, nullptr);
    sql::Stmt inst(db, "SELECT term, doc, col FROM temp.kb_fts_instance");
    // Rows come by term, then rowid, then column: one posting per (term, row), whose
    // weight sums its occurrences' column weights.
    std::string term;
    bool have_term = false, first_posting = true;
    std::int64_t doc = -1;
    std::uint32_t row = 0, last_row = 0, df = 0;
    std::uint64_t weight = 0;
    std::string last_col;
    int col_weight = 1;
    auto flush_posting = [&] {
      if (doc < 0) return;
      put_varint(r->postings_, first_posting ? row : row - last_row);
      put_varint(r->postings_, weight);
      first_posting = false;
      last_row = row;
      ++df;
      weight = 0;
      doc = -1;
    };
    auto end_term = [&] {
      if (!have_term) return;
      flush_posting();
      r->df_.push_back(df);
      df = 0;
      first_posting = true;
    };
    std::size_t n = 0;
    while (inst.step()) {
      if (stop && (++n & 0xffff) == 0 && stop->load(std::memory_order_relaxed)) return nullptr;
      const std::string_view tv = inst.view(0);
      if (!have_term || tv != term) {
        end_term();
        term.assign(tv);
        have_term = true;
        r->term_at_.push_back(static_cast<std::uint32_t>(r->terms_.size()));
        r->post_at_.push_back(r->postings_.size());
        r->terms_ += term;
      }
      const std::int64_t d = inst.int64(1);
      if (d != doc) {
        flush_posting();
        doc = d;
        auto it = std::lower_bound(r->rowids_.begin(), r->rowids_.end(), d);
        if (it == r->rowids_.end() || *it != d) return nullptr;  // docsize and index disagree
        row = static_cast<std::uint32_t>(it - r->rowids_.begin());
      }
      const std::string_view cv = inst.view(2);
      if (cv != last_col) {
        last_col.assign(cv);
        col_weight = column_weight(cv);
      }
      weight += static_cast<std::uint64_t>(col_weight);
      ++r->lengths_[row];
    }
    end_term();
    r->term_at_.push_back(static_cast<std::uint32_t>(r->terms_.size()));
    r->post_at_.push_back(r->postings_.size());
  } catch (const std::exception&) {
    return nullptr;
  }
  std::uint64_t total = 0;
  for (std::uint32_t l : r->lengths_) total += l;
  r->avgdl_ = r->rowids_.empty()
                  ? 0.0
                  : static_cast<double>(static_cast<std::int64_t>(total)) /
                        static_cast<double>(static_cast<std::int64_t>(r->rowids_.size()));
  r->postings_.shrink_to_fit();
  r->terms_.shrink_to_fit();
  return r;
}

std::size_t MemRanker::bytes() const {
  return postings_.capacity() + terms_.capacity() + term_at_.capacity() * 4 +
         post_at_.capacity() * 8 + df_.capacity() * 4 + rowids_.capacity() * 8 +
         lengths_.capacity() * 4;
}

std::optional<bool> MemRanker::finds(sqlite3* db, const std::vector<std::string>& spellings,
                                     bool prefix_first) const {
  QueryTokenizer tok(db);
  if (!tok.ok()) return std::nullopt;
  bool found = false;
  for (std::size_t i = 0; i < spellings.size(); ++i) {
    const bool prefix = prefix_first && i == 0;
    auto t = tok.tokens(spellings[i], prefix);
    if (t.size() != 1) return std::nullopt;
    std::size_t lo = 0, hi = terms();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (term(mid) < t.front())
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < terms() && (prefix ? term(lo).starts_with(t.front()) : term(lo) == t.front()))
      found = true;
  }
  return found;
}

std::optional<std::vector<std::pair<std::int64_t, double>>> MemRanker::rank(
    sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
    Combine combine, std::size_t k) const {
  if (groups.empty() || groups.size() > 32) return std::nullopt;
  QueryTokenizer tok(db);
  if (!tok.ok()) return std::nullopt;
  struct Phrase {
    std::size_t group;
    std::string token;
    bool prefix;
  };
  std::vector<Phrase> phrases;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t a = 0; a < groups[g].size(); ++a) {
      const bool prefix = prefix_last && g + 1 == groups.size() && a == 0;
      auto t = tok.tokens(groups[g][a], prefix);
      if (t.size() != 1) return std::nullopt;
      phrases.push_back({g, std::move(t.front()), prefix});
    }
  }
  thread_local Scratch s;
  const std::size_t n = rowids_.size();
  s.fit(n);
  const double N = static_cast<double>(static_cast<std::int64_t>(n));
  const double k1 = 1.2, b = 0.75;
  // Terms are sorted bytewise: a term, or every term a prefix starts, is a range.
  auto first_at_least = [&](std::string_view t) {
    std::size_t lo = 0, hi = terms();
    while (lo < hi) {
      const std::size_t mid = (lo + hi) / 2;
      if (term(mid) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  };
  for (const Phrase& p : phrases) {
    std::size_t from = first_at_least(p.token), to = from;
    if (p.prefix) {
      while (to < terms() && term(to).starts_with(p.token)) ++to;
    } else if (from < terms() && term(from) == p.token) {
      to = from + 1;
    }
    s.phrase.clear();
    for (std::size_t t = from; t < to; ++t) {
      const char* q = postings_.data() + post_at_[t];
      std::uint32_t row = 0;
      for (std::uint32_t i = 0; i < df_[t]; ++i) {
        row += static_cast<std::uint32_t>(get_varint(q));
        const auto w = static_cast<double>(get_varint(q));
        if (s.freq[row] == 0) s.phrase.push_back(row);
        s.freq[row] += w;
      }
    }
    const double hits = static_cast<double>(static_cast<std::int64_t>(s.phrase.size()));
    double idf = std::log((N - hits + 0.5) / (hits + 0.5));
    if (idf <= 0.0) idf = 1e-6;
    for (std::uint32_t row : s.phrase) {
      const double f = s.freq[row];
      const double D = static_cast<double>(lengths_[row]);
      if (s.mask[row] == 0) s.touched.push_back(row);
      s.score[row] += idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / avgdl_)));
      s.mask[row] |= 1u << p.group;
      s.freq[row] = 0;
    }
  }
  const std::uint32_t all = groups.size() == 32 ? 0xffffffffu : ((1u << groups.size()) - 1u);
  std::vector<std::pair<std::int64_t, double>> out;
  for (std::uint32_t row : s.touched) {
    const bool keep = combine == Combine::any ? s.mask[row] != 0 : s.mask[row] == all;
    if (keep) out.emplace_back(rowids_[row], -1.0 * s.score[row]);
    s.score[row] = 0;
    s.mask[row] = 0;
  }
  auto better = [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  };
  if (out.size() > k) {
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k), out.end(), better);
    out.resize(k);
  } else {
    std::sort(out.begin(), out.end(), better);
  }
  return out;
}

}  // namespace kb
