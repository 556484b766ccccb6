#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/evidence.h"

namespace kb {

/// What `kb lint` checks beyond loading.
struct LintOptions {
  LoadOptions load;
  std::string today;                              ///< YYYY-MM-DD; empty: today's date (UTC)
  int stale_after_days = kDefaultStaleAfterDays;  ///< verification older than this is a warning
};

/// A loaded, cross-checked tree with its derived evidence and every diagnostic.
struct Linted {
  std::shared_ptr<const Corpus> corpus;
  EvidenceIndex evidence;
  std::vector<Diagnostic> diagnostics;  ///< corpus diagnostics plus evidence claims, sorted
};

/// Adds the evidence index and its claim checks to an already loaded corpus.
Linted lint_corpus(std::shared_ptr<const Corpus> corpus, const LintOptions& options);

/// Loads `dir` and lints it.
Linted lint_tree(const std::filesystem::path& dir, const LintOptions& options);

}  // namespace kb
