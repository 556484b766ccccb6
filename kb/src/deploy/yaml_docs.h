#pragma once

// Multi-document YAML (Kubernetes manifests, `helm template` output): the text split at
// `---` lines, each document parsed with input-sized limits, positions kept relative to
// the whole text.

#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "yaml/yaml_tree.h"

namespace kb::deploy {

/// Parses every non-empty document of `text`; false (with diagnostics) when the text is
/// too large, not UTF-8, or any document is not well-formed YAML.
bool parse_documents(std::string_view text, const std::string& file, std::vector<yaml::Node>& docs,
                     std::vector<Diagnostic>& diags);

/// Whether a line of `text` starts with `key:` at column 1 (a cheap content test).
bool has_top_level_key(std::string_view text, std::string_view key);

/// The scalar at `path` (keys separated by '.') under `n`, or nullptr.
const yaml::Node* at_path(const yaml::Node& n, std::string_view path);

/// Just past a scalar node's text when it is on one line (plain or quoted); 0 otherwise.
Pos scalar_end(const yaml::Node& n, std::string_view source);

}  // namespace kb::deploy
