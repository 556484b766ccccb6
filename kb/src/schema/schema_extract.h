#pragma once

// Reading a record that passed the schema check (schema_validate.h) into a Record: one
// setter per field of the schema table, and nothing else -- the checks are done.

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

/// The field names that have a setter for records of kind `k`, to keep the schema table
/// and the setters in step (tested).
std::vector<std::string_view> extracted_fields(Kind k);

}  // namespace kb::schema
