#include "corpus/claim_phrases.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "kb/text.h"

namespace kb {

namespace {

// What authors write when a gotcha has not been seen to happen. Longer phrases first
// so the message quotes the most specific one.
constexpr std::array<std::string_view, 13> kPhrases = {
    "haven't been reproduced", "hasn't been reproduced", "not yet been reproduced",
    "never been reproduced",   "not been reproduced",    "haven't reproduced",
    "hasn't reproduced",       "not yet reproduced",     "never reproduced",
    "not reproduced",          "unreproduced",           "not reproducible",
    "no observed failure",
};

// The longest run of letters of each phrase, lower-cased. A phrase only differs from
// its match in case, spacing and apostrophes, so a text holding none of these words
// holds none of the phrases: one scan rules out all thirteen for most fields.
const std::vector<std::string>& phrase_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (std::string_view p : kPhrases) {
      std::string best, run;
      for (char c : p) {
        if (std::isalpha(static_cast<unsigned char>(c))) {
          run += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          if (run.size() > best.size()) best = run;
        } else {
          run.clear();
        }
      }
      if (std::find(out.begin(), out.end(), best) == out.end()) out.push_back(best);
    }
    return out;
  }();
  return keys;
}

}  // namespace

const std::vector<std::string_view>& unreproduced_phrases() {
  static const std::vector<std::string_view> phrases(kPhrases.begin(), kPhrases.end());
  return phrases;
}

bool may_hold_phrase(std::string_view text) {
  const std::string lowered = text::lower(text);
  for (const auto& key : phrase_keys()) {
    if (lowered.find(key) != std::string::npos) return true;
  }
  return false;
}

}  // namespace kb
