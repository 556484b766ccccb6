#pragma once

// Fuzz target body: one input as a record file of each kind, then the four as a corpus
// (cross-record checks, reference resolution, evidence claims). Shared by the libFuzzer
// entry point and tests/unit/fuzz_regression_test.cpp, which replays saved crashes.

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "kb/corpus.h"
#include "kb/lint.h"

namespace kb::fuzz {

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string record_loader(std::string_view data) {
  static constexpr const char* kPaths[] = {"gotchas/fuzz.yaml", "engines/fuzz.yaml",
                                           "oracles/fuzz.yaml", "results/fuzz.yaml"};
  // Lines as YAML counts them (and editors' language servers): `\n`, `\r\n` and a lone
  // `\r` each end one.
  int lines = 1;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (data[i] == '\n' || (data[i] == '\r' && (i + 1 == data.size() || data[i + 1] != '\n')))
      ++lines;
  }
  std::vector<FileResult> files;
  for (const char* path : kPaths) {
    FileResult r = load_record_text(path, data);
    if (!r.record && r.diagnostics.empty()) return "no record and no diagnostic";
    for (const auto& d : r.diagnostics) {
      if (d.code.empty()) return "diagnostic without a code";
      if (d.line < 0 || d.line > lines) return "diagnostic line out of range: " + d.code;
      if (d.file != path) return "diagnostic names another file: " + d.code;
    }
    if (r.record && r.record->file != path) return "record file differs from its path";
    files.push_back(std::move(r));
  }
  auto corpus = Corpus::from_files("fuzz", std::move(files));
  LintOptions options;
  options.today = "2026-10-04";
  Linted linted = lint_corpus(corpus, options);
  for (const auto& d : linted.diagnostics) {
    if (d.code.empty()) return "corpus diagnostic without a code";
  }
  return {};
}

}  // namespace kb::fuzz
