#pragma once

// What `kb oracle run` shows and writes: progress on stderr, and each run as a result
// record (YAML), a JSON document or a JUnit report, on stdout or into files.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "kb/oracle.h"
#include "kb/results_import.h"

namespace kb::cli {

/// One oracle's finished (or interrupted) run, ready to print.
struct OracleRun {
  oracle::RunnerSpec spec;
  oracle::RunReport report;
  ResultSpec result;
  std::string yaml;  ///< the result record
  std::string file;  ///< where it was written, when it was
};

/// Progress of one run on stderr: a bar redrawn in place on a terminal, otherwise a
/// plain line every tenth of the run (and at its end).
class Progress {
 public:
  Progress(std::string label, bool tty) : label_(std::move(label)), tty_(tty) {}
  /// Called after each comparison.
  void update(std::size_t finished, std::size_t total, const oracle::Tally& t);
  /// Ends the bar's line.
  void finish();

 private:
  std::string label_;
  bool tty_;
  bool drawn_ = false;
  std::mutex mu_;
};

/// One run as JSON: counts, failures, every test case with its outcome (so that
/// `kb results import` reads it back) and the result record's text.
nlohmann::json run_json(const OracleRun& run);

/// "3 passed, 1 failed, 0 errors, 0 skipped".
std::string counts_text(const oracle::Tally& t);

/// 130 when interrupted, else 1 when anything diverged, else 2 when anything errored, else 0.
int exit_code(const std::vector<OracleRun>& runs, bool interrupted);

}  // namespace kb::cli
