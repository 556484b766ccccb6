#pragma once

// The best k rows of a query from its phrases' scored rows, without scoring every row a
// common word holds: the ranking in memory's last step (store_ranker.h).
//
// Each phrase brings its rows in ascending order with their share of the score (bm25's
// per-phrase term) and the largest share. A row's score is the sum of the shares of the
// phrases it holds, added in phrase order -- the very doubles FTS5's bm25 sums. An all-words
// query walks the rows of its smallest group and looks each up in the others, as long as
// its shares so far and the most the groups left can add could still beat the bar; an any-word
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
  std::size_t bytes() const {
    return rows.capacity() * 4 + shares.capacity() * 8 + dense.capacity() * sizeof(Dense);
  }

  /// Each 64 row numbers' bits (set: a row of the list) and the list's rows before them:
  /// a row's place in one step, where a search through a long list takes a dozen.
  struct Dense {
    std::uint64_t bits;
    std::uint32_t before;  ///< the list's rows before these 64
    float max;             ///< their largest share, rounded up (0: none)
  };
  std::vector<Dense> dense;  ///< empty unless index() made it
  /// Makes `dense` for an index of `n` rows when the list holds at least one row in 16 of
  /// them (it then costs at most a third of the list's own bytes; a sparser list is
  /// searched, galloping).
  void index(std::size_t n);
  bool indexed() const { return !dense.empty(); }
  /// The largest share of the rows numbered 64w..64w+63, or more: of a list not indexed,
  /// its best share.
  double window_max(std::size_t w) const {
    if (!indexed()) return max;
    return w < dense.size() ? dense[w].max : 0.0;
  }
  /// The place of the first row numbered 64w or later (indexed() only).
  std::size_t window_start(std::size_t w) const {
    return w < dense.size() ? dense[w].before : size();
  }
  /// The place of `row` in the list, or size() when it holds none (indexed() only).
  std::size_t place(std::uint32_t row) const {
    const std::size_t w = row >> 6;
    if (w >= dense.size()) return size();
    const std::uint64_t bit = std::uint64_t{1} << (row & 63);
    const Dense& d = dense[w];
    if (!(d.bits & bit)) return size();
    return d.before + ones(d.bits & (bit - 1));
  }

  // The bits set in x, inline: without -mpopcnt (x86-64's baseline has no such
  // instruction) the builtin is a call into libgcc.
  static std::size_t ones(std::uint64_t x) {
#if defined(__x86_64__) && !defined(__POPCNT__)
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return static_cast<std::size_t>((x * 0x0101010101010101ULL) >> 56);
#else
    return static_cast<std::size_t>(__builtin_popcountll(x));
#endif
  }
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

/// The rows a page shows first of the best k: those not `other` (gotchas, which search
/// shows before the other records) nor in `skip` (shown already), `need` of them.
struct TopkFirst {
  const std::vector<bool>* other;          ///< row -> shown after the others
  const std::vector<std::uint32_t>* skip;  ///< rows not to show, ascending
  std::size_t need;
};

/// What top_k_first found: the best k rows (`whole`), or only the first `need` rows a
/// page shows of them, best first.
struct TopkRows {
  std::vector<std::pair<std::uint32_t, double>> rows;
  bool whole = true;
};

/// The first rows a page shows of the best `k` (top_k's): `first.need` rows neither other
/// nor skipped, best first, when so many rank among the best k. Only they are kept, so an
/// any-word query's walk skips rows by the need-th of them -- a far higher bar than the
/// k-th row's -- and stops sooner. Else the best k rows themselves (`whole`): when fewer
/// than `need` such rows are found, or the need-th ranks below the best k, the bar never
/// rose above the k-th row's, and the rows kept are the best k.
TopkRows top_k_first(const std::vector<TopkPhrase>& phrases, std::size_t groups, bool all,
                     std::size_t k, const TopkFirst& first);

}  // namespace kb
