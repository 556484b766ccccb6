#pragma once

// Checks of a YAML text before libyaml reads it and of the tree after: bounds that keep
// hostile input from being obeyed, and what libyaml accepts but a record must not hold.

#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "yaml/yaml_tree.h"

namespace kb::yaml {

/// Whether flow nesting (`[[[`, `{{{`) stays within `max_depth`; `where` is the first
/// bracket past it otherwise.
bool flow_depth_ok(std::string_view text, int max_depth, Pos& where);

/// Whether block nesting on one line (`- - - x`, `? ? x`) stays within `max_depth`.
bool block_depth_ok(std::string_view text, int max_depth, Pos& where);

/// Reports a mapping's repeated keys (`yaml.duplicate-key`) and keeps only one of each, in
/// every mapping of the tree: the first, as an error; with `later_wins`, the later value,
/// as a warning.
void check_duplicates(Node& n, const std::string& file, std::vector<Diagnostic>& diags,
                      bool later_wins = false);

/// The first quoted scalar whose quote is never closed, or nullptr.
const Node* unterminated_quote(const Node& n, std::string_view text);

}  // namespace kb::yaml
