#pragma once

// Checks of one record against the rest of the corpus beyond its references: settings and
// values in predicates, models' traits, settings' own definitions, fix chains.

#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

class Corpus;

/// Appends the diagnostics of `r` (a record of `corpus`) to `out`.
void lint_record(const Corpus& corpus, const Record& r, std::vector<Diagnostic>& out);

}  // namespace kb
