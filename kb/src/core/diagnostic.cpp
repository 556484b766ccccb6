#include "kb/diagnostic.h"

#include <algorithm>
#include <tuple>

#include "core/diagnostic_order.h"

namespace kb {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
    case Severity::note:
      return "note";
  }
  return "error";
}

bool diagnostic_before(const Diagnostic& a, const Diagnostic& b) {
  return diagnostic_sort_key(a.file, a.line, a.column, a.code) <
         diagnostic_sort_key(b.file, b.line, b.column, b.code);
}

void sort_diagnostics(std::vector<Diagnostic>& diags) {
  std::stable_sort(diags.begin(), diags.end(), diagnostic_before);
}

std::size_t count_severity(const std::vector<Diagnostic>& diags, Severity s) {
  return static_cast<std::size_t>(std::count_if(
      diags.begin(), diags.end(), [s](const Diagnostic& d) { return d.severity == s; }));
}

std::string format_diagnostic(const Diagnostic& d) {
  std::string out = d.file.empty() ? std::string("<records>") : d.file;
  if (d.line > 0) {
    out += ':' + std::to_string(d.line);
    if (d.column > 0) out += ':' + std::to_string(d.column);
  }
  out += ": ";
  out += to_string(d.severity);
  out += '[' + d.code + "]: " + d.message;
  if (!d.hint.empty()) out += "\n  hint: " + d.hint;
  return out;
}

}  // namespace kb
