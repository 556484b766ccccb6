#pragma once

// How `kb check` prints for people: findings as text and as a Markdown PR comment, the
// deployment as read (--print-deployment), and a gotcha's clauses (--explain).

#include <ostream>
#include <string>

#include "kb/check.h"

namespace kb::cli {

/// Findings, then ignored findings, as indented text; diagnostics go to `err`. `colour`:
/// severities in ANSI colours (a terminal that asked for them, see colour_wanted()).
void print_findings_text(std::ostream& out, std::ostream& err, const CheckReport& report,
                         const std::string& base_url, bool colour = false);

/// Whether output to a stream whose descriptor is `fd` is coloured: `mode` always / never,
/// or auto: a terminal, NO_COLOR unset or empty (no-color.org) and TERM not `dumb`.
bool colour_wanted(const std::string& mode, int fd);

/// A Markdown summary for a pull-request comment: a table, then details per finding.
void print_findings_markdown(std::ostream& out, const CheckReport& report,
                             const std::string& base_url);

/// Every service with its engines, settings (where each came from and how it was
/// normalised) and model, then what kb could not read.
void print_deployment_text(std::ostream& out, const CheckReport& report);

/// A gotcha's predicate per service, one clause a line, marked true / false / unknown.
void print_explanation_text(std::ostream& out, const Explanation& e);

}  // namespace kb::cli
