#include "search_suggest.h"

#include "kb/corpus.h"
#include "kb/resolver.h"

#include <mutex>
#include <unordered_map>

namespace kb::http {

namespace {

// The repair policy's confidence floor: a one-letter slip scores 0.80 or more.
constexpr double kMinScore = 0.8;
// Words kb tries to correct, at most (a pasted paragraph is not a typo).
constexpr std::size_t kMaxWords = 8;

// Words kept per knowledge base, at most.
constexpr std::size_t kMaxKept = 65536;

// The engine or setting name the resolver takes a word for a typo of ("" for none); a
// pure function of the word and the names of one knowledge base.
std::string best_name(const Corpus& corpus, const std::string& word) {
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
  return best;
}

// best_name kept per knowledge base (its content hash): the words of symptom sentences
// recur from one search to the next, and scoring a word against every name is most of
// what a suggestion costs. A new knowledge base starts afresh.
class KeptNames {
 public:
  std::string best(const Corpus& corpus, const std::string& word) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (hash_ != corpus.content_hash()) {
        hash_ = corpus.content_hash();
        kept_.clear();
      }
      if (auto it = kept_.find(word); it != kept_.end()) return it->second;
    }
    std::string best = best_name(corpus, word);
    std::lock_guard<std::mutex> lock(mu_);
    if (hash_ == corpus.content_hash() && kept_.size() < kMaxKept) kept_.emplace(word, best);
    return best;
  }

 private:
  std::mutex mu_;
  std::string hash_;
  std::unordered_map<std::string, std::string> kept_;
};

KeptNames& kept_names() {
  static KeptNames kept;
  return kept;
}

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
      const std::string best =
          corpus.content_hash().empty() ? best_name(corpus, word) : kept_names().best(corpus, word);
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
