#pragma once

// A corpus, its evidence and its check index built from in-memory records, shared by
// the check tests.

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/evidence.h"

namespace kb::test {

struct CheckFixture {
  std::shared_ptr<const Corpus> corpus;
  EvidenceIndex evidence;
  CheckIndex index;

  /// `records`: (path under the records directory, YAML) pairs.
  explicit CheckFixture(const std::vector<std::pair<std::string, std::string>>& records) {
    std::vector<FileResult> files;
    for (const auto& [file, yaml] : records) files.push_back(load_record_text(file, yaml));
    corpus = Corpus::from_files("records", std::move(files));
    for (const auto& d : corpus->diagnostics()) {
      if (d.severity == Severity::error) FAIL("fixture record: " << format_diagnostic(d));
    }
    evidence = EvidenceIndex::build(*corpus);
    index = CheckIndex::build(*corpus, evidence);
  }

  /// The report for a deployment given as YAML, which must parse without errors.
  CheckReport check(const std::string& yaml, const CheckOptions& options = {}) const {
    std::vector<Diagnostic> diags;
    Deployment d = parse_deployment(yaml, "deploy.yaml", diags);
    for (const auto& diag : diags) INFO(format_diagnostic(diag));
    REQUIRE(count_severity(diags, Severity::error) == 0);
    return index.run(d, options);
  }

  /// Like check(), and the deployment must also resolve without errors.
  CheckReport clean(const std::string& yaml) const {
    CheckReport r = check(yaml);
    for (const auto& d : r.diagnostics) {
      if (d.severity == Severity::error) FAIL("deployment: " << format_diagnostic(d));
    }
    return r;
  }
};

}  // namespace kb::test
