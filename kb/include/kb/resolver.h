#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/model.h"

namespace kb {

/// Which name of a record a reference matched exactly (after normalisation).
enum class MatchKind { id, alias, former_id, name, repo };

/// "id", "alias", "former-id", "name", "repo".
std::string_view to_string(MatchKind m);

/// A record a reference might have meant.
struct Candidate {
  std::string id;       ///< full id, "engines/mooncake"
  double score = 0;     ///< similarity in [0, 1]
  std::string matched;  ///< the name of that record the score was computed against
};

/// Thresholds of the repair policy. The defaults are measured on the labelled fixture
/// tests/data/repair/labelled.tsv (see tests/unit/resolver_test.cpp): with them 68 of 69
/// typos are repaired and none of 55 non-typos is. 0.80 is the only confidence with no
/// wrong repair at that recall (a substituted first letter of a four-letter name, e.g.
/// `rixl` for `nixl`, scores 0.79; other one-letter slips score 0.80 or more); any margin
/// from 0.03 to 0.30 does as well, 0.10 is the middle; min_length 3 repairs `vlm`, 5 loses
/// `nilx`.
struct RepairPolicy {
  double min_confidence = 0.80;  ///< best candidate's score must reach this
  double min_margin = 0.10;      ///< ... and lead the runner-up by this much
  std::size_t min_length = 4;    ///< shorter values are never repaired
};

/// The outcome of resolving one reference value in one namespace.
struct Resolution {
  std::optional<std::string> target;  ///< the id it resolves to exactly (a value: its meaning)
  MatchKind how = MatchKind::id;      ///< valid when `target` is set
  std::vector<Candidate> candidates;  ///< best first, when `target` is empty
  bool repairable = false;            ///< `kb repair --write` would apply candidates[0]
  double confidence = 0;              ///< of candidates[0]
  std::string reason;                 ///< why it was (not) repaired, for people
  std::string other_namespace_id;     ///< set when the value names a record of another namespace
  std::string rule;  ///< the rule that decided, e.g. "exact", "repair", "ambiguous", "extends-id"
};

/// Every name by which records can be referenced, per namespace: ids, aliases (former
/// ids), engines' display names and repos. Built once per snapshot; exact lookups bisect
/// one sorted array and fuzzy candidate search is bounded (no scan of every name per query).
class NameIndex {
 public:
  NameIndex();
  ~NameIndex();
  NameIndex(NameIndex&&) noexcept;
  NameIndex& operator=(NameIndex&&) noexcept;

  /// Adds every name of `r`.
  void add(const Record& r);
  /// Call once after the last add(), before lookups.
  void finish();

  /// The ids whose names normalise to the same key as `raw` in namespace `ns`
  /// (more than one means a collision); `how` gets the kind of the first match.
  std::vector<std::string> exact(Kind ns, std::string_view raw, MatchKind* how = nullptr) const;
  /// The one id exact() would name, held by the index, or "" when none or several do:
  /// what resolving a reference asks, without building a list.
  std::string_view unique(Kind ns, std::string_view raw) const;
  /// Up to `max` fuzzy candidates in namespace `ns`, best first.
  std::vector<Candidate> candidates(Kind ns, std::string_view raw, std::size_t max = 5) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Whether two versions of a record give a NameIndex the same names (kind, id, aliases,
/// name, repo): then every reference in a corpus resolves as it did.
bool same_names(const Record& a, const Record& b);

/// The namespace `raw` is explicitly written in (`oracles/x` -> oracle), if any.
std::optional<Kind> namespace_prefix(std::string_view raw);

/// Normalises a reference for exact matching: trims, lower-cases, maps `_` and spaces
/// to `-`, drops a leading `NAMESPACE/` and a GitHub URL prefix.
std::string normalize_name(std::string_view raw);

/// Resolves `raw`, written in a field implying namespace `ns`; never marks a repair
/// below `policy.min_confidence` or when the runner-up is within `policy.min_margin`,
/// nor for values that extend an id with extra tokens, are too short, or hold several ids.
Resolution resolve(const NameIndex& names, Kind ns, std::string_view raw,
                   const RepairPolicy& policy = {});

/// Resolves `raw`, written as a value of the setting `setting_id` (declared by `def`): a
/// value that normalises (`yes` for a bool) is exact; for an enum or bool setting, the
/// candidates are its spellings, one per value (each Candidate's `id` is `setting_id`,
/// `matched` the spelling), and the same policy as resolve() decides whether the best is
/// a repair: long enough, a typo by the spelling rules, confident, and clearly ahead of
/// every other value.
Resolution resolve_value(const std::string& setting_id, const SettingDef& def, std::string_view raw,
                         const RepairPolicy& policy = {});

/// "ref.wrong-namespace" when the value names a record of another namespace, else
/// "ref.dangling"; for lint diagnostics of references without a target.
std::string_view dangling_code(const Resolution& r);

/// A lint hint for a reference without a target, e.g. "did you mean `mooncake`? (0.85,
/// `kb repair --write` would apply it)" or "... (0.80, not applied: <reason>)".
std::string dangling_hint(const Resolution& r);
/// The same, naming the best candidate as `written` (how a repair would write it: a
/// setting's key rather than its record slug).
std::string dangling_hint(const Resolution& r, const std::string& written);

}  // namespace kb
