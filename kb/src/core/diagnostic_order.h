#pragma once

// The order sort_diagnostics() puts diagnostics in, for code that sorts them held in
// another form (a snapshot's packed DiagnosticList). Private to kb_core.

#include <string_view>
#include <tuple>

#include "kb/diagnostic.h"

namespace kb {

/// What diagnostics sort by: file, line, column, then code.
inline std::tuple<std::string_view, int, int, std::string_view> diagnostic_sort_key(
    std::string_view file, int line, int column, std::string_view code) {
  return {file, line, column, code};
}

/// By diagnostic_sort_key().
bool diagnostic_before(const Diagnostic& a, const Diagnostic& b);

}  // namespace kb
