#pragma once

// Fuzz target body: one input as a deployment (YAML or JSON) and as an ignore file,
// checked against a small fixed corpus so predicates and version ranges are evaluated.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/evidence.h"

namespace kb::fuzz {

namespace detail {

struct CheckFixture {
  std::shared_ptr<const Corpus> corpus;
  EvidenceIndex evidence;
  CheckIndex index;
};

inline const CheckFixture& check_fixture() {
  static const CheckFixture fixture = [] {
    std::vector<FileResult> files;
    files.push_back(
        load_record_text("engines/vllm.yaml", "name: vLLM\naliases: [vllm-project/vllm]\n"));
    files.push_back(load_record_text("engines/lmcache.yaml", "name: LMCache\n"));
    files.push_back(load_record_text("gotchas/a.yaml", R"(title: A
severity: blocker
status: open
symptom: s
affects: [{engine: vllm, versions: ">=0.26.0, <0.28"}, lmcache]
applies_when:
  any:
    - all: [{engine: vllm, versions: "~=0.26"}, {engine: lmcache}, {config: {kv_transfer: pd}}]
    - {not: {config_set: [prefix_caching]}}
)"));
    files.push_back(load_record_text("gotchas/b.yaml", R"(title: B
severity: minor
status: mitigated
symptom: s
affects: [{engine: vllm, versions: "==0.27.*, !=0.27.1"}]
)"));
    auto corpus = Corpus::from_files("fuzz", std::move(files));
    EvidenceIndex evidence = EvidenceIndex::build(*corpus);
    CheckIndex index = CheckIndex::build(*corpus, evidence);
    return CheckFixture{corpus, evidence, index};
  }();
  return fixture;
}

}  // namespace detail

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string deployment(std::string_view data) {
  std::vector<Diagnostic> diags;
  Deployment d = parse_deployment(data, "fuzz.yaml", diags);
  for (const auto& diag : diags) {
    if (diag.code.empty()) return "diagnostic without a code";
  }
  for (std::size_t i = 0; i < d.config.size(); ++i) {
    for (std::size_t j = i + 1; j < d.config.size(); ++j) {
      if (d.config[i].key == d.config[j].key) return "duplicate config key " + d.config[i].key;
    }
  }
  const auto& fixture = detail::check_fixture();
  CheckReport report = fixture.index.run(d);
  for (std::size_t i = 1; i < report.findings.size(); ++i) {
    const auto prev = parse_gotcha_severity(report.findings[i - 1].severity);
    const auto cur = parse_gotcha_severity(report.findings[i].severity);
    if (!prev || !cur) return "finding with an unknown severity";
    if (*cur < *prev) return "findings not sorted worst first";
  }
  std::vector<Diagnostic> ignore_diags;
  IgnoreList ignores = parse_ignore_file(data, "fuzz-ignore.yaml", ignore_diags);
  fixture.index.apply_ignores(report, ignores, "2026-10-04");
  return {};
}

}  // namespace kb::fuzz
