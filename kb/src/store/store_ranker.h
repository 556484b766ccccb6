#pragma once

// Search's ranking held in memory: for each term of the full-text index, the rows holding
// it with the weighted count of its occurrences and their positions, read once per index
// generation from FTS5's own index (fts5vocab), and scored with FTS5's bm25 exactly -- the
// same tokens, phrases, formula and order of sums -- so that a query's best rows are those
// `ORDER BY bm25(fts, ...)` returns, without FTS5 ranking every row that holds a common word.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "store/sqlite_util.h"
#include "store/store_topk.h"

namespace kb {

class MemRanker {
 public:
  /// Rows a word must be in for its scores to be kept between searches (build's default).
  static constexpr std::uint32_t kKeptMinRows = 512;

  /// Reads the `fts` table of `db` in one read transaction; nullptr when `stop` turns true
  /// or the index cannot be read.
  /// `keep_from_rows`: a word held by at least so many rows keeps its shares once worked
  /// out (below: worked out by each search; they are cheap).
  static std::shared_ptr<const MemRanker> build(sqlite3* db, const std::atomic<bool>* stop,
                                                std::uint32_t keep_from_rows = kKeptMinRows);

  /// How a query's groups combine: every group (AND), or any (OR).
  enum class Combine { all, any };

  /// A phrase's rows in order, each with its share of the score.
  using Shares = ScoredRows;
  /// What one search's parts have in common: each phrase's rows and their share of the
  /// score, worked out once for the search's every part (all words, the last one a
  /// prefix, any word). Only for one ranker.
  class Memo {
   public:
    /// Whether some row holds group `g` of the query as written (a spelling of it, none
    /// taken as a prefix): known once a rank() looked at the group's rows.
    std::optional<bool> found(std::size_t g) const {
      if (g >= found_.size() || found_[g] < 0) return std::nullopt;
      return found_[g] != 0;
    }

   private:
    friend class MemRanker;
    std::vector<std::pair<std::string, std::shared_ptr<const Shares>>> scored_;
    std::vector<signed char> found_;  ///< per group: -1 not known, 0 no row, 1 some row
  };

  /// The best `k` rows (rowid, FTS5's bm25: negative, lower is better) of a query whose
  /// groups hold alternative spellings, each a phrase of FTS5's query in this order, the
  /// last group's first spelling a prefix when `prefix_last`. Ties go to the lower rowid.
  /// A spelling of several tokens (`kv-cache`) is a phrase: its tokens side by side in one
  /// column. nullopt when a spelling has no token of FTS5's tokenizer: FTS5 must answer
  /// then. `db` lends FTS5's tokenizer.
  std::optional<std::vector<std::pair<std::int64_t, double>>> rank(
      sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
      Combine combine, std::size_t k, Memo* memo = nullptr) const;

  /// The rows a page shows first of a query's best k: gotchas whose rowids are not in
  /// `skip`, `need` of them.
  struct First {
    std::size_t need;
    const std::vector<std::int64_t>* skip;  ///< any order
  };
  /// rank()'s best k rows -- or, when `first.need` of the rows a page shows first rank
  /// among them, only those, best first (`*whole` false): found with their bar, far
  /// higher than the k-th row's, so a sentence's any-word walk stops sooner
  /// (store_topk.h's top_k_first).
  std::optional<std::vector<std::pair<std::int64_t, double>>> rank_first(
      sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
      Combine combine, std::size_t k, Memo* memo, const First& first, bool* whole) const;

  /// Whether some row holds one of `spellings` (the first a prefix when `prefix_first`), as
  /// FTS5's `"a"* OR "b"` would find; nullopt when one has no token.
  std::optional<bool> finds(sqlite3* db, const std::vector<std::string>& spellings,
                            bool prefix_first) const;

  /// Gotchas before the other records, each in the order given: what search shows an
  /// operator first (store_search.cpp), read off the kinds kept here rather than looked
  /// up row by row in the index. Rowids of no row count as gotchas.
  void gotchas_first(std::vector<std::pair<std::int64_t, double>>& rows) const;

  std::size_t rows() const { return rowids_.size(); }
  /// Bytes held, about (the kept shares of common words included).
  std::size_t bytes() const;

 private:
  struct Scratch;
  struct Cursor;
  /// Terms equal to `token`, or starting with it when `prefix`: [first, second).
  std::pair<std::size_t, std::size_t> range(std::string_view token, bool prefix) const;
  /// The rows holding phrase `tokens` (the last one a prefix when `prefix`) into s.phrase,
  /// with the weighted count of its occurrences in s.freq, as FTS5 counts them for bm25.
  void phrase_rows(const std::vector<std::string>& tokens, bool prefix, Scratch& s) const;

  std::vector<std::int64_t> rowids_;    ///< row number -> rowid, ascending
  std::vector<std::uint32_t> lengths_;  ///< tokens of each row, all columns (build only)
  double avgdl_ = 0;
  /// bm25's k1 and b, as FTS5's bm25() has them.
  static constexpr double kK1 = 1.2, kB = 0.75;
  /// Each row's part of bm25's denominator, k1 * (1 - b + b * D / avgdl) with D its
  /// tokens: the very double the formula works out inline, worked out once a row.
  std::vector<double> norm_;
  std::string terms_;                   ///< every term, sorted, back to back
  std::vector<std::uint32_t> term_at_;  ///< term i is terms_[term_at_[i], term_at_[i + 1])
  std::vector<std::uint64_t> post_at_;  ///< term i's postings: postings_[post_at_[i], ...[i + 1])
  std::vector<std::uint32_t> df_;       ///< rows holding term i
  /// Per posting: the row number's distance from the previous posting's, the
  /// occurrences' summed column weights, and the bytes of its positions, each a varint
  /// (so that a phrase reads the positions of the rows it needs, and steps over others).
  std::string postings_;
  /// Per posting, in the order of postings_: its occurrences' count, then each one's
  /// position -- column number << 24 | token offset -- as the distance from the one
  /// before, varints.
  std::string positions_;
  std::vector<std::uint64_t> pos_at_;   ///< term i's positions start at positions_[pos_at_[i]]
  std::vector<std::uint32_t> weights_;  ///< column number -> its weight in the ranking
  std::vector<bool> other_;             ///< row number -> the record is not a gotcha

  /// A word's shares depend on nothing but the index (its rows, their lengths, N): worked
  /// out by the first search of a common word (at least keep_from_rows_ rows), then kept
  /// for every later search while kKeptBytes allow. Each share is exactly what working it
  /// out again would give.
  static constexpr std::size_t kKeptBytes = std::size_t{128} << 20;
  /// Of those, what build() fills with the commonest words' shares.
  static constexpr std::size_t kPrekeptBytes = kKeptBytes / 2;
  std::uint32_t keep_from_rows_ = kKeptMinRows;
  std::shared_ptr<const Shares> term_shares(std::size_t term) const;
  mutable std::mutex kept_mu_;
  mutable std::unordered_map<std::size_t, std::shared_ptr<const Shares>> kept_;
  /// The same for a phrase (`kv-cache`, `prompt's`) or a word's start (`cach*`) whose terms
  /// hold at least keep_from_rows_ postings together: matching it reads their positions,
  /// the dearest step of a search. By the phrase's key (rank()).
  mutable std::unordered_map<std::string, std::shared_ptr<const Shares>> kept_phrases_;
  /// `out` kept under `key` in `kept` when kKeptBytes allow `cost` more; what another
  /// search kept first when it did.
  template <typename Map>
  std::shared_ptr<const Shares> keep(Map& kept, const typename Map::key_type& key,
                                     std::shared_ptr<const Shares> out, std::size_t cost) const;
  /// A phrase's shares, worked out by `make` unless kept; kept when `work` (the postings
  /// read) reaches keep_from_rows_ and kKeptBytes allow.
  template <typename Make>
  std::shared_ptr<const Shares> phrase_shares(const std::string& key, std::size_t work,
                                              Make&& make) const;
  mutable std::size_t kept_bytes_ = 0;
  /// A phrase's key among the kept ones: its tokens, the last a prefix when `prefix`.
  static std::string phrase_key(const std::vector<std::string>& tokens, bool prefix);
  /// The phrase kept under `key`, if any.
  std::shared_ptr<const Shares> kept_phrase(const std::string& key) const;
  /// Whether a phrase finds a row, by its key, for the phrases finds() matched itself:
  /// like a word's range, a fact of the index, which a typo check of the same phrase in
  /// another sentence asks again. At most kFoundPhrases noted (under kept_mu_).
  static constexpr std::size_t kFoundPhrases = std::size_t{1} << 16;
  mutable std::unordered_map<std::string, bool> found_phrases_;

  std::string_view term(std::size_t i) const {
    return std::string_view(terms_).substr(term_at_[i], term_at_[i + 1] - term_at_[i]);
  }
  std::size_t terms() const { return df_.size(); }
};

}  // namespace kb
