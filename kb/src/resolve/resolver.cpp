// Normalisation and the repair policy: exact first, then candidates, then the rules that
// decline rather than guess. The typo rules themselves live in resolver_rules.cpp.

#include "kb/resolver.h"
#include "kb/diagnostic_codes.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <functional>

#include "core/similarity.h"
#include "kb/text.h"
#include "resolve/resolver_internal.h"

namespace kb {
namespace {

// Candidates kept per unresolved reference: enough to find a plausible runner-up behind
// look-alikes that differ by a whole word.
constexpr std::size_t kCandidates = 8;

constexpr double kScoreTolerance = 1e-9;

constexpr auto& kKinds = kAllKinds;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

using text::lower;

// "an engine", "a gotcha".
std::string with_article(Kind k) {
  std::string name(kind_name(k));
  const bool vowel =
      !name.empty() && std::string_view("aeiou").find(name[0]) != std::string_view::npos;
  return (vowel ? "an " : "a ") + name;
}

bool is_multi_separator(char c) {
  return c == ',' || c == '/' || c == '+' || c == '&' || c == ';' || is_space(c);
}

std::vector<std::string_view> multi_parts(std::string_view value) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < value.size()) {
    while (i < value.size() && is_multi_separator(value[i])) ++i;
    std::size_t j = i;
    while (j < value.size() && !is_multi_separator(value[j])) ++j;
    if (j > i) parts.push_back(value.substr(i, j - i));
    i = j;
  }
  return parts;
}

std::string exact_reason(MatchKind how, std::string_view raw, const std::string& id) {
  const std::string quoted = std::string("`").append(trim_view(raw)).append("`");
  switch (how) {
    case MatchKind::id:
      return "matches the id " + id;
    case MatchKind::alias:
      return quoted + " is an alias of " + id;
    case MatchKind::former_id:
      return quoted + " is a former id of " + id + " (renamed)";
    case MatchKind::name:
      return quoted + " is the display name of " + id;
    case MatchKind::repo:
      return quoted + " is the repository of " + id;
  }
  return "matches " + id;
}

}  // namespace

Resolution decline(Resolution r, std::string rule, std::string reason) {
  r.repairable = false;
  r.rule = std::move(rule);
  r.reason = std::move(reason);
  return r;
}

std::string format_score(double score) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", score);
  return buf;
}

std::string_view trim_view(std::string_view raw) {
  return text::trim(raw);
}

std::optional<Kind> namespace_prefix(std::string_view raw) {
  // Asked of every reference a page or a check resolves: compared in place, not lowered
  // into a copy first.
  const std::string_view value = trim_view(raw);
  for (Kind k : kKinds) {
    const std::string_view ns = kind_namespace(k);
    if (value.size() <= ns.size() || value[ns.size()] != '/') continue;
    bool same = true;
    for (std::size_t i = 0; same && i < ns.size(); ++i) {
      same = std::tolower(static_cast<unsigned char>(value[i])) == ns[i];
    }
    if (same) return k;
  }
  return std::nullopt;
}

std::string normalize_name(std::string_view raw) {
  std::string s = lower(trim_view(raw));
  bool url = false;
  for (std::string_view scheme : {"git@github.com:", "https://", "http://", "git://"}) {
    if (s.starts_with(scheme)) {
      s.erase(0, scheme.size());
      url = true;
      break;
    }
  }
  if (s.starts_with("www.")) s.erase(0, 4);
  if (s.starts_with("github.com/")) {
    s.erase(0, 11);
    url = true;
  }
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (url && s.size() > 4 && s.ends_with(".git")) s.resize(s.size() - 4);
  if (auto k = namespace_prefix(s)) s.erase(0, kind_namespace(*k).size() + 1);

  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '-' || c == '_' || is_space(c)) {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += c;
    }
  }
  // `NIXL_` and `nixl` differ only by a separator, which is normalisation, not a typo.
  while (!out.empty() && out.back() == '-') out.pop_back();
  if (!out.empty() && out.front() == '-') out.erase(0, 1);
  return out;
}

std::vector<std::string> name_tokens(std::string_view key) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : key) {
    if (c == '-' || c == '/' || c == '.') {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::vector<std::string> proper_token_spans(std::string_view key) {
  std::vector<std::size_t> starts{0};
  std::vector<std::size_t> ends;
  for (std::size_t i = 0; i < key.size(); ++i) {
    if (key[i] == '-' || key[i] == '/' || key[i] == '.') {
      ends.push_back(i);
      starts.push_back(i + 1);
    }
  }
  ends.push_back(key.size());
  std::vector<std::string> out;
  for (std::size_t s : starts) {
    for (std::size_t e : ends) {
      if (e <= s || (s == 0 && e == key.size())) continue;
      out.emplace_back(key.substr(s, e - s));
    }
  }
  return out;
}

Resolution resolve(const NameIndex& names, Kind ns, std::string_view raw,
                   const RepairPolicy& policy) {
  Resolution r;
  const std::string_view value = trim_view(raw);
  const std::string key = normalize_name(value);
  if (key.empty()) return decline(r, "empty", "the reference is empty");

  if (auto prefix = namespace_prefix(value); prefix && *prefix != ns) {
    auto ids = names.exact(*prefix, value);
    r.candidates = names.candidates(ns, key);
    if (!ids.empty()) {
      r.other_namespace_id = ids.front();
      return decline(r, "wrong-namespace",
                     "names " + ids.front() + ", " + with_article(*prefix) + ", where " +
                         with_article(ns) + " is expected; never repaired across namespaces");
    }
    return decline(r, "wrong-namespace",
                   "written with the `" + std::string(kind_namespace(*prefix)) +
                       "/` prefix where " + with_article(ns) +
                       " is expected; never repaired across namespaces");
  }

  MatchKind how = MatchKind::id;
  auto ids = names.exact(ns, value, &how);
  if (ids.size() == 1 || (ids.size() > 1 && how == MatchKind::id)) {
    r.target = ids.front();
    r.how = how;
    r.confidence = 1.0;
    r.rule = "exact";
    r.reason = exact_reason(how, value, ids.front());
    return r;
  }
  if (ids.size() > 1) {
    std::string list;
    for (const auto& id : ids) {
      list += (list.empty() ? "" : ", ") + id;
      r.candidates.push_back(Candidate{id, 1.0, key});
    }
    return decline(r, "collision", "names several records (" + list + "); rename one of them");
  }

  r.candidates = names.candidates(ns, key, kCandidates);
  if (!r.candidates.empty()) r.confidence = r.candidates.front().score;

  for (Kind other : kKinds) {
    if (other == ns) continue;
    auto other_ids = names.exact(other, value);
    if (other_ids.empty()) continue;
    r.other_namespace_id = other_ids.front();
    return decline(r, "wrong-namespace",
                   "names " + other_ids.front() + ", " + with_article(other) + ", where " +
                       with_article(ns) + " is expected; never repaired across namespaces");
  }

  // `owner/repo` forms hold a `/` too, so a slash alone splits only when every part resolves.
  const std::string_view bare =
      namespace_prefix(value) ? value.substr(kind_namespace(ns).size() + 1) : value;
  const auto parts = multi_parts(bare);
  const bool slash_only = bare.find_first_of(",+&;") == std::string_view::npos &&
                          std::none_of(bare.begin(), bare.end(), is_space);
  std::string whole_parts;
  std::size_t resolving = 0;
  for (std::string_view part : parts.size() >= 2 ? parts : std::vector<std::string_view>{}) {
    for (Kind k : kKinds) {
      if (!names.exact(k, part).empty()) {
        whole_parts += (whole_parts.empty() ? "`" : ", `") + std::string(part) + "`";
        ++resolving;
        break;
      }
    }
  }
  if (resolving > 0 && (!slash_only || resolving == parts.size())) {
    return decline(r, "several-ids",
                   "holds several references (" + whole_parts +
                       (resolving == 1 ? " already names a record" : " already name records") +
                       "); write one reference per list item");
  }

  const std::size_t length = key.size();
  if (length < policy.min_length) {
    return decline(r, "too-short",
                   std::string("`").append(value) + "` has " + std::to_string(length) +
                       " characters, fewer than " + std::to_string(policy.min_length) +
                       ": too short to repair safely");
  }

  const double own = r.candidates.empty() ? 0.0 : r.candidates.front().score;
  for (Kind other : kKinds) {
    if (other == ns) continue;
    auto rival = names.candidates(other, key, 1);
    if (rival.empty()) continue;
    const double score = rival.front().score;
    if (score > own - policy.min_margin && std::max(score, own) >= policy.min_confidence) {
      return decline(r, "other-namespace-closer",
                     "looks like " + rival.front().id + " (" + format_score(score) + "), " +
                         with_article(other) + ", at least as much as like any " +
                         std::string(kind_name(ns)) + " (" + format_score(own) +
                         "); never repaired across namespaces");
    }
  }
  if (r.candidates.empty()) {
    return decline(r, "no-candidate", "no " + std::string(kind_name(ns)) + " has a similar name");
  }
  return judge(
      std::move(r), key, policy, [&](const Candidate& c) { return typo_rules(names, ns, key, c); },
      CandidateText{[](const Candidate& c) { return c.id; },
                    [](const Candidate& c) { return c.id + " via `" + c.matched + "`"; }});
}

Resolution judge(Resolution r, std::string_view key, const RepairPolicy& policy,
                 const std::function<std::optional<RuleVerdict>(const Candidate&)>& rules,
                 const CandidateText& text) {
  const Candidate& best = r.candidates.front();
  if (auto verdict = rules(best)) return decline(r, verdict->rule, verdict->reason);
  // Scores are means of ratios (one substitution in a four-letter name is exactly 0.80);
  // compare with a tolerance so rounding does not decide.
  if (best.score + kScoreTolerance < policy.min_confidence) {
    return decline(r, "low-confidence",
                   "best candidate " + text.best(best) + " scores " + format_score(best.score) +
                       ", below the " + format_score(policy.min_confidence) + " threshold");
  }
  // The runner-up is the next candidate that could also be the name the typo meant; one
  // that differs by a whole word or a number is no rival, however close its score, unless
  // it is as few edits away as the best (a value one edit from two ids is ambiguous).
  std::string runner_text = "no other candidate";
  const std::size_t best_edits = osa_distance(key, best.matched);
  for (std::size_t i = 1; i < r.candidates.size(); ++i) {
    const Candidate& second = r.candidates[i];
    auto verdict = rules(second);
    if (verdict && osa_distance(key, second.matched) > best_edits) {
      if (i == 1) {
        runner_text = "runner-up " + text.name(second) + " " + format_score(second.score) +
                      " is no typo match (" + verdict->rule + ")";
      }
      continue;
    }
    const double margin = best.score - second.score;
    if (margin + kScoreTolerance < policy.min_margin) {
      return decline(r, "ambiguous",
                     "ambiguous: " + text.name(best) + " (" + format_score(best.score) + ") and " +
                         text.name(second) + " (" + format_score(second.score) +
                         ") are within the " + format_score(policy.min_margin) + " margin");
    }
    runner_text = "runner-up " + text.name(second) + " " + format_score(second.score) +
                  " trails by " + format_score(margin);
    break;
  }
  r.repairable = true;
  r.rule = "repair";
  r.reason = typo_evidence(key, best) + ": score " + format_score(best.score) +
             " >= " + format_score(policy.min_confidence) + ", " + runner_text;
  return r;
}

std::string_view dangling_code(const Resolution& r) {
  return r.other_namespace_id.empty() ? diag_code("ref.dangling")
                                      : diag_code("ref.wrong-namespace");
}

std::string dangling_hint(const Resolution& r) {
  return dangling_hint(r, r.candidates.empty()
                              ? std::string()
                              : std::string(text::id_slug(r.candidates.front().id)));
}

std::string dangling_hint(const Resolution& r, const std::string& written) {
  if (!r.other_namespace_id.empty()) return r.reason;
  if (r.candidates.empty()) return r.reason;
  const Candidate& best = r.candidates.front();
  std::string hint = "did you mean `" + written + "`? (" + format_score(best.score);
  if (r.repairable) return hint + ", `kb repair --write` would apply it)";
  return hint + ", not applied: " + r.reason + ")";
}

}  // namespace kb
