#pragma once

// The record schema as JSON Schemas (draft 2020-12), generated from the schema table, so
// an editor with the YAML language server completes and validates record files the way
// `kb lint` checks them.

#include <nlohmann/json.hpp>

#include <string>

#include "kb/corpus.h"
#include "kb/model.h"

namespace kb::json {

/// The JSON Schema of records of kind `k`. With `vocabulary`, references and the setting
/// keys and engine names of predicates must be names the knowledge base knows, as
/// `vocabulary.schema.json` (vocabulary_schema) says; without, any non-empty text.
nlohmann::json json_schema(Kind k, bool vocabulary = false);

/// "vocabulary.schema.json": the names records may use for the records of each namespace
/// (ids, aliases, engine names and repositories, setting keys and synonyms), read the way
/// `kb lint` resolves them (any case, `-`, `_` and spaces alike, `engines/` optional).
nlohmann::json vocabulary_schema(const Corpus& corpus);
inline constexpr const char* kVocabularyFile = "vocabulary.schema.json";

/// "gotchas.schema.json", ...: the name it ships under in schemas/, the site and the API.
std::string schema_file_name(Kind k);

}  // namespace kb::json
