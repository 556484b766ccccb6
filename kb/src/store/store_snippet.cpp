// Snippets from a row's stored text (store_snippet.h), following FTS5's snippet(): score
// each window of `tokens` tokens that starts at a phrase found (1000 for each phrase new to
// the window, 1 for each repeat), centre it on what it holds, prefer a window that starts
// a sentence, then copy that window's text with the phrases found marked.

#include "store/store_snippet.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cstdint>
#include <cstring>
#include <optional>

namespace kb {
namespace {

// A phrase found in a row: which phrase, in which column, at which token.
struct Inst {
  int phrase;
  int col;
  int off;
};

// A column's tokens: the bytes of each, [start, end), the tokens that start a sentence,
// and, by token number, the text of those that can be a phrase's token (of every token
// when the column was tokenized whole). A token left out has no text, which no phrase
// token is.
struct ColumnTokens {
  std::vector<std::pair<int, int>> spans;
  std::vector<std::pair<int, std::string>> words;  ///< (token, text), ascending
  /// Tokens that start a sentence, ascending: the first, and each after a '.' or ':' and
  /// white space.
  std::vector<int> starts;

  void clear() {
    spans.clear();
    words.clear();
    starts.clear();
  }
  // FtsTokenizer::document's tokens, all of them with their text.
  void assign(std::string_view text, std::vector<FtsTokenizer::Token> toks) {
    clear();
    for (std::size_t i = 0; i < toks.size(); ++i) {
      spans.emplace_back(toks[i].start, toks[i].end);
      words.emplace_back(static_cast<int>(i), std::move(toks[i].text));
    }
    sentence_starts(text);
  }

  static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

 private:
  void sentence_starts(std::string_view text) {
    for (std::size_t t = 0; t < spans.size(); ++t) {
      if (t == 0) {
        starts.push_back(0);
        continue;
      }
      int i = spans[t].first - 1;
      char c = 0;
      for (; i >= 0; --i) {
        c = text[static_cast<std::size_t>(i)];
        if (!space(c)) break;
      }
      if (i != spans[t].first - 1 && (c == '.' || c == ':')) starts.push_back(static_cast<int>(t));
    }
  }
};

// Whether phrase `p` starts at the token of words[w].
bool matches(const ColumnTokens& ct, std::size_t w, const SnippetPhrase& p) {
  const auto at = static_cast<std::size_t>(ct.words[w].first);
  if (p.tokens.empty() || at + p.tokens.size() > ct.spans.size()) return false;
  for (std::size_t k = 0; k < p.tokens.size(); ++k) {
    const bool held =
        w + k < ct.words.size() && static_cast<std::size_t>(ct.words[w + k].first) == at + k;
    const std::string_view have = held ? std::string_view(ct.words[w + k].second) : "";
    const std::string& want = p.tokens[k];
    const bool last = k + 1 == p.tokens.size();
    if (last && p.prefix ? !have.starts_with(want) : have != want) return false;
  }
  return true;
}

struct Scorer {
  const std::vector<Inst>& inst;
  const std::vector<SnippetPhrase>& phrases;
  int ntoken;

  // The score of the window of column `col` from token `pos`, and where a window holding
  // the same phrases is centred (clipped to the column's `size` tokens).
  // Instances come by column, then token: those of a window are one run of them.
  std::pair<int, int> score(int col, int pos, int size) const {
    thread_local std::vector<char> seen;
    seen.assign(phrases.size(), 0);
    int total = 0, first = -1, last = 0;
    const std::int64_t end = static_cast<std::int64_t>(pos) + ntoken;
    auto from =
        std::lower_bound(inst.begin(), inst.end(), std::pair{col, pos},
                         [](const Inst& i, const std::pair<int, int>& at) {
                           return i.col < at.first || (i.col == at.first && i.off < at.second);
                         });
    for (auto it = from; it != inst.end() && it->col == col && it->off < end; ++it) {
      const Inst& i = *it;
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

// Which columns can hold a phrase, told from their bytes without tokenizing them: a porter
// stem keeps its word's first byte and, when it has two, the second (or an `i` for the
// word's `y`: "ays" -> "ai"), as tokenized by unicode61 from ASCII text. So a column of
// ASCII whose words all start otherwise than every phrase token holds no phrase; any
// other byte, and the column is tokenized.
class Starts {
 public:
  explicit Starts(const std::vector<SnippetPhrase>& phrases) {
    for (const SnippetPhrase& p : phrases) {
      for (const std::string& t : p.tokens) {
        if (t.empty()) {
          all_ = true;
        } else if (t.size() == 1) {
          one_.set(static_cast<unsigned char>(t[0]));
        } else {
          two_.set(key(t[0], t[1]));
        }
      }
    }
  }
  /// What tokens() read of a column.
  enum class Read {
    whole,  ///< nothing: not ASCII text (or a phrase has an empty token); tokenize it whole
    none,   ///< tokens, none of which can be a phrase's: no phrase is in the column
    some,   ///< tokens, some of which can be a phrase's
  };
  // The tokens of an ASCII column as FTS5's porter over unicode61 gives them (runs of
  // letters and digits, folded) into `out`, the text only of those that can be a phrase's
  // token, stemmed, and the sentences' starts: one pass over the bytes.
  Read tokens(FtsTokenizer& tok, std::string_view text, ColumnTokens& out) const {
    out.clear();
    if (all_) return Read::whole;
    std::size_t i = 0;
    const std::size_t n = text.size();
    // Whether white space is right before byte i, and the last other byte before it.
    bool after_space = false;
    char last = 0;
    while (i < n) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c >= 0x80) return Read::whole;
      if (!alnum(c)) {
        after_space = ColumnTokens::space(static_cast<char>(c));
        if (!after_space) last = static_cast<char>(c);
        ++i;
        continue;
      }
      const std::size_t e = word_end(text, i + 1);
      if (e < n && static_cast<unsigned char>(text[e]) >= 0x80) return Read::whole;
      const auto t = static_cast<int>(out.spans.size());
      if (t == 0 || (after_space && (last == '.' || last == ':'))) out.starts.push_back(t);
      const char c0 = lower(c);
      bool candidate = one_.test(static_cast<unsigned char>(c0));
      if (!candidate && e - i >= 2) {
        const char c1 = lower(static_cast<unsigned char>(text[i + 1]));
        candidate = two_.test(key(c0, c1)) || (c1 == 'y' && two_.test(key(c0, 'i')));
      }
      if (candidate) out.words.emplace_back(t, tok.stem(text.substr(i, e - i)));
      out.spans.emplace_back(static_cast<int>(i), static_cast<int>(e));
      after_space = false;
      last = text[e - 1];
      i = e;
    }
    return out.words.empty() ? Read::none : Read::some;
  }

 private:
  // The first byte at or after `i` that is not an ASCII letter or digit (or n): eight
  // bytes a step while there are eight, a byte a step after.
  static std::size_t word_end(std::string_view text, std::size_t i) {
    const std::size_t n = text.size();
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    // The first byte of a word of eight is the lowest (little-endian loads).
    constexpr bool kLittle = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    while (kLittle && i + 8 <= n) {
      std::uint64_t x;
      std::memcpy(&x, text.data() + i, 8);
      // Per byte, for bytes under 0x80: v + (0x80 - k) has its high bit set iff v >= k
      // (no carry crosses into the next byte). Bytes of 0x80 and above count as not
      // letters or digits (the caller reads text past ASCII whole).
      const std::uint64_t ascii = ~x & kHigh;
      const std::uint64_t v = x & ~kHigh;
      const std::uint64_t digit = (v + kOnes * (0x80 - '0')) & ~(v + kOnes * (0x80 - '9' - 1));
      const std::uint64_t folded = v | kOnes * 0x20;
      const std::uint64_t letter =
          (folded + kOnes * (0x80 - 'a')) & ~(folded + kOnes * (0x80 - 'z' - 1));
      const std::uint64_t other = ~((digit | letter) & ascii) & kHigh;
      if (other != 0) return i + static_cast<std::size_t>(__builtin_ctzll(other) / 8);
      i += 8;
    }
    while (i < n && alnum(static_cast<unsigned char>(text[i]))) ++i;
    return i;
  }
  // ASCII letters and digits, by table: this test runs once a byte of every column shown.
  static constexpr std::array<bool, 256> kAlnum = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
      t[static_cast<std::size_t>(c)] =
          (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    return t;
  }();
  static bool alnum(unsigned char c) { return kAlnum[c]; }
  static char lower(unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  static std::size_t key(char a, char b) {
    return static_cast<std::size_t>(static_cast<unsigned char>(a)) << 8 |
           static_cast<unsigned char>(b);
  }
  bool all_ = false;
  std::bitset<256> one_;
  std::bitset<65536> two_;
};

}  // namespace

std::string make_snippet(FtsTokenizer& tok, const std::vector<std::string_view>& columns,
                         const std::vector<bool>& indexed,
                         const std::vector<SnippetPhrase>& phrases, const SnippetStyle& style) {
  const int ncol = static_cast<int>(columns.size());
  // Kept by the thread between snippets: a search makes twenty, each of a few thousand
  // bytes' tokens.
  thread_local std::vector<ColumnTokens> toks;
  thread_local std::vector<Inst> inst;
  if (toks.size() < columns.size()) toks.resize(columns.size());
  inst.clear();
  std::vector<char> tokenized(columns.size(), 0);
  const Starts starts(phrases);
  for (int c = 0; c < ncol; ++c) {
    if (!indexed[static_cast<std::size_t>(c)]) continue;
    // A column that cannot hold a phrase has no instance: its tokens are needed only if
    // it is the one shown (read below).
    const std::string_view column = columns[static_cast<std::size_t>(c)];
    ColumnTokens& t = toks[static_cast<std::size_t>(c)];
    const Starts::Read read = starts.tokens(tok, column, t);
    if (read == Starts::Read::none) continue;
    if (read == Starts::Read::whole) t.assign(column, tok.document(column));
    tokenized[static_cast<std::size_t>(c)] = 1;
    for (std::size_t w = 0; w < t.words.size(); ++w) {
      if (t.words[w].second.empty()) continue;  // no phrase starts with no text
      for (std::size_t p = 0; p < phrases.size(); ++p) {
        if (matches(t, w, phrases[p])) inst.push_back({static_cast<int>(p), c, t.words[w].first});
      }
    }
  }
  const int ntoken = style.tokens;
  const Scorer scorer{inst, phrases, ntoken};
  int best_score = 0, best_col = 0, best_start = 0, col_size = 0;
  for (int c = 0; c < ncol; ++c) {
    if (!tokenized[static_cast<std::size_t>(c)]) continue;  // no instance in it
    const auto& spans = toks[static_cast<std::size_t>(c)].spans;
    const int size = static_cast<int>(spans.size());
    const std::vector<int>& first = toks[static_cast<std::size_t>(c)].starts;
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
  ColumnTokens& shown = toks[static_cast<std::size_t>(best_col)];
  if (!tokenized[static_cast<std::size_t>(best_col)]) {
    if (indexed[static_cast<std::size_t>(best_col)])
      shown.assign(text, tok.document(text));
    else
      shown.clear();
  }
  const auto& t = shown.spans;
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
    const int start = t[static_cast<std::size_t>(pos)].first;
    const int end = t[static_cast<std::size_t>(pos)].second;
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
