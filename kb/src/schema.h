#pragma once

// Turns a parsed YAML tree into a Record, checking every field against the schema of
// its namespace. Problems become diagnostics; a record is still produced when only
// non-fatal problems were found, so one bad field does not hide the others.

#include <string>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"
#include "yaml_tree.h"

namespace kb::schema {

/// Field names a record of kind `k` may hold, in canonical order.
const std::vector<std::string>& allowed_fields(Kind k);

/// Fills `r` (whose kind, id and file are already set) from `root`, a mapping.
/// Returns false when a required field is missing or a field has the wrong type.
bool read_record(const yaml::Node& root, Record& r, std::vector<Diagnostic>& diags);

}  // namespace kb::schema
