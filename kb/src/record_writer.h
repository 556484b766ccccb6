#pragma once

// Writing YAML for new record files: scalars and Markdown text emitted so that they read
// back as exactly the same string. Shared by the writers that create record files
// (`kb import-text`, `kb results import`); editing existing files is the repairer's job.

#include <string>
#include <string_view>

namespace kb::yaml_out {

/// `s` double-quoted, with YAML escapes for `"`, `\`, control characters and the
/// characters YAML may treat as line breaks or byte-order marks.
std::string double_quoted(std::string_view s);

/// `s` as a one-line scalar: plain when that reads back as the same text
/// (e.g. `gotchas/x`, `0.26.0`, `Mooncake`), otherwise double-quoted.
std::string scalar(std::string_view s);

/// Appends `key: <text>` at `indent` spaces. Text becomes a literal block scalar whose
/// chomping (`|-`, `|`, `|+`) and indentation indicator keep its exact bytes, or a
/// double-quoted scalar when no block scalar can hold it (CR, control characters,
/// whitespace-only text).
void append_text(std::string& out, std::string_view key, std::string_view text, int indent = 0);

/// Appends `key: <scalar(value)>` at `indent` spaces.
void append_scalar(std::string& out, std::string_view key, std::string_view value, int indent = 0);

}  // namespace kb::yaml_out
