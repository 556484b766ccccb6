#pragma once

// A YAML document as a plain tree with the byte offset, line and column of every node,
// built from libyaml's event parser (a YAML library's own document API drops the
// positions we need for diagnostics and in-place repair, and drops a repeated key
// without a word: here it is reported, and only its first value kept).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb::yaml {

struct Node {
  enum class Type { null, scalar, seq, map };
  Type type = Type::null;
  Pos pos;                  ///< 1-based
  std::size_t offset = 0;   ///< byte offset of the node's first character in the parsed text
  bool plain = true;        ///< scalar written without quotes or block indicators
  bool verbatim = false;    ///< scalar's value is its source bytes, on one line (no escapes)
  std::string value;        ///< scalar text
  std::vector<Node> items;  ///< seq
  std::vector<std::pair<Node, Node>> entries;  ///< map, in file order

  // Declared, and the destructor defined after the class, so clang with libstdc++ in
  // C++20 mode does not instantiate ~vector<pair<Node, Node>> while Node is incomplete.
  Node() = default;
  Node(const Node&) = default;
  Node(Node&&) noexcept = default;
  Node& operator=(const Node&) = default;
  Node& operator=(Node&&) noexcept = default;
  ~Node();

  bool is_scalar() const { return type == Type::scalar; }
  bool is_map() const { return type == Type::map; }
  bool is_seq() const { return type == Type::seq; }
  bool is_null() const { return type == Type::null; }
  /// The value of the first entry whose key is `key`, or nullptr.
  const Node* find(std::string_view key) const;
};

inline Node::~Node() = default;

/// Explicit bounds so hostile input is reported, not obeyed.
struct Limits {
  std::size_t max_bytes = 4u << 20;  ///< a record file larger than this is refused
  int max_depth = 64;                ///< nesting of collections
  std::size_t max_nodes = 200000;    ///< nodes after alias expansion
  /// Scalar bytes after alias expansion, at most this many times the text's size...
  std::size_t expansion_factor = 16;
  /// ... or this many, whichever is larger.
  std::size_t min_expansion_bytes = 1u << 20;
  /// A repeated key of a mapping: an error keeping the first (kb's own files), or, for
  /// files other tools read (Kubernetes manifests, compose files, charts' values), a
  /// warning keeping the later value, which those tools' YAML-to-JSON conversion keeps.
  bool later_duplicate_wins = false;
};

/// The scalar bytes a document of `text_bytes` may expand to under `limits`.
std::size_t expansion_budget(const Limits& limits, std::size_t text_bytes);

/// What a text may still expand to: shared by the documents of a multi-document text, so
/// that many documents cannot each spend a whole budget.
struct Allowance {
  std::size_t nodes = 0;  ///< nodes, aliases expanded
  std::size_t bytes = 0;  ///< scalar bytes, aliases expanded
};

/// The allowance of a text of `text_bytes`: `max_nodes`, and expansion_budget().
Allowance allowance(const Limits& limits, std::size_t text_bytes);

/// Parses one YAML document; every problem becomes a diagnostic with `file` set.
/// Returns false (and no tree) when the text is not a single well-formed document.
bool parse(std::string_view text, const std::string& file, const Limits& limits, Node& out,
           std::vector<Diagnostic>& diags);

/// The same, spending `left` (what the document expanded to is taken from it).
bool parse(std::string_view text, const std::string& file, const Limits& limits, Node& out,
           std::vector<Diagnostic>& diags, Allowance& left);

/// Where byte `offset` of scalar `n`'s value stands in the file: exact when the value is
/// written verbatim (plain or quoted, one line, no escapes), else the scalar's own position.
Pos value_pos(const Node& n, std::size_t offset);

/// What a scalar is under YAML 1.2's core schema, as editors and JSON Schema validators
/// read it: a plain `3` is an integer, `true` a boolean, a quoted "3" a string.
enum class CoreType { null, boolean, integer, floating, string };

/// The core-schema type of `n` (a null node is `null`; collections are `string`).
CoreType core_type(const Node& n);

/// "an integer", "a boolean", ... for messages.
std::string_view core_type_name(CoreType t);

/// Human-readable type of a node for "expected a list, found a mapping" messages.
std::string_view type_name(const Node& n);

}  // namespace kb::yaml
