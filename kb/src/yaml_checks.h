#pragma once

// Checks of a YAML text and its tree that the parser does not make: nesting bounded
// before parsing, duplicate keys and unterminated quotes after (used by yaml_tree.cpp).

#include <string>
#include <string_view>
#include <vector>

#include "yaml_tree.h"

namespace kb::yaml {

/// Whether flow collections (`[`, `{`) nest at most `max_depth` deep; else `where` is
/// set to the bracket that goes too deep.
bool flow_depth_ok(std::string_view text, int max_depth, Pos& where);

/// Whether no line holds more than `max_depth` block indicators (`- - - x`); else
/// `where` is set to that line.
bool block_depth_ok(std::string_view text, int max_depth, Pos& where);

/// Appends a `yaml.duplicate-key` diagnostic for every key a mapping of `n` repeats, and
/// keeps only the first entry of each key.
void check_duplicates(Node& n, const std::string& file, std::vector<Diagnostic>& diags);

/// The first quoted scalar of `n` that runs to the end of `text`, or nullptr.
const Node* unterminated_quote(const Node& n, std::string_view text);

}  // namespace kb::yaml
