#pragma once

// Search's ranking held in memory: for each term of the full-text index, the rows holding
// it with the weighted count of its occurrences and their positions, read once per index
// generation from FTS5's own index (fts5vocab), and scored with FTS5's bm25 exactly -- the
// same tokens, phrases, formula and order of sums -- so that a query's best rows are those
// `ORDER BY bm25(fts, ...)` returns, without FTS5 ranking every row that holds a common word.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/sqlite_util.h"

namespace kb {

class MemRanker {
 public:
  /// Reads the `fts` table of `db` in one read transaction; nullptr when `stop` turns true
  /// or the index cannot be read.
  static std::shared_ptr<const MemRanker> build(sqlite3* db, const std::atomic<bool>* stop);

  /// How a query's groups combine: every group (AND), or any (OR).
  enum class Combine { all, any };

  /// The best `k` rows (rowid, FTS5's bm25: negative, lower is better) of a query whose
  /// groups hold alternative spellings, each a phrase of FTS5's query in this order, the
  /// last group's first spelling a prefix when `prefix_last`. Ties go to the lower rowid.
  /// A spelling of several tokens (`kv-cache`) is a phrase: its tokens side by side in one
  /// column. nullopt when a spelling has no token of FTS5's tokenizer: FTS5 must answer
  /// then. `db` lends FTS5's tokenizer.
  /// What one search's parts have in common: each phrase's rows and their share of the
  /// score, worked out once for the search's every part (all words, the last one a
  /// prefix, any word). Only for one ranker.
  class Memo {
    friend class MemRanker;
    std::vector<std::pair<std::string, std::vector<std::pair<std::uint32_t, double>>>> scored_;
  };

  std::optional<std::vector<std::pair<std::int64_t, double>>> rank(
      sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
      Combine combine, std::size_t k, Memo* memo = nullptr) const;

  /// Whether some row holds one of `spellings` (the first a prefix when `prefix_first`), as
  /// FTS5's `"a"* OR "b"` would find; nullopt when one has no token.
  std::optional<bool> finds(sqlite3* db, const std::vector<std::string>& spellings,
                            bool prefix_first) const;

  std::size_t rows() const { return rowids_.size(); }
  /// Bytes held, about.
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
  std::vector<std::uint32_t> lengths_;  ///< tokens of each row, all columns
  double avgdl_ = 0;
  std::string terms_;                   ///< every term, sorted, back to back
  std::vector<std::uint32_t> term_at_;  ///< term i is terms_[term_at_[i], term_at_[i + 1])
  std::vector<std::uint64_t> post_at_;  ///< term i's postings: postings_[post_at_[i], ...[i + 1])
  std::vector<std::uint32_t> df_;       ///< rows holding term i
  /// Per posting: the row number's distance from the previous posting's, then the
  /// occurrences' summed column weights, each a varint.
  std::string postings_;
  /// Per posting, in the order of postings_: its occurrences' count, then each one's
  /// position -- column number << 24 | token offset -- as the distance from the one
  /// before, varints.
  std::string positions_;
  std::vector<std::uint64_t> pos_at_;   ///< term i's positions start at positions_[pos_at_[i]]
  std::vector<std::uint32_t> weights_;  ///< column number -> its weight in the ranking

  std::string_view term(std::size_t i) const {
    return std::string_view(terms_).substr(term_at_[i], term_at_[i + 1] - term_at_[i]);
  }
  std::size_t terms() const { return df_.size(); }
};

}  // namespace kb
