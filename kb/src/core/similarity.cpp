#include "core/similarity.h"

#include <algorithm>

#include "kb/text.h"

namespace kb {

std::size_t osa_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  if (n == 0) return m;
  if (m == 0) return n;
  // Three rolling rows: the transposition step looks two rows back.
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t d = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d = std::min(d, prev2[j - 2] + 1);
      }
      cur[j] = d;
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

double edit_similarity(std::string_view a, std::string_view b) {
  const std::size_t longest = std::max(a.size(), b.size());
  if (longest == 0) return 1.0;
  return 1.0 - static_cast<double>(osa_distance(a, b)) / static_cast<double>(longest);
}

double jaro_winkler(std::string_view a, std::string_view b) {
  if (a == b) return 1.0;
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  if (n == 0 || m == 0) return 0.0;
  const std::size_t window = std::max(n, m) / 2 > 0 ? std::max(n, m) / 2 - 1 : 0;
  std::vector<char> used_a(n, 0), used_b(m, 0);
  std::size_t matches = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t lo = i > window ? i - window : 0;
    const std::size_t hi = std::min(m, i + window + 1);
    for (std::size_t j = lo; j < hi; ++j) {
      if (!used_b[j] && a[i] == b[j]) {
        used_a[i] = used_b[j] = 1;
        ++matches;
        break;
      }
    }
  }
  if (matches == 0) return 0.0;
  std::size_t half_transpositions = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!used_a[i]) continue;
    while (!used_b[j]) ++j;
    if (a[i] != b[j]) ++half_transpositions;
    ++j;
  }
  const double k = static_cast<double>(matches);
  const double jaro = (k / static_cast<double>(n) + k / static_cast<double>(m) +
                       (k - static_cast<double>(half_transpositions) / 2.0) / k) /
                      3.0;
  std::size_t prefix = 0;
  while (prefix < 4 && prefix < n && prefix < m && a[prefix] == b[prefix]) ++prefix;
  return jaro + static_cast<double>(prefix) * 0.1 * (1.0 - jaro);
}

double name_similarity(std::string_view a, std::string_view b) {
  return (edit_similarity(a, b) + jaro_winkler(a, b)) / 2.0;
}

std::optional<std::string> did_you_mean(std::string_view word,
                                        const std::vector<std::string>& choices) {
  const std::string lowered = text::lower(word);
  const std::size_t budget = std::max<std::size_t>(1, lowered.size() / 4);
  const std::string* best = nullptr;
  double best_score = -1;
  double runner_up = -1;
  for (const auto& choice : choices) {
    if (choice == lowered) return choice;
    const double score = name_similarity(lowered, choice);
    if (score > best_score) {
      runner_up = best_score;
      best_score = score;
      best = &choice;
    } else if (score > runner_up) {
      runner_up = score;
    }
  }
  if (best == nullptr || osa_distance(lowered, *best) > budget) return std::nullopt;
  if (runner_up >= 0 && best_score - runner_up < 0.05) return std::nullopt;
  return *best;
}

}  // namespace kb
