#include "search_suggest.h"

#include "kb/corpus.h"
#include "kb/resolver.h"

namespace kb::http {

namespace {

// The repair policy's confidence floor: a one-letter slip scores 0.80 or more.
constexpr double kMinScore = 0.8;
// Words kb tries to correct, at most (a pasted paragraph is not a typo).
constexpr std::size_t kMaxWords = 8;

}  // namespace

std::string corrected_query(const Corpus& corpus,
                            const std::function<bool(std::string_view)>& finds,
                            std::string_view q) {
  std::string out;
  bool changed = false;
  std::size_t words = 0;
  std::size_t at = 0;
  while (at < q.size()) {
    const std::size_t b = q.find_first_not_of(" \t\r\n", at);
    if (b == std::string_view::npos) break;
    const std::size_t e = std::min(q.find_first_of(" \t\r\n", b), q.size());
    std::string word(q.substr(b, e - b));
    at = e;
    if (++words <= kMaxWords && word.size() >= 4 && !finds(word)) {
      std::string best;
      double score = 0;
      for (Kind k : {Kind::engine, Kind::setting}) {
        for (const Candidate& c : corpus.names().candidates(k, word, 1)) {
          if (c.score >= kMinScore && c.score > score) {
            score = c.score;
            best = c.matched;
          }
        }
      }
      if (!best.empty() && best != word) {
        word = best;
        changed = true;
      }
    }
    out += (out.empty() ? "" : " ") + word;
  }
  return changed ? out : std::string();
}

}  // namespace kb::http
