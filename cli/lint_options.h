#pragma once

// Flags every command that loads and lints the tree shares.

#include <CLI/CLI.hpp>

#include <string>

#include "commands.h"
#include "kb/lint.h"

namespace kb::cli {

/// --records, --today, --stale-after, --max-file-bytes, --threads, --format.
struct LintConfig {
  std::string records = "records";
  std::string today;
  int stale_after = kb::kDefaultStaleAfterDays;
  std::size_t max_file_bytes = LoadOptions{}.max_file_bytes;
  unsigned threads = 0;
  std::string format = "text";

  LintOptions lint_options() const {
    LintOptions o;
    o.today = today;
    o.stale_after_days = stale_after;
    o.load.max_file_bytes = max_file_bytes;
    o.load.threads = threads;
    return o;
  }
};

/// Declares LintConfig's flags on `sub` (all but --format).
inline void add_lint_options(CLI::App* sub, LintConfig& cfg) {
  add_records_option(sub, cfg.records);
  add_date_option(sub, "--today", cfg.today, "Date to measure staleness from (YYYY-MM-DD)");
  sub->add_option("--stale-after", cfg.stale_after,
                  "Warn when a record was last verified longer ago (days)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--max-file-bytes", cfg.max_file_bytes, "Refuse record files larger than this")
      ->capture_default_str();
  sub->add_option("--threads", cfg.threads,
                  "Parser threads (0: one per core; kb build leaves one core to its index writer)")
      ->capture_default_str();
}

}  // namespace kb::cli
