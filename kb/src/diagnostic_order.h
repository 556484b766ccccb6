#pragma once

// The order sort_diagnostics() puts diagnostics in, for code that sorts them carried in
// something else (a snapshot's claims, each beside its record). Private to kb_core.

#include "kb/diagnostic.h"

namespace kb {

/// By file, line, column, then code.
bool diagnostic_before(const Diagnostic& a, const Diagnostic& b);

}  // namespace kb
