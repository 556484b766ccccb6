#pragma once

// Rules of one record beyond its fields' types (schema_rules.cpp).

#include "kb/model.h"
#include "schema/schema_validate.h"
#include "yaml/yaml_tree.h"

namespace kb::schema {

/// Checks what the field table cannot say about a record of kind `k` read as `root`;
/// values of the wrong type are left to the table's checks.
void check_rules(const yaml::Node& root, Kind k, Validator& check);

}  // namespace kb::schema
