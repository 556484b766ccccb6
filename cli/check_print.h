#pragma once

// How `kb check` prints for people: findings as text and as a Markdown PR comment, the
// deployment as read (--print-deployment), and a gotcha's clauses (--explain).

#include <ostream>
#include <string>

#include "kb/check.h"

namespace kb::cli {

/// Findings, then ignored findings, as indented text; diagnostics go to `err`.
void print_findings_text(std::ostream& out, std::ostream& err, const CheckReport& report,
                         const std::string& base_url);

/// A Markdown summary for a pull-request comment: a table, then details per finding.
void print_findings_markdown(std::ostream& out, const CheckReport& report,
                             const std::string& base_url);

/// Every service with its engines, settings (where each came from and how it was
/// normalised) and model, then what kb could not read.
void print_deployment_text(std::ostream& out, const CheckReport& report);

/// A gotcha's predicate per service, one clause a line, marked true / false / unknown.
void print_explanation_text(std::ostream& out, const Explanation& e);

}  // namespace kb::cli
