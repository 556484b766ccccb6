// Snippets from a row's stored text (store_snippet.h), following FTS5's snippet(): score
// each window of `tokens` tokens that starts at a phrase found (1000 for each phrase new to
// the window, 1 for each repeat), centre it on what it holds, prefer a window that starts
// a sentence, then copy that window's text with the phrases found marked.

#include "store/store_snippet.h"

#include <algorithm>
#include <cstdint>

namespace kb {
namespace {

// A phrase found in a row: which phrase, in which column, at which token.
struct Inst {
  int phrase;
  int col;
  int off;
};

bool matches(const std::vector<FtsTokenizer::Token>& toks, std::size_t at, const SnippetPhrase& p) {
  if (p.tokens.empty() || at + p.tokens.size() > toks.size()) return false;
  for (std::size_t k = 0; k < p.tokens.size(); ++k) {
    const std::string& have = toks[at + k].text;
    const std::string& want = p.tokens[k];
    const bool last = k + 1 == p.tokens.size();
    if (last && p.prefix ? !std::string_view(have).starts_with(want) : have != want) return false;
  }
  return true;
}

struct Scorer {
  const std::vector<Inst>& inst;
  const std::vector<SnippetPhrase>& phrases;
  int ntoken;

  // The score of the window of column `col` from token `pos`, and where a window holding
  // the same phrases is centred (clipped to the column's `size` tokens).
  std::pair<int, int> score(int col, int pos, int size) const {
    std::vector<char> seen(phrases.size(), 0);
    int total = 0, first = -1, last = 0;
    const std::int64_t end = static_cast<std::int64_t>(pos) + ntoken;
    for (const Inst& i : inst) {
      if (i.col != col || i.off < pos || i.off >= end) continue;
      total += seen[static_cast<std::size_t>(i.phrase)] ? 1 : 1000;
      seen[static_cast<std::size_t>(i.phrase)] = 1;
      if (first < 0) first = i.off;
      last = i.off + static_cast<int>(phrases[static_cast<std::size_t>(i.phrase)].tokens.size());
    }
    std::int64_t adj = first - (ntoken - (last - first)) / 2;
    if (adj + ntoken > size) adj = size - ntoken;
    if (adj < 0) adj = 0;
    return {total, static_cast<int>(adj)};
  }
};

// Tokens that start a sentence: the first, and each after a '.' or ':' and white space.
std::vector<int> sentence_starts(std::string_view text,
                                 const std::vector<FtsTokenizer::Token>& toks) {
  std::vector<int> out;
  for (std::size_t t = 0; t < toks.size(); ++t) {
    if (t == 0) {
      out.push_back(0);
      continue;
    }
    int i = toks[t].start - 1;
    char c = 0;
    for (; i >= 0; --i) {
      c = text[static_cast<std::size_t>(i)];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
    }
    if (i != toks[t].start - 1 && (c == '.' || c == ':')) out.push_back(static_cast<int>(t));
  }
  return out;
}

}  // namespace

std::string make_snippet(FtsTokenizer& tok, const std::vector<std::string_view>& columns,
                         const std::vector<bool>& indexed,
                         const std::vector<SnippetPhrase>& phrases, const SnippetStyle& style) {
  const int ncol = static_cast<int>(columns.size());
  std::vector<std::vector<FtsTokenizer::Token>> toks(columns.size());
  std::vector<Inst> inst;
  for (int c = 0; c < ncol; ++c) {
    if (!indexed[static_cast<std::size_t>(c)]) continue;
    toks[static_cast<std::size_t>(c)] = tok.document(columns[static_cast<std::size_t>(c)]);
    const auto& t = toks[static_cast<std::size_t>(c)];
    for (std::size_t at = 0; at < t.size(); ++at) {
      for (std::size_t p = 0; p < phrases.size(); ++p) {
        if (matches(t, at, phrases[p]))
          inst.push_back({static_cast<int>(p), c, static_cast<int>(at)});
      }
    }
  }
  const int ntoken = style.tokens;
  const Scorer scorer{inst, phrases, ntoken};
  int best_score = 0, best_col = 0, best_start = 0, col_size = 0;
  for (int c = 0; c < ncol; ++c) {
    if (!indexed[static_cast<std::size_t>(c)]) continue;
    const auto& t = toks[static_cast<std::size_t>(c)];
    const int size = static_cast<int>(t.size());
    const std::vector<int> first = sentence_starts(columns[static_cast<std::size_t>(c)], t);
    for (const Inst& i : inst) {
      if (i.col != c) continue;
      auto [score, adj] = scorer.score(c, i.off, size);
      if (score > best_score) {
        best_score = score;
        best_col = c;
        best_start = adj;
        col_size = size;
      }
      if (!first.empty() && size > ntoken) {
        std::size_t j = 0;
        while (j + 1 < first.size() && first[j + 1] <= i.off) ++j;
        if (first[j] < i.off) {
          int s = scorer.score(c, first[j], size).first;
          s += first[j] == 0 ? 120 : 100;
          if (s > best_score) {
            best_score = s;
            best_col = c;
            best_start = first[j];
            col_size = size;
          }
        }
      }
    }
  }
  const std::string_view text = columns[static_cast<std::size_t>(best_col)];
  const auto& t = toks[static_cast<std::size_t>(best_col)];
  if (col_size == 0) col_size = static_cast<int>(t.size());

  // The phrases found in the column, overlapping ones as one: [start, end] tokens.
  std::vector<std::pair<int, int>> marks;
  for (const Inst& i : inst) {
    if (i.col != best_col) continue;
    const int end =
        i.off - 1 + static_cast<int>(phrases[static_cast<std::size_t>(i.phrase)].tokens.size());
    if (!marks.empty() && i.off <= marks.back().second)
      marks.back().second = std::max(marks.back().second, end);
    else
      marks.emplace_back(i.off, end);
  }
  std::size_t m = 0;
  while (m < marks.size() && marks[m].first < best_start) ++m;
  auto mark_start = [&] { return m < marks.size() ? marks[m].first : -1; };
  auto mark_end = [&] { return m < marks.size() ? marks[m].second : -1; };

  std::string out;
  const int range_start = best_start, range_end = best_start + ntoken - 1;
  if (best_start > 0) out += style.ellipsis;
  std::size_t copied = 0;
  auto copy_to = [&](int to) {
    if (static_cast<std::size_t>(to) > copied)
      out.append(text.substr(copied, static_cast<std::size_t>(to) - copied));
    copied = std::max(copied, static_cast<std::size_t>(to));
  };
  for (int pos = 0; pos < static_cast<int>(t.size()); ++pos) {
    if (pos < range_start || pos > range_end) continue;
    const int start = t[static_cast<std::size_t>(pos)].start;
    const int end = t[static_cast<std::size_t>(pos)].end;
    if (range_start > 0 && pos == range_start) copied = static_cast<std::size_t>(start);
    if (pos == mark_start()) {
      copy_to(start);
      out += style.open;
      copied = static_cast<std::size_t>(start);
    }
    if (pos == mark_end()) {
      if (mark_start() < range_start) out += style.open;
      copy_to(end);
      out += style.close;
      ++m;
    }
    if (pos == range_end) {
      copy_to(end);
      if (mark_start() >= 0 && pos >= mark_start() && pos < mark_end()) out += style.close;
    }
  }
  if (range_end >= col_size - 1)
    copy_to(static_cast<int>(text.size()));
  else
    out += style.ellipsis;
  return out;
}

}  // namespace kb
