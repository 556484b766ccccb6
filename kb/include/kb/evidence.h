#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"

namespace kb {

class Corpus;

/// Whether the data shows a gotcha happening.
enum class Reproduction {
  reproduced,      ///< at least one linked result failed
  not_reproduced,  ///< linked results exist and all passed
  no_evidence,     ///< no linked result
};

/// "reproduced", "not-reproduced", "no-evidence".
std::string_view to_string(Reproduction r);

/// Linked results of one subject (engines with versions + config), e.g.
/// "vllm 0.26.0 + lmcache: 6/6 failed in 2 runs".
struct EvidenceGroup {
  std::string oracle;                  ///< oracle id
  std::string subject;                 ///< "vllm 0.26.0 + lmcache"
  std::vector<std::string> results;    ///< result ids, oldest first
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::string newest_date;
  std::string summary;                 ///< the sentence above
};

/// Everything the data says about one gotcha's claim.
struct EvidenceSummary {
  Reproduction state = Reproduction::no_evidence;
  std::vector<EvidenceGroup> groups;    ///< results linked through evidence_for
  std::vector<EvidenceGroup> controls;  ///< same oracle, other subjects, all passed
  std::int64_t passed = 0;              ///< totals over `groups`
  std::int64_t failed = 0;
  std::int64_t runs = 0;
  std::string newest_date;              ///< newest linked result's date
};

/// Evidence summaries of every gotcha, derived once per snapshot.
class EvidenceIndex {
 public:
  /// Derives every summary from the results in `corpus`.
  static EvidenceIndex build(const Corpus& corpus);
  /// The summary for a gotcha id; a no-evidence summary when nothing links to it.
  const EvidenceSummary& for_gotcha(std::string_view id) const;
  /// Lint diagnostics: claims that contradict evidence, and stale verification.
  std::vector<Diagnostic> check_claims(const Corpus& corpus, const std::string& today,
                                       int stale_after_days) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

}  // namespace kb
