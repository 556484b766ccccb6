#pragma once

// Shared by the report readers: results_junit.cpp (JUnit XML) and results_import.cpp
// (JSON summaries, format detection).

#include <string>
#include <string_view>

#include "kb/diagnostic.h"
#include "kb/results_import.h"

namespace kb::results_detail {

/// A diagnostic about a report (`record` is empty: a report is not a record).
Diagnostic report_diag(Severity sev, std::string code, const std::string& file, Pos pos,
                       std::string message, std::string hint = {});

/// Keeps the name of a failed or errored case, up to a bound.
void note_failing(TestCounts& c, std::string name);

/// Flags a report with no results (counts dropped) or none that passed or failed, and
/// sorts the diagnostics.
void finish(ReportParse& out, const std::string& file);

/// limits.file-size when `text` is larger than `limits.max_bytes`; true when it is not.
bool size_ok(std::string_view text, const std::string& file, const ReportLimits& limits,
             ReportParse& out);

}  // namespace kb::results_detail
