#pragma once

// The best k rows of a query from its phrases' scored rows, without scoring every row a
// common word holds: the ranking in memory's last step (store_ranker.h).
//
// Each phrase brings its rows in ascending order with their share of the score (bm25's
// per-phrase term) and the largest share. A row's score is the sum of the shares of the
// phrases it holds, added in phrase order -- the very doubles FTS5's bm25 sums. An all-words
// query walks the rows of its smallest group and looks each up in the others; an any-word
// query skips, MaxScore-style, the rows whose phrases together cannot reach the k-th best
// score found so far, so that once k good rows are found a common word's rows are no
// longer walked, only looked up for the rows a rarer word brings.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace kb {

/// A phrase's rows, ascending, with their shares of the score.
struct ScoredRows {
  std::vector<std::uint32_t> rows;
  std::vector<double> shares;
  double max = 0;  ///< the largest share
  void add(std::uint32_t row, double share) {
    rows.push_back(row);
    shares.push_back(share);
    if (share > max) max = share;
  }
  std::size_t size() const { return rows.size(); }
  std::size_t bytes() const { return rows.capacity() * 4 + shares.capacity() * 8; }
};

/// One phrase of a query: its scored rows, and the group (word) whose spelling it is.
struct TopkPhrase {
  const ScoredRows* rows;
  std::size_t group;
};

/// The best `k` rows (row, score: higher is better; ties to the lower row), best first, of
/// rows holding a phrase of every group (`all`) or of any. Groups are numbered from 0 and
/// fewer than 32; every group has a phrase.
std::vector<std::pair<std::uint32_t, double>> top_k(const std::vector<TopkPhrase>& phrases,
                                                    std::size_t groups, bool all, std::size_t k);

}  // namespace kb
