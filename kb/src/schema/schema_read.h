#pragma once

// Turns a parsed YAML tree into a Record: checked against the schema table first
// (schema_validate.h), then read (schema_extract.h) only when the check found no error,
// so nothing downstream sees half-read data.

#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"
#include "yaml/yaml_tree.h"

namespace kb::schema {

/// Fills `r` (whose kind, id and file are already set) from `root`, a mapping.
/// Returns false, leaving `r` without fields, when the record has errors.
bool read_record(const yaml::Node& root, Record& r, std::vector<Diagnostic>& diags);

}  // namespace kb::schema
