// Search's ranking in memory (store_ranker.h): phrases' rows scored with FTS5's bm25 term by
// term, and the best rows found (store_topk.h); built in store_ranker_build.cpp.

#include "store/store_ranker.h"

#include "store/fts_tokenizer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace kb {
namespace {

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

}  // namespace

// Per-thread scratch of one query: as many slots as the index has rows.
struct MemRanker::Scratch {
  std::vector<double> freq;
  std::vector<std::uint32_t> slot;    // a phrase's candidate row -> its index + 1
  std::vector<std::uint32_t> phrase;  // rows of the current phrase
  void fit(std::size_t n) {
    if (freq.size() < n) {
      freq.assign(n, 0);
      slot.assign(n, 0);
    }
    phrase.clear();
  }
};

// One term's postings read in order, with the positions of each.
struct MemRanker::Cursor {
  const char* post;
  const char* pos;  ///< the current posting's positions
  const char* next_pos;
  std::uint32_t left;
  std::uint32_t row = 0;
  std::uint64_t weight = 0;
  Cursor(const MemRanker& r, std::size_t term)
      : post(r.postings_.data() + r.post_at_[term]),
        pos(r.positions_.data() + r.pos_at_[term]),
        next_pos(pos),
        left(r.df_[term]) {}
  // The next posting; its positions are read only if asked (keys).
  bool next() {
    if (left == 0) return false;
    --left;
    row += static_cast<std::uint32_t>(get_varint(post));
    weight = get_varint(post);
    pos = next_pos;
    next_pos = pos + get_varint(post);
    return true;
  }
  template <typename F>
  void keys(F&& f) const {
    const char* p = pos;
    const std::uint64_t n = get_varint(p);
    std::uint64_t key = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      key += get_varint(p);
      f(key);
    }
  }
};

void MemRanker::gotchas_first(std::vector<std::pair<std::int64_t, double>>& rows) const {
  auto other = [&](std::int64_t rowid) {
    auto it = std::lower_bound(rowids_.begin(), rowids_.end(), rowid);
    return it != rowids_.end() && *it == rowid &&
           other_[static_cast<std::size_t>(it - rowids_.begin())];
  };
  std::stable_partition(rows.begin(), rows.end(),
                        [&](const auto& row) { return !other(row.first); });
}

std::size_t MemRanker::bytes() const {
  std::size_t kept = 0;
  {
    std::lock_guard<std::mutex> lock(kept_mu_);
    kept = kept_bytes_;
  }
  return kept + postings_.capacity() + positions_.capacity() + terms_.capacity() +
         term_at_.capacity() * 4 + post_at_.capacity() * 8 + pos_at_.capacity() * 8 +
         df_.capacity() * 4 + rowids_.capacity() * 8 + norm_.capacity() * 8 + other_.capacity() / 8;
}

std::pair<std::size_t, std::size_t> MemRanker::range(std::string_view token, bool prefix) const {
  // Terms are sorted bytewise: a term, or every term a prefix starts, is a range.
  std::size_t lo = 0, hi = terms();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (term(mid) < token)
      lo = mid + 1;
    else
      hi = mid;
  }
  std::size_t to = lo;
  if (prefix) {
    while (to < terms() && term(to).starts_with(token)) ++to;
  } else if (lo < terms() && term(lo) == token) {
    to = lo + 1;
  }
  return {lo, to};
}

namespace {
// Terms a phrase's last token may start for phrase_rows() to narrow its rows down by them
// before it reads positions.
constexpr std::size_t kWideStart = 64;
}  // namespace

void MemRanker::phrase_rows(const std::vector<std::string>& tokens, bool prefix, Scratch& s) const {
  s.phrase.clear();
  if (tokens.size() == 1) {
    const auto [from, to] = range(tokens.front(), prefix);
    for (std::size_t t = from; t < to; ++t) {
      const char* q = postings_.data() + post_at_[t];
      std::uint32_t row = 0;
      for (std::uint32_t i = 0; i < df_[t]; ++i) {
        row += static_cast<std::uint32_t>(get_varint(q));
        const auto w = static_cast<double>(get_varint(q));
        get_varint(q);  // the positions' length
        if (s.freq[row] == 0) s.phrase.push_back(row);
        s.freq[row] += w;
      }
    }
    return;
  }
  // A phrase: rows holding its first token, with the positions where the phrase so far
  // ends; each next token keeps the rows (and positions) it follows on. Only the last token
  // may be a prefix (FTS5's `"kv cache"*`), so the others are one term each.
  // First the rows holding every token (the last one's terms together), from the postings
  // alone: only their positions are read then, and a common token's other rows are
  // stepped over.
  std::vector<std::uint32_t> held;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool last = i + 1 == tokens.size();
    const auto [from, to] = range(tokens[i], last && prefix);
    if (from == to) return;
    // A short start (`router's*`: "s" then any word) has terms by the thousand: their
    // postings are read once, below, not twice.
    if (last && to - from > kWideStart) break;
    std::vector<char> in(i == 0 ? 0 : held.size(), 0);
    std::vector<std::uint32_t> first;
    for (std::size_t t = from; t < to; ++t) {
      Cursor c(*this, t);
      std::size_t j = 0;
      while (c.next()) {
        if (i == 0) {
          first.push_back(c.row);
          continue;
        }
        while (j < held.size() && held[j] < c.row) ++j;
        if (j == held.size()) break;
        if (held[j] == c.row) in[j] = 1;
      }
    }
    if (i == 0) {
      held.swap(first);  // the first token is one term: its rows, ascending
    } else {
      std::size_t kept = 0;
      for (std::size_t j = 0; j < held.size(); ++j) {
        if (in[j]) held[kept++] = held[j];
      }
      held.resize(kept);
    }
    if (held.empty()) return;
  }
  std::vector<std::uint32_t> rows, starts;
  std::vector<std::uint64_t> ends;
  {
    const auto [from, to] = range(tokens.front(), false);
    Cursor c(*this, from);
    std::size_t h = 0;
    while (c.next()) {
      while (h < held.size() && held[h] < c.row) ++h;
      if (h == held.size()) break;
      if (held[h] != c.row) continue;
      rows.push_back(c.row);
      starts.push_back(static_cast<std::uint32_t>(ends.size()));
      c.keys([&](std::uint64_t key) { ends.push_back(key); });
    }
    starts.push_back(static_cast<std::uint32_t>(ends.size()));
  }
  for (std::size_t i = 1; i + 1 < tokens.size() && !rows.empty(); ++i) {
    const auto [from, to] = range(tokens[i], false);
    if (from == to) return;
    std::vector<std::uint32_t> next_rows, next_starts;
    std::vector<std::uint64_t> next_ends;
    Cursor c(*this, from);
    std::size_t j = 0;
    while (c.next()) {
      while (j < rows.size() && rows[j] < c.row) ++j;
      if (j == rows.size() || rows[j] != c.row) continue;
      const std::size_t before = next_ends.size();
      std::uint32_t e = starts[j];
      c.keys([&](std::uint64_t key) {
        while (e < starts[j + 1] && ends[e] + 1 < key) ++e;
        if (e < starts[j + 1] && ends[e] + 1 == key) next_ends.push_back(key);
      });
      if (next_ends.size() > before) {
        next_rows.push_back(c.row);
        next_starts.push_back(static_cast<std::uint32_t>(before));
      }
    }
    next_starts.push_back(static_cast<std::uint32_t>(next_ends.size()));
    rows.swap(next_rows);
    starts.swap(next_starts);
    ends.swap(next_ends);
  }
  if (rows.empty()) return;
  for (std::size_t j = 0; j < rows.size(); ++j) s.slot[rows[j]] = static_cast<std::uint32_t>(j + 1);
  const auto [from, to] = range(tokens.back(), prefix);
  for (std::size_t t = from; t < to; ++t) {
    Cursor c(*this, t);
    while (c.next()) {
      const std::uint32_t at = s.slot[c.row];
      if (at == 0) continue;
      const std::size_t j = at - 1;
      std::uint32_t e = starts[j];
      double w = 0;
      c.keys([&](std::uint64_t key) {
        while (e < starts[j + 1] && ends[e] + 1 < key) ++e;
        if (e < starts[j + 1] && ends[e] + 1 == key) w += weights_[key >> 24];
      });
      if (w > 0) {
        if (s.freq[c.row] == 0) s.phrase.push_back(c.row);
        s.freq[c.row] += w;
      }
    }
  }
  for (std::uint32_t row : rows) s.slot[row] = 0;
}

std::string MemRanker::phrase_key(const std::vector<std::string>& tokens, bool prefix) {
  std::string key = prefix ? "*" : "=";
  for (const std::string& t : tokens) key.append(t).push_back('\0');
  return key;
}

std::shared_ptr<const MemRanker::Shares> MemRanker::kept_phrase(const std::string& key) const {
  std::lock_guard<std::mutex> lock(kept_mu_);
  auto it = kept_phrases_.find(key);
  return it == kept_phrases_.end() ? nullptr : it->second;
}

std::optional<bool> MemRanker::finds(sqlite3* db, const std::vector<std::string>& spellings,
                                     bool prefix_first) const {
  FtsTokenizer tok(db);
  if (!tok.ok()) return std::nullopt;
  thread_local Scratch s;
  s.fit(rowids_.size());
  bool found = false;
  for (std::size_t i = 0; i < spellings.size() && !found; ++i) {
    const bool prefix = prefix_first && i == 0;
    auto t = tok.tokens(spellings[i], prefix);
    if (t.empty()) return std::nullopt;
    if (t.size() == 1) {
      const auto [from, to] = range(t.front(), prefix);
      found = from < to;
      continue;
    }
    // A phrase a search has kept answers without reading positions: the search asked
    // before this check (a typo's) usually kept it. Found as written is found as a prefix.
    if (auto kept = kept_phrase(phrase_key(t, false)); kept && !kept->rows.empty()) {
      found = true;
      continue;
    }
    if (prefix) {
      if (auto kept = kept_phrase(phrase_key(t, true))) {
        found = !kept->rows.empty();
        continue;
      }
    }
    std::string key = phrase_key(t, prefix);
    {
      std::lock_guard<std::mutex> lock(kept_mu_);
      if (auto it = found_phrases_.find(key); it != found_phrases_.end()) {
        found = it->second;
        continue;
      }
    }
    phrase_rows(t, prefix, s);
    found = !s.phrase.empty();
    for (std::uint32_t row : s.phrase) s.freq[row] = 0;
    s.phrase.clear();
    std::lock_guard<std::mutex> lock(kept_mu_);
    if (found_phrases_.size() < kFoundPhrases) found_phrases_.emplace(std::move(key), found);
  }
  return found;
}

std::shared_ptr<const MemRanker::Shares> MemRanker::term_shares(std::size_t term) const {
  const std::uint32_t rows = df_[term];
  if (rows >= keep_from_rows_) {
    std::lock_guard<std::mutex> lock(kept_mu_);
    if (auto it = kept_.find(term); it != kept_.end()) return it->second;
  }
  const double N = static_cast<double>(static_cast<std::int64_t>(rowids_.size()));
  const double k1 = kK1;
  const double hits = static_cast<double>(static_cast<std::int64_t>(rows));
  double idf = std::log((N - hits + 0.5) / (hits + 0.5));
  if (idf <= 0.0) idf = 1e-6;
  auto out = std::make_shared<Shares>();
  out->rows.reserve(rows);
  out->shares.reserve(rows);
  const char* q = postings_.data() + post_at_[term];
  std::uint32_t row = 0;
  for (std::uint32_t i = 0; i < rows; ++i) {
    row += static_cast<std::uint32_t>(get_varint(q));
    const auto f = static_cast<double>(get_varint(q));
    get_varint(q);  // the positions' length
    out->add(row, idf * ((f * (k1 + 1.0)) / (f + norm_[row])));
  }
  out->index(rowids_.size());
  if (rows < keep_from_rows_) return out;
  const std::size_t cost = out->bytes();
  return keep(kept_, term, std::move(out), cost);
}

template <typename Map>
std::shared_ptr<const MemRanker::Shares> MemRanker::keep(Map& kept,
                                                         const typename Map::key_type& key,
                                                         std::shared_ptr<const Shares> out,
                                                         std::size_t cost) const {
  std::lock_guard<std::mutex> lock(kept_mu_);
  // Another search may have kept the same while this one worked it out: one copy is kept.
  if (auto it = kept.find(key); it != kept.end()) return it->second;
  if (kept_bytes_ + cost <= kKeptBytes) {
    kept_bytes_ += cost;
    kept.emplace(key, out);
  }
  return out;
}

template <typename Make>
std::shared_ptr<const MemRanker::Shares> MemRanker::phrase_shares(const std::string& key,
                                                                  std::size_t work,
                                                                  Make&& make) const {
  const bool keeps = work >= keep_from_rows_;
  if (keeps) {
    if (auto kept = kept_phrase(key)) return kept;
  }
  std::shared_ptr<const Shares> out = make();
  if (!keeps) return out;
  const std::size_t cost = out->bytes() + key.capacity() + 64;
  return keep(kept_phrases_, key, std::move(out), cost);
}

std::optional<std::vector<std::pair<std::int64_t, double>>> MemRanker::rank(
    sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
    Combine combine, std::size_t k, Memo* memo) const {
  return rank_first(db, groups, prefix_last, combine, k, memo, First{0, nullptr}, nullptr);
}

std::optional<std::vector<std::pair<std::int64_t, double>>> MemRanker::rank_first(
    sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
    Combine combine, std::size_t k, Memo* memo, const First& first, bool* whole) const {
  if (whole) *whole = true;
  if (groups.empty() || groups.size() > 32) return std::nullopt;
  FtsTokenizer tok(db);
  if (!tok.ok()) return std::nullopt;
  struct Phrase {
    std::size_t group;
    std::vector<std::string> tokens;
    bool prefix;
  };
  std::vector<Phrase> phrases;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t a = 0; a < groups[g].size(); ++a) {
      const bool prefix = prefix_last && g + 1 == groups.size() && a == 0;
      auto t = tok.tokens(groups[g][a], prefix);
      if (t.empty()) return std::nullopt;
      phrases.push_back({g, std::move(t), prefix});
    }
  }
  // Every group must be found for all of them to be: a group none of whose spellings is
  // in the index (a word of no record) ends the search before any posting is read.
  if (combine == Combine::all) {
    for (std::size_t g = 0; g < groups.size(); ++g) {
      bool possible = false;
      for (const Phrase& p : phrases) {
        if (p.group != g || possible) continue;
        possible = true;
        for (std::size_t t = 0; t < p.tokens.size(); ++t) {
          const auto [from, to] = range(p.tokens[t], p.prefix && t + 1 == p.tokens.size());
          possible = possible && from < to;
        }
      }
      if (!possible) return std::vector<std::pair<std::int64_t, double>>{};
    }
  }
  thread_local Scratch s;
  const std::size_t n = rowids_.size();
  s.fit(n);
  const double N = static_cast<double>(static_cast<std::int64_t>(n));
  const double k1 = kK1;
  Memo local;
  Memo& m = memo ? *memo : local;
  // A word's start is the dearest list to make: every term it starts, read whole. When no
  // row holds every other group, none holds them and the start too, and it is never read
  // (a sentence's words rarely meet in one row). The others' lists are the search's own.
  if (combine == Combine::all && prefix_last && groups.size() > 1) {
    const std::vector<std::vector<std::string>> rest(groups.begin(), groups.end() - 1);
    auto held = rank(db, rest, false, Combine::all, 1, &m);
    if (held && held->empty()) return held;
  }
  std::vector<TopkPhrase> lists;
  lists.reserve(phrases.size());
  for (const Phrase& p : phrases) {
    std::string key = phrase_key(p.tokens, p.prefix);
    auto it = std::find_if(m.scored_.begin(), m.scored_.end(),
                           [&](const auto& e) { return e.first == key; });
    if (it == m.scored_.end()) {
      // The phrase's share of each row's score, as FTS5's bm25 sums it phrase by phrase.
      auto idf_of = [&](std::size_t rows) {
        const double hits = static_cast<double>(static_cast<std::int64_t>(rows));
        const double idf = std::log((N - hits + 0.5) / (hits + 0.5));
        return idf <= 0.0 ? 1e-6 : idf;
      };
      auto share = [&](double idf, double f, std::uint32_t row) {
        return idf * ((f * (k1 + 1.0)) / (f + norm_[row]));
      };
      std::shared_ptr<const Shares> scored;
      const auto [from, to] = range(p.tokens.front(), p.prefix);
      if (p.tokens.size() == 1 && to - from <= 1) {
        // One term: its rows are its postings, their shares fixed for this index.
        scored = from < to ? term_shares(from) : std::make_shared<const Shares>();
      } else {
        // The postings a match reads: every term of the phrase (of each token's range),
        // counted only as far as deciding whether it is kept needs.
        std::size_t work = 0;
        for (std::size_t t = 0; t < p.tokens.size() && work < keep_from_rows_; ++t) {
          const auto [f, e] = range(p.tokens[t], p.prefix && t + 1 == p.tokens.size());
          for (std::size_t i = f; i < e && work < keep_from_rows_; ++i) work += df_[i];
        }
        scored = phrase_shares(key, work, [&]() -> std::shared_ptr<const Shares> {
          phrase_rows(p.tokens, p.prefix, s);
          const double idf = idf_of(s.phrase.size());
          // Its rows in ascending order, as every list of shares is: many rows (a common
          // word's start) are read off in order, a few sorted.
          if (s.phrase.size() * 16 > n) {
            s.phrase.clear();
            for (std::uint32_t row = 0; row < n; ++row) {
              if (s.freq[row] != 0) s.phrase.push_back(row);
            }
          } else {
            std::sort(s.phrase.begin(), s.phrase.end());
          }
          auto rows = std::make_shared<Shares>();
          rows->rows.reserve(s.phrase.size());
          rows->shares.reserve(s.phrase.size());
          for (std::uint32_t row : s.phrase) {
            rows->add(row, share(idf, s.freq[row], row));
            s.freq[row] = 0;
          }
          rows->index(n);
          s.phrase.clear();
          return rows;
        });
      }
      m.scored_.emplace_back(std::move(key), std::move(scored));
      it = std::prev(m.scored_.end());
    }
    lists.push_back({it->second.get(), p.group});
  }
  // Which groups some row holds as written: what the typo check would ask again.
  m.found_.resize(groups.size(), -1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    bool whole = true, any = false;
    for (std::size_t i = 0; i < phrases.size(); ++i) {
      if (phrases[i].group != g) continue;
      if (phrases[i].prefix)
        whole = false;
      else
        any = any || lists[i].rows->size() > 0;
    }
    if (any || whole) m.found_[g] = any ? 1 : 0;
  }
  // The best k rows, without scoring every row a common word holds (store_topk.h).
  const bool all = combine == Combine::all;
  TopkRows found;
  if (first.need > 0) {
    std::vector<std::uint32_t> skip;
    for (std::int64_t rowid : *first.skip) {
      auto it = std::lower_bound(rowids_.begin(), rowids_.end(), rowid);
      if (it != rowids_.end() && *it == rowid)
        skip.push_back(static_cast<std::uint32_t>(it - rowids_.begin()));
    }
    std::sort(skip.begin(), skip.end());
    found = top_k_first(lists, groups.size(), all, k, TopkFirst{&other_, &skip, first.need});
  } else {
    found.rows = top_k(lists, groups.size(), all, k);
  }
  if (whole) *whole = found.whole;
  std::vector<std::pair<std::int64_t, double>> out;
  for (const auto& [row, score] : found.rows) out.emplace_back(rowids_[row], -1.0 * score);
  return out;
}

}  // namespace kb
