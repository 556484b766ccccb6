// The best k rows of a query from its phrases' scored rows (store_topk.h).

#include "store/store_topk.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kb {

void ScoredRows::index(std::size_t n) {
  dense.clear();
  if (rows.empty() || rows.size() * 16 < n) return;
  dense.assign((static_cast<std::size_t>(rows.back()) >> 6) + 1, Dense{0, 0, 0.0F});
  std::size_t i = 0;
  for (std::size_t w = 0; w < dense.size(); ++w) {
    Dense& d = dense[w];
    d.before = static_cast<std::uint32_t>(i);
    double most = 0;
    for (; i < rows.size() && (rows[i] >> 6) == w; ++i) {
      d.bits |= std::uint64_t{1} << (rows[i] & 63);
      most = std::max(most, shares[i]);
    }
    // A float no smaller than the double: the window's bound stays a bound.
    float f = static_cast<float>(most);
    if (static_cast<double>(f) < most)
      f = std::nextafter(f, std::numeric_limits<float>::infinity());
    d.max = f;
  }
}

namespace {

struct Hit {
  double score;
  std::uint32_t row;
};

// The better of two hits: the higher score, then the lower row. As a heap's order, the
// heap's front is the worst hit kept. (A type, not a function: the heap's steps inline it.)
struct Better {
  bool operator()(const Hit& a, const Hit& b) const {
    return a.score > b.score || (a.score == b.score && a.row < b.row);
  }
};
constexpr Better better{};

// Whether a row whose score is at most `bound` can still beat `bar`. Bounds are sums of
// shares added in another order than the score's own sum: a margin far above a double's
// rounding keeps every row that could, and every row scoring the bar itself.
bool above(double bound, double bar) {
  return bound * (1 + 1e-9) > bar;
}

// The best k hits seen so far.
class Best {
 public:
  explicit Best(std::size_t k) : k_(k) { heap_.reserve(k + 1); }
  bool full() const { return heap_.size() >= k_; }
  // The score a row must beat to be kept (a tie loses: rows come in ascending order, so a
  // later row with the same score is the worse one).
  double bar() const { return bar_; }
  bool reachable(double bound) const { return above(bound, bar_); }
  void offer(Hit h) {
    if (k_ == 0) return;
    push(h);
    if (full()) bar_ = heap_.front().score;
  }
  /// The worst hit kept (full() only).
  const Hit& worst() const { return heap_.front(); }
  std::vector<std::pair<std::uint32_t, double>> sorted() {
    std::sort_heap(heap_.begin(), heap_.end(), better);
    std::vector<std::pair<std::uint32_t, double>> out;
    out.reserve(heap_.size());
    for (const Hit& h : heap_) out.emplace_back(h.row, h.score);
    return out;
  }

 private:
  void push(Hit h) {
    if (heap_.size() < k_) {
      heap_.push_back(h);
      std::push_heap(heap_.begin(), heap_.end(), better);
    } else if (better(h, heap_.front())) {
      // The worst kept gives way: `h` sinks from the front to its place (one pass, where
      // pop_heap then push_heap would make two).
      const std::size_t n = heap_.size();
      std::size_t at = 0;
      while (true) {
        std::size_t child = 2 * at + 1;
        if (child >= n) break;
        if (child + 1 < n && better(heap_[child], heap_[child + 1])) ++child;
        if (!better(h, heap_[child])) break;
        heap_[at] = heap_[child];
        at = child;
      }
      heap_[at] = h;
    }
  }

  std::size_t k_;
  double bar_ = -std::numeric_limits<double>::infinity();
  std::vector<Hit> heap_;
};

// The best k hits, and beside them the best `need` of the rows a page shows first
// (TopkFirst). A row is worth scoring only when it could join both: once `need` first rows
// are found, their worst is the bar, far above the k-th row's.
class FirstBest {
 public:
  FirstBest(std::size_t k, const TopkFirst& f) : all_(k), first_(f.need), f_(f) {}
  bool reachable(double bound) const { return above(bound, bar_); }
  void offer(Hit h) {
    all_.offer(h);
    if (!(*f_.other)[h.row] && !std::binary_search(f_.skip->begin(), f_.skip->end(), h.row))
      first_.offer(h);
    bar_ = std::max(all_.bar(), first_.bar());
  }
  TopkRows result() {
    // The first rows are among the best k unless k rows better than the worst of them were
    // kept: every row better than it could reach the bar, so was offered.
    if (first_.full() && (!all_.full() || !better(all_.worst(), first_.worst())))
      return {first_.sorted(), false};
    // Else the bar never rose above the k-th row kept (too few first rows, or the worst of
    // them below it): every row skipped scores less, and the best k are those kept.
    return {all_.sorted(), true};
  }

 private:
  Best all_;
  Best first_;
  const TopkFirst& f_;
  double bar_ = -std::numeric_limits<double>::infinity();
};

// The first index at or after `at` whose row is `row` or later: galloping, so that a walk
// through a long list in steps of any size costs about the log of each step.
std::size_t seek(const std::vector<std::uint32_t>& rows, std::size_t at, std::uint32_t row) {
  const std::size_t n = rows.size();
  if (at >= n || rows[at] >= row) return at;
  std::size_t lo = at, step = 1, hi = at + 1;
  while (hi < n && rows[hi] < row) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  hi = std::min(hi, n);
  return static_cast<std::size_t>(
      std::lower_bound(rows.begin() + static_cast<std::ptrdiff_t>(lo) + 1,
                       rows.begin() + static_cast<std::ptrdiff_t>(hi), row) -
      rows.begin());
}

// Each phrase's place in its rows while rows are visited in ascending order.
struct Cursors {
  const std::vector<TopkPhrase>& phrases;
  std::vector<std::size_t> at;
  std::vector<char> holds;  // whether the row being scored is in the phrase
  explicit Cursors(const std::vector<TopkPhrase>& p)
      : phrases(p), at(p.size(), 0), holds(p.size(), 0) {}
  // Whether phrase i holds `row`, moving its place there (rows are asked in ascending
  // order; a place stays where it is when the row is not held).
  bool find(std::size_t i, std::uint32_t row) {
    const ScoredRows& r = *phrases[i].rows;
    if (r.indexed()) {
      const std::size_t p = r.place(row);
      holds[i] = p < r.size();
      if (holds[i]) at[i] = p;
      return holds[i] != 0;
    }
    at[i] = seek(r.rows, at[i], row);
    holds[i] = at[i] < r.size() && r.rows[at[i]] == row;
    return holds[i] != 0;
  }
  double share(std::size_t i) const { return phrases[i].rows->shares[at[i]]; }
  std::uint32_t current(std::size_t i) const {
    const auto& rows = phrases[i].rows->rows;
    return at[i] < rows.size() ? rows[at[i]] : std::numeric_limits<std::uint32_t>::max();
  }
  // The row's score: the shares of the phrases holding it (holds[] set for every phrase),
  // added in phrase order, as FTS5's bm25 adds them.
  double score() const {
    double s = 0;
    for (std::size_t i = 0; i < phrases.size(); ++i) {
      if (holds[i]) s += share(i);
    }
    return s;
  }
  // Past `row` in every phrase whose place is on it.
  void pass(std::uint32_t row) {
    for (std::size_t i = 0; i < phrases.size(); ++i) {
      if (current(i) == row) ++at[i];
    }
  }
};

// top_all() for groups of common words: the rows holding every group, found by and-ing
// each group's rows (`of`: its phrases) as bits over `words` 64-row words, scored a
// window of 64 rows at a time.
template <typename Keep>
void top_all_by_bits(const std::vector<TopkPhrase>& phrases,
                     const std::vector<std::vector<std::size_t>>& of, std::size_t words,
                     double max_sum, Cursors& c, Keep& best) {
  thread_local std::vector<std::uint64_t> held, group, window_bits;
  thread_local std::vector<std::size_t> window_at;
  window_bits.assign(phrases.size(), 0);
  window_at.assign(phrases.size(), 0);
  held.assign(words, ~std::uint64_t{0});
  for (std::size_t g = 0; g < of.size(); ++g) {
    group.assign(words, 0);
    for (std::size_t i : of[g]) {
      const ScoredRows& r = *phrases[i].rows;
      if (r.indexed()) {
        for (std::size_t w = 0; w < r.dense.size(); ++w) group[w] |= r.dense[w].bits;
      } else {
        for (std::uint32_t row : r.rows) group[row >> 6] |= std::uint64_t{1} << (row & 63);
      }
    }
    for (std::size_t w = 0; w < words; ++w) held[w] &= group[w];
  }
  for (std::size_t w = 0; w < words; ++w) {
    if (held[w] == 0) continue;
    // No row left can beat the k-th best when every phrase's best share together cannot.
    if (!best.reachable(max_sum)) return;
    // Nor a row of these 64 when the phrases' largest shares among them cannot.
    double bound = 0;
    for (const TopkPhrase& p : phrases) bound += p.rows->window_max(w);
    if (!best.reachable(bound)) continue;
    // Each indexed phrase's rows among these 64 and where they start in its list: a
    // row's share is then a popcount away.
    for (std::size_t i = 0; i < phrases.size(); ++i) {
      const ScoredRows& r = *phrases[i].rows;
      window_bits[i] = r.indexed() && w < r.dense.size() ? r.dense[w].bits : 0;
      window_at[i] = r.indexed() ? r.window_start(w) : 0;
    }
    for (std::uint64_t bits = held[w]; bits != 0; bits &= bits - 1) {
      const auto b = static_cast<unsigned>(__builtin_ctzll(bits));
      const auto row = static_cast<std::uint32_t>(w * 64 + b);
      const std::uint64_t below_b = (std::uint64_t{1} << b) - 1;
      // The shares of the phrases holding the row, in phrase order (FTS5's sum).
      double score = 0;
      for (std::size_t i = 0; i < phrases.size(); ++i) {
        const ScoredRows& r = *phrases[i].rows;
        if (r.indexed()) {
          if ((window_bits[i] >> b) & 1)
            score += r.shares[window_at[i] + ScoredRows::ones(window_bits[i] & below_b)];
        } else if (c.find(i, row)) {
          score += c.share(i);
        }
      }
      // Only a row that can beat the bar is offered, as top_all's walk offers them.
      if (best.reachable(score)) best.offer({score, row});
    }
  }
}

template <typename Keep>
void top_all(const std::vector<TopkPhrase>& phrases, std::size_t groups, Keep& best) {
  // The rows of the group with the fewest are the only candidates; each must be in some
  // phrase of every other group, looked up from the smallest group up.
  std::vector<std::size_t> size(groups, 0);
  std::vector<std::vector<std::size_t>> of(groups);
  double max_sum = 0;
  for (std::size_t i = 0; i < phrases.size(); ++i) {
    size[phrases[i].group] += phrases[i].rows->size();
    of[phrases[i].group].push_back(i);
    max_sum += phrases[i].rows->max;
  }
  std::vector<std::size_t> order(groups);
  for (std::size_t g = 0; g < groups; ++g) order[g] = g;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return size[a] < size[b]; });
  if (size[order.front()] == 0) return;
  // What the groups from the g-th in that order on can add to a row at most: a row whose
  // shares so far and that together cannot beat the bar is not looked up any further.
  std::vector<double> after(groups + 1, 0);
  for (std::size_t g = groups; g-- > 0;) {
    after[g] = after[g + 1];
    for (std::size_t i : of[order[g]]) after[g] += phrases[i].rows->max;
  }
  Cursors c(phrases);
  // Every group of common words: the rows holding them all are found by and-ing each
  // group's rows as bits, 64 row numbers a step, where walking the smallest group's rows
  // would look each up in the others.
  std::size_t words = 0;
  for (const TopkPhrase& p : phrases) {
    if (p.rows->size() > 0) words = std::max<std::size_t>(words, (p.rows->rows.back() >> 6) + 1);
  }
  if (size[order.front()] > words * groups) {
    top_all_by_bits(phrases, of, words, max_sum, c, best);
    return;
  }
  const std::vector<std::size_t>& driver = of[order.front()];
  while (true) {
    std::uint32_t row = std::numeric_limits<std::uint32_t>::max();
    for (std::size_t i : driver) row = std::min(row, c.current(i));
    if (row == std::numeric_limits<std::uint32_t>::max()) break;
    // No row left can beat the k-th best when every phrase's best share together cannot.
    if (!best.reachable(max_sum)) break;
    double partial = 0;
    for (std::size_t i : driver) {
      if (c.find(i, row)) partial += c.share(i);
    }
    bool every = best.reachable(partial + after[1]);
    for (std::size_t g = 1; g < groups && every; ++g) {
      bool found = false;
      for (std::size_t i : of[order[g]]) {
        if (c.find(i, row)) {
          found = true;
          partial += c.share(i);
        }
      }
      every = found && best.reachable(partial + after[g + 1]);
    }
    if (every) {
      for (std::size_t i = 0; i < phrases.size(); ++i) c.find(i, row);
      best.offer({c.score(), row});
    }
    c.pass(row);
  }
}

template <typename Keep>
void top_any(const std::vector<TopkPhrase>& phrases, Keep& best) {
  // Phrases by their best share, smallest first; `below[t]` is what the first t of them can
  // add to a row at most. The first `ess` of them are the non-essential ones: together they
  // cannot bring a row to the k-th best score, so only rows of the others are candidates,
  // and they are only looked up for those.
  const std::size_t m = phrases.size();
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return phrases[a].rows->max < phrases[b].rows->max;
  });
  std::vector<double> below(m + 1, 0);
  std::vector<std::size_t> place(m);  // phrase -> its place in `order`
  for (std::size_t t = 0; t < m; ++t) {
    below[t + 1] = below[t] + phrases[order[t]].rows->max;
    place[order[t]] = t;
  }
  constexpr std::uint32_t kEnd = std::numeric_limits<std::uint32_t>::max();
  // Each phrase's place (in `order`'s order), the row there (kEnd past the last), and
  // whether the row being scored is in it, with its share.
  std::vector<std::size_t> at(m, 0);
  std::vector<std::uint32_t> cur(m);
  std::vector<char> holds(m, 0);
  std::vector<double> share(m, 0);
  const auto rows_of = [&](std::size_t t) -> const ScoredRows& { return *phrases[order[t]].rows; };
  for (std::size_t t = 0; t < m; ++t) cur[t] = rows_of(t).size() ? rows_of(t).rows[0] : kEnd;
  std::size_t ess = 0;
  std::uint32_t row = kEnd;
  for (std::size_t t = 0; t < m; ++t) row = std::min(row, cur[t]);
  // Windows of 64 row numbers: each list's largest share among them (an indexed list's
  // own, else its best) summed bounds the score of every row of the window; a window that
  // cannot beat the bar is stepped over by the essential lists at once.
  bool windows = false;
  for (std::size_t t = 0; t < m; ++t) windows = windows || rows_of(t).indexed();
  std::size_t window = std::numeric_limits<std::size_t>::max();
  bool hopeless = false;
  while (row != kEnd) {
    if (windows) {
      const std::size_t w = row >> 6;
      if (w != window) {
        window = w;
        double bound = 0;
        for (std::size_t t = 0; t < m; ++t) bound += rows_of(t).window_max(w);
        hopeless = !best.reachable(bound);
      }
      if (hopeless) {
        const std::uint64_t end = (static_cast<std::uint64_t>(w) + 1) * 64;
        row = kEnd;
        for (std::size_t t = ess; t < m; ++t) {
          if (cur[t] < end) {
            const ScoredRows& r = rows_of(t);
            at[t] = r.indexed()  ? r.window_start(w + 1)
                    : end > kEnd ? r.size()
                                 : seek(r.rows, at[t], static_cast<std::uint32_t>(end));
            cur[t] = at[t] < r.size() ? r.rows[at[t]] : kEnd;
          }
          row = std::min(row, cur[t]);
        }
        continue;
      }
    }
    // The essential phrases holding the row, each moved past it, and the next row any of
    // them holds: one pass.
    double partial = 0;
    std::uint32_t next = kEnd;
    for (std::size_t t = ess; t < m; ++t) {
      holds[t] = cur[t] == row;
      if (holds[t]) {
        const ScoredRows& r = rows_of(t);
        share[t] = r.shares[at[t]];
        partial += share[t];
        cur[t] = ++at[t] < r.size() ? r.rows[at[t]] : kEnd;
      }
      next = std::min(next, cur[t]);
    }
    bool keep = best.reachable(partial + below[ess]);
    // A non-essential list's place is only looked up from here on (ess never falls).
    for (std::size_t t = ess; keep && t-- > 0;) {
      const ScoredRows& r = rows_of(t);
      std::size_t p;
      if (r.indexed()) {
        p = r.place(row);
      } else {
        p = at[t] = seek(r.rows, at[t], row);
        if (p < r.size() && r.rows[p] != row) p = r.size();
      }
      holds[t] = p < r.size();
      if (holds[t]) {
        share[t] = r.shares[p];
        partial += share[t];
      }
      keep = best.reachable(partial + below[t]);
    }
    if (keep) {
      // The score as FTS5 adds it: the shares of the phrases holding the row, in phrase
      // order (every phrase was looked at: `keep` held through all of them).
      double score = 0;
      for (std::size_t i = 0; i < m; ++i) {
        if (holds[place[i]]) score += share[place[i]];
      }
      best.offer({score, row});
      const std::size_t was = ess;
      while (ess < m && !best.reachable(below[ess + 1])) ++ess;
      if (ess != was) {  // fewer phrases bring candidates now
        next = kEnd;
        for (std::size_t t = ess; t < m; ++t) next = std::min(next, cur[t]);
      }
    }
    row = next;
  }
}

}  // namespace

std::vector<std::pair<std::uint32_t, double>> top_k(const std::vector<TopkPhrase>& phrases,
                                                    std::size_t groups, bool all, std::size_t k) {
  if (phrases.empty() || groups == 0 || k == 0) return {};
  Best best(k);
  if (all)
    top_all(phrases, groups, best);
  else
    top_any(phrases, best);
  return best.sorted();
}

TopkRows top_k_first(const std::vector<TopkPhrase>& phrases, std::size_t groups, bool all,
                     std::size_t k, const TopkFirst& first) {
  if (phrases.empty() || groups == 0 || k == 0) return TopkRows{};
  if (first.need == 0) return TopkRows{top_k(phrases, groups, all, k), true};
  FirstBest best(k, first);
  if (all)
    top_all(phrases, groups, best);
  else
    top_any(phrases, best);
  return best.result();
}

}  // namespace kb
