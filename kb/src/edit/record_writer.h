#pragma once

// Writing YAML for new record files: scalars and Markdown text emitted so that they read
// back as exactly the same string. Shared by the writers that create record files
// (`kb import-text`, `kb results import`); editing existing files is the repairer's job.

#include <string>
#include <string_view>

#include "yaml/yaml_scalar.h"

namespace kb::yaml_out {

/// Appends `key: <text>` at `indent` spaces. Text becomes a literal block scalar whose
/// chomping (`|-`, `|`, `|+`) and indentation indicator keep its exact bytes, or a
/// double-quoted scalar when no block scalar can hold it (CR, control characters,
/// whitespace-only text).
void append_text(std::string& out, std::string_view key, std::string_view text, int indent = 0);

/// Appends `key: <scalar(value)>` at `indent` spaces.
void append_scalar(std::string& out, std::string_view key, std::string_view value, int indent = 0);

}  // namespace kb::yaml_out
