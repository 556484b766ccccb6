#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// How bad a diagnostic is; `error` makes `kb lint` exit 1.
enum class Severity { error, warning, note };

/// "error", "warning" or "note".
std::string_view to_string(Severity s);

/// A problem found in the data: collected and reported, never thrown.
struct Diagnostic {
  Severity severity = Severity::error;
  std::string code;     ///< stable, e.g. "schema.unknown-field"
  std::string file;     ///< relative to the records directory, e.g. "gotchas/x.yaml"
  int line = 0;         ///< 1-based; 0 when the problem is about the whole file
  int column = 0;       ///< 1-based; 0 when unknown
  std::string message;  ///< what is wrong
  std::string hint;     ///< how to fix it, when known
  std::string record;   ///< id of the record concerned, when known
};

/// Sorts by file, line, column, then code, so output is stable.
void sort_diagnostics(std::vector<Diagnostic>& diags);

/// Counts diagnostics of one severity.
std::size_t count_severity(const std::vector<Diagnostic>& diags, Severity s);

/// Renders like a compiler: `file:line:col: error[code]: message` plus an indented hint line.
std::string format_diagnostic(const Diagnostic& d);

}  // namespace kb
