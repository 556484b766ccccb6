// Typo'd values of enum and bool settings (`prefix_caching: ture`, `kv_transfer: disagregated`):
// the policy references follow (resolver.cpp), over the closed set of one setting's
// spellings instead of a namespace of names.

#include <algorithm>

#include "core/similarity.h"
#include "core/text_util.h"
#include "kb/resolver.h"
#include "resolve/resolver_internal.h"
#include "schema/setting_values.h"

namespace kb {
namespace {

// Values compare as vocab.cpp compares them: case-insensitively, `_` as `-`.
std::string fold(std::string_view s) {
  std::string out = text::lower(text::trim(s));
  std::replace(out.begin(), out.end(), '_', '-');
  return out;
}

// A way to write a value of the setting, and the value it means.
struct Spelled {
  std::string spelling;
  std::string meaning;
};

std::vector<Spelled> spellings(const SettingDef& def) {
  std::vector<Spelled> out;
  if (def.type == setting_type::kBool) {
    for (const auto& [spelling, meaning] : bool_spellings()) {
      out.push_back({std::string(spelling), std::string(meaning)});
    }
    return out;
  }
  for (const SettingValue& v : def.values) {
    out.push_back({v.value, v.value});
    for (const auto& s : v.synonyms) out.push_back({s, v.value});
  }
  return out;
}

}  // namespace

Resolution resolve_value(const std::string& setting_id, const SettingDef& def, std::string_view raw,
                         const RepairPolicy& policy) {
  Resolution r;
  const std::string key = fold(raw);
  if (key.empty()) return decline(r, "empty", "the value is empty");
  if (auto value = normalize_value(def, raw).value) {
    r.target = *value;
    r.confidence = 1.0;
    r.rule = "exact";
    r.reason = "`" + std::string(text::trim(raw)) + "` means " + *value;
    return r;
  }
  if (def.type != setting_type::kEnum && def.type != setting_type::kBool) {
    return decline(
        r, "not-enumerated",
        "only values of enum and bool settings are repaired; " + setting_id + " is " + def.type);
  }
  // The best spelling of each meaning: two spellings of one value are no rivals
  // (`enabeld` is near `enabled` and `enable`, both true); two values are. Candidates are
  // judged folded, like `key`, and name the spelling as written afterwards.
  struct Scored {
    Candidate folded;
    std::string written;
    std::string meaning;
  };
  std::vector<Scored> best;
  for (const Spelled& s : spellings(def)) {
    std::string f = fold(s.spelling);
    const double score = name_similarity(key, f);
    auto same = std::find_if(best.begin(), best.end(),
                             [&](const Scored& b) { return b.meaning == s.meaning; });
    if (same == best.end()) {
      best.push_back({Candidate{setting_id, score, std::move(f)}, s.spelling, s.meaning});
    } else if (score > same->folded.score) {
      *same = Scored{Candidate{setting_id, score, std::move(f)}, s.spelling, s.meaning};
    }
  }
  std::stable_sort(best.begin(), best.end(), [](const Scored& a, const Scored& b) {
    return a.folded.score > b.folded.score;
  });
  for (const Scored& b : best) r.candidates.push_back(b.folded);
  if (r.candidates.empty()) return decline(r, "no-candidate", setting_id + " lists no values");
  r.confidence = r.candidates.front().score;
  if (key.size() < policy.min_length) {
    r = decline(r, "too-short",
                "`" + std::string(text::trim(raw)) + "` has " + std::to_string(key.size()) +
                    " characters, fewer than " + std::to_string(policy.min_length) +
                    ": too short to repair safely");
  } else {
    r = judge(
        std::move(r), key, policy, [&](const Candidate& c) { return spelling_rules(key, c); },
        CandidateText{[](const Candidate& c) { return "`" + c.matched + "`"; },
                      [](const Candidate& c) { return "`" + c.matched + "`"; }});
  }
  for (std::size_t i = 0; i < r.candidates.size(); ++i) r.candidates[i].matched = best[i].written;
  return r;
}

}  // namespace kb
