#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/dates.h"
#include "kb/diagnostic.h"

namespace kb {

class Corpus;
struct Record;

/// Whether the data shows a gotcha happening.
enum class Reproduction {
  reproduced,      ///< at least one linked result failed
  not_reproduced,  ///< linked results exist, some passed and none failed
  no_evidence,     ///< no linked result (or only results that neither passed nor failed)
};

/// "reproduced", "not-reproduced", "no-evidence".
std::string_view to_string(Reproduction r);

/// (name, value) pairs held once for every group of one subject and shared by the
/// evidence summaries of all gotchas its results are linked to (each held its own copy:
/// ~300 bytes a group at 100k records). Reads like a `const std::vector` of the pairs.
class SharedPairs {
 public:
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  SharedPairs() = default;
  explicit SharedPairs(Pairs pairs)
      : pairs_(pairs.empty() ? nullptr : std::make_shared<const Pairs>(std::move(pairs))) {}
  const Pairs& get() const { return pairs_ ? *pairs_ : empty_pairs(); }
  operator const Pairs&() const { return get(); }
  Pairs::const_iterator begin() const { return get().begin(); }
  Pairs::const_iterator end() const { return get().end(); }
  std::size_t size() const { return get().size(); }
  bool empty() const { return get().empty(); }
  const Pairs::value_type& operator[](std::size_t i) const { return get()[i]; }
  friend bool operator==(const SharedPairs& a, const Pairs& b) { return a.get() == b; }

 private:
  static const Pairs& empty_pairs() {
    static const Pairs none;
    return none;
  }
  std::shared_ptr<const Pairs> pairs_;
};

/// Results of one oracle on one subject (engines with versions + config), e.g.
/// "vllm 0.26.0 + lmcache: 6/6 failed in 2 runs".
struct EvidenceGroup {
  std::string oracle;                ///< oracle id
  std::string subject;               ///< "vllm 0.26.0 + lmcache"
  std::vector<std::string> results;  ///< result ids, oldest first
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::string newest_date;
  /// Engines as (engine slug, exact version or ""): versioned first, then by name.
  SharedPairs engines;
  /// The subject's configuration, sorted by key.
  SharedPairs config;
  std::int64_t errors = 0;   ///< test cases that errored (neither passed nor failed)
  std::int64_t skipped = 0;  ///< test cases skipped
  /// Result records in the group; `results` lists them all, except in controls, which
  /// keep only the newest kMaxControlResults ids.
  std::int64_t runs = 0;

  /// The sentence above, made when asked for (held in every group, it was ~110 bytes each).
  std::string summary() const;
};

/// Evidence groups held by shared pointer: a passing control is one object however many
/// gotchas list it (at 100k records, copies of the same few controls in every summary
/// were a quarter of a snapshot's memory). Reads like a `const std::vector<EvidenceGroup>`.
class SharedGroups {
 public:
  using Ptr = std::shared_ptr<const EvidenceGroup>;
  /// Iterates the groups themselves, not their pointers.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = EvidenceGroup;
    using difference_type = std::ptrdiff_t;
    using pointer = const EvidenceGroup*;
    using reference = const EvidenceGroup&;
    const_iterator() = default;
    explicit const_iterator(std::vector<Ptr>::const_iterator it) : it_(it) {}
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++it_;
      return old;
    }
    bool operator==(const const_iterator& o) const { return it_ == o.it_; }
    bool operator!=(const const_iterator& o) const { return it_ != o.it_; }

   private:
    std::vector<Ptr>::const_iterator it_;
  };

  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const EvidenceGroup& operator[](std::size_t i) const { return *items_[i]; }
  const_iterator begin() const { return const_iterator(items_.begin()); }
  const_iterator end() const { return const_iterator(items_.end()); }
  /// Appends a group; `group` must not be null.
  void push_back(Ptr group) { items_.push_back(std::move(group)); }

 private:
  std::vector<Ptr> items_;
};

/// Totals of the linked results of one oracle.
struct OracleTally {
  std::string oracle;  ///< oracle id
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::int64_t errors = 0;
  std::int64_t runs = 0;  ///< result records
};

/// Everything the data says about one gotcha's claim.
struct EvidenceSummary {
  Reproduction state = Reproduction::no_evidence;
  std::vector<EvidenceGroup> groups;  ///< results linked through evidence_for
  SharedGroups controls;              ///< same oracle, other subjects, all passed
  std::int64_t passed = 0;            ///< totals over `groups`
  std::int64_t failed = 0;
  std::int64_t runs = 0;
  std::string newest_date;             ///< newest linked result's date
  std::int64_t errors = 0;             ///< total over `groups`
  std::vector<OracleTally> by_oracle;  ///< totals over `groups` per oracle, by oracle id
  /// Passing control groups left out of `controls` (at most kMaxControls are kept).
  std::size_t controls_omitted = 0;
};

/// Controls kept per gotcha; the rest are only counted.
inline constexpr std::size_t kMaxControls = 20;
/// Result ids a control group lists (its newest); `runs` counts them all.
inline constexpr std::size_t kMaxControlResults = 5;

/// One line for lists and the index, e.g. "reproduced: 10/10 failed in 4 runs
/// (monolithic-equivalence 9/9, cold-vs-warm-prefix-cache 1/1); 2 passing controls".
std::string summary_line(const EvidenceSummary& s);

/// Evidence summaries of every gotcha, derived once per snapshot.
class EvidenceIndex {
 public:
  /// Derives every summary from the results in `corpus` in one pass over its records.
  static EvidenceIndex build(const Corpus& corpus);
  /// The summary for a gotcha id; a no-evidence summary when nothing links to it.
  const EvidenceSummary& for_gotcha(std::string_view id) const;
  /// Ids of the results whose `oracle` resolves to `oracle_id`, oldest first.
  std::vector<std::string> results_for_oracle(std::string_view oracle_id) const;
  /// Lint diagnostics: claims that contradict evidence, and stale verification.
  /// `today` is YYYY-MM-DD (throws Error{invalid_argument} otherwise);
  /// `stale_after_days` <= 0 turns the staleness check off.
  std::vector<Diagnostic> check_claims(const Corpus& corpus, const std::string& today,
                                       int stale_after_days) const;
  /// The check_claims diagnostics of record `r` of `corpus` alone, unsorted; `today_days`
  /// is date_to_days(today). They depend only on `r`, whether it is stale, its evidence
  /// summary, and the results and names of `corpus`: a snapshot reuses them while those
  /// stay the same.
  std::vector<Diagnostic> check_claims_of(const Corpus& corpus, const Record& r,
                                          const std::string& today, std::int64_t today_days,
                                          int stale_after_days) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

/// Default age, in days, after which `evidence.stale` warns.
inline constexpr int kDefaultStaleAfterDays = 90;

}  // namespace kb
