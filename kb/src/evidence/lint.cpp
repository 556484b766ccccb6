#include "kb/lint.h"

#include "core/text_util.h"

namespace kb {

Linted lint_corpus(std::shared_ptr<const Corpus> corpus, const LintOptions& options) {
  Linted out;
  out.corpus = std::move(corpus);
  out.evidence = EvidenceIndex::build(*out.corpus);
  out.diagnostics = out.corpus->diagnostics();
  auto claims = out.evidence.check_claims(*out.corpus,
                                          options.today.empty() ? text::today_utc() : options.today,
                                          options.stale_after_days);
  out.diagnostics.insert(out.diagnostics.end(), claims.begin(), claims.end());
  sort_diagnostics(out.diagnostics);
  return out;
}

Linted lint_tree(const std::filesystem::path& dir, const LintOptions& options) {
  return lint_corpus(Corpus::load(dir, options.load), options);
}

}  // namespace kb
