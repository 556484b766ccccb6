#pragma once

// Helpers shared by the name index, the resolver's rules and the repair planner.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/model.h"
#include "kb/resolver.h"

namespace kb {

/// `raw` without surrounding ASCII whitespace.
std::string_view trim_view(std::string_view raw);

/// A normalised key cut at `-`, `/` and `.`: "kvcache-ai/mooncake" -> {kvcache, ai, mooncake}.
std::vector<std::string> name_tokens(std::string_view key);

/// Every substring of `key` that starts and ends at a token boundary and is shorter than
/// `key` ("vllm-project/vllm-ascend" -> "vllm", "vllm-project", "vllm-project/vllm", ...).
std::vector<std::string> proper_token_spans(std::string_view key);

/// One decision of the repair policy about the best candidate.
struct RuleVerdict {
  std::string rule;    ///< short stable name, e.g. "extends-id"
  std::string reason;  ///< the sentence shown to people, with its evidence
};

/// `r` marked not repairable, with the rule that declined it and the sentence saying why.
Resolution decline(Resolution r, std::string rule, std::string reason);

/// "0.85": scores in reasons, hints and the repair log.
std::string format_score(double score);

/// Why `best` is not a typo of `key` (written in namespace `ns`), or nullopt when it may
/// be: `key` extends a name with extra words, is part of a name, abbreviates it, has
/// other numbers, or needs more edits than a typo of words that long.
std::optional<RuleVerdict> typo_rules(const NameIndex& names, Kind ns, std::string_view key,
                                      const Candidate& best);

/// The rules of typo_rules that look only at `key` and `best`'s name, not at other
/// records: extra or missing words, truncations, other numbers, too many edits.
std::optional<RuleVerdict> spelling_rules(std::string_view key, const Candidate& best);

/// "2 edits from `mooncake` (engines/mooncake)": the evidence of a repair.
std::string typo_evidence(std::string_view key, const Candidate& best);

/// How the policy's messages name a candidate.
struct CandidateText {
  std::string (*name)(const Candidate&);  ///< "engines/mooncake", "`true`"
  std::string (*best)(const Candidate&);  ///< "engines/mooncake via `mooncake`", "`true`"
};

/// The policy's last steps, shared by references and setting values: `r.candidates`
/// (non-empty, best first, each a possible meaning) are declined when `rules` rejects the
/// best, when it scores below `policy.min_confidence`, or when a rival the rules accept
/// (or one as few edits away) is within `policy.min_margin`; otherwise it is repairable.
Resolution judge(Resolution r, std::string_view key, const RepairPolicy& policy,
                 const std::function<std::optional<RuleVerdict>(const Candidate&)>& rules,
                 const CandidateText& text);

}  // namespace kb
