#pragma once

// The record schema as JSON Schemas (draft 2020-12), generated from the schema table, so
// an editor with the YAML language server completes and validates record files the way
// `kb lint` checks them.

#include <nlohmann/json.hpp>

#include <string>

#include "kb/model.h"

namespace kb::json {

/// The JSON Schema of records of kind `k`.
nlohmann::json json_schema(Kind k);

/// "gotchas.schema.json", ...: the name it ships under in schemas/, the site and the API.
std::string schema_file_name(Kind k);

}  // namespace kb::json
