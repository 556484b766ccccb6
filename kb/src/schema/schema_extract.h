#pragma once

// Reading a record that passed the schema check (schema_validate.h) into a Record: one
// setter per field of the schema table, and nothing else -- the checks are done. The
// setters are found through the table: a key is read only if the table declares it, by
// the setter registered under that name for the table's structure.

#include <string>
#include <string_view>
#include <vector>

#include "kb/model.h"
#include "yaml/yaml_tree.h"

namespace kb::schema {

/// Fills `r` (kind, id and file set) from a checked record mapping.
void extract_record(const yaml::Node& root, Record& r);

/// Reads a checked applies_when predicate (schema_predicate.cpp).
Predicate read_predicate(const yaml::Node& v, const std::string& path);

/// Where the setters and the schema table disagree, one line each: a field of the table
/// that no setter reads (lint would pass it and the loader drop it), a setter for a field
/// or structure the table does not declare. Empty when they agree (tested).
std::vector<std::string> extract_drift();

}  // namespace kb::schema
