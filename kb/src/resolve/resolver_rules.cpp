// The rules that tell a typo from a different name. A typo changes a few characters of
// the words it misspells; it does not add or drop whole words, change a version number or
// cut a name short. Each rule looks only at the value and the best candidate's name.

#include <algorithm>

#include "core/similarity.h"
#include "kb/resolver.h"
#include "resolve/resolver_internal.h"

namespace kb {
namespace {

// Whether multiset `small` is contained in multiset `big` and is smaller.
bool strict_sub_multiset(std::vector<std::string> small, std::vector<std::string> big) {
  if (small.size() >= big.size()) return false;
  std::sort(small.begin(), small.end());
  std::sort(big.begin(), big.end());
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

// The digits of a name in order: `nadimar6-6` and `nadimar-66` agree (a misplaced
// separator), `worker-79` and `worker-97` do not.
std::string digits(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c >= '0' && c <= '9') out += c;
  }
  return out;
}

std::string strip_separators(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '-' && c != '/' && c != '.') out += c;
  }
  return out;
}

// Edits a misspelling of a word may hold. Substitutions in words of up to three letters
// make other words (`gpu`/`cpu`, `pd`/`dp`, `v1`/`v2`), so those get none, while a
// dropped, doubled or swapped letter in a three-letter word (`lm`, `rnu`) is still a
// typo. Longer words get one edit up to seven letters (`vlmm`, `lmcahce`), two up to
// fourteen (`mooncache`), three beyond.
std::size_t edit_budget(std::string_view a, std::string_view b) {
  const std::size_t length = std::max(a.size(), b.size());
  if (length <= 2) return 0;
  if (length == 3) {
    std::string sa(a), sb(b);
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    return a.size() != b.size() || sa == sb ? 1 : 0;
  }
  if (length <= 7) return 1;
  if (length <= 14) return 2;
  return 3;
}

std::string edits_text(std::size_t edits) {
  return std::to_string(edits) + (edits == 1 ? " edit" : " edits");
}

std::string target_text(const Candidate& best) {
  return "`" + best.matched + "` (" + best.id + ")";
}

}  // namespace

std::optional<RuleVerdict> typo_rules(const NameIndex& names, Kind ns, std::string_view key,
                                      const Candidate& best) {
  const std::string value = std::string("`").append(key).append("`");
  for (const auto& span : proper_token_spans(key)) {
    auto ids = names.exact(ns, span);
    if (ids.empty()) continue;
    // `mooncake-transfer-engin` holds `mooncake` but misspells an alias of that same
    // record: the extra words belong to the name it meant.
    if (ids.front() != best.id || span == best.matched) {
      return RuleVerdict{"extends-id", value + " extends `" + span + "` (" + ids.front() +
                                           ") with extra words: a different project, not a typo"};
    }
  }
  return spelling_rules(key, best);
}

std::optional<RuleVerdict> spelling_rules(std::string_view key, const Candidate& best) {
  const std::string value = std::string("`").append(key).append("`");
  const auto key_tokens = name_tokens(key);
  const auto best_tokens = name_tokens(best.matched);
  if (strict_sub_multiset(best_tokens, key_tokens) ||
      (key.size() >= best.matched.size() + 2 &&
       (key.starts_with(best.matched) || key.ends_with(best.matched)))) {
    return RuleVerdict{"extends-id", value + " extends " + target_text(best) +
                                         " with extra words: a different project, not a typo"};
  }
  if (strict_sub_multiset(key_tokens, best_tokens)) {
    return RuleVerdict{"partial-name", value + " is only part of " + target_text(best) +
                                           ": a partial name, not a typo"};
  }
  if (best.matched.size() >= key.size() + 2 &&
      (best.matched.starts_with(key) || best.matched.ends_with(key))) {
    return RuleVerdict{"abbreviation", value + " is a truncation of " + target_text(best) +
                                           ": an abbreviation, not a typo"};
  }
  if (digits(key) != digits(best.matched)) {
    return RuleVerdict{"numbers-differ", value + " and " + target_text(best) +
                                             " hold different numbers: another version or "
                                             "product, not a typo"};
  }
  if (key_tokens.size() == best_tokens.size()) {
    for (std::size_t i = 0; i < key_tokens.size(); ++i) {
      const auto& a = key_tokens[i];
      const auto& b = best_tokens[i];
      if (a == b) continue;
      const std::size_t edits = osa_distance(a, b);
      if (edits > edit_budget(a, b)) {
        return RuleVerdict{"too-many-edits", "`" + a + "` is " + edits_text(edits) + " from `" + b +
                                                 "` of " + target_text(best) +
                                                 ": a different word, not a typo"};
      }
    }
    return std::nullopt;
  }
  const std::string a = strip_separators(key);
  const std::string b = strip_separators(best.matched);
  const std::size_t edits = osa_distance(a, b);
  if (edits > edit_budget(a, b)) {
    return RuleVerdict{"too-many-edits", value + " is " + edits_text(edits) + " from " +
                                             target_text(best) +
                                             " (ignoring separators): not a typo"};
  }
  return std::nullopt;
}

std::string typo_evidence(std::string_view key, const Candidate& best) {
  return edits_text(osa_distance(key, best.matched)) + " from " + target_text(best);
}

}  // namespace kb
