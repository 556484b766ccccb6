#pragma once

// Route patterns matched without std::regex. The route table's patterns are ECMAScript
// regexes; libstdc++'s std::regex took ~11 % of the event loop's CPU answering a record's
// JSON (bench/RESULTS.md, round 11), most of it in the regex of the route that matched.
// The table uses a small subset (literals, alternations, optional groups, `.`, `[^/]`, a
// negative lookahead, `$`), matched here by backtracking; a pattern outside it is not
// compiled, and the router keeps its std::regex.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace kb::http {

class RoutePattern {
 public:
  /// The pattern, or nullopt when it uses syntax outside the subset.
  static std::optional<RoutePattern> compile(std::string_view pattern);
  /// Whether the whole of `path` matches, as std::regex_match would say. On a match,
  /// `captures` (when given) holds what std::smatch would: the path, then each capturing
  /// group's text in the order the groups open, empty for a group that took no part.
  bool match(std::string_view path, std::vector<std::string_view>* captures = nullptr) const;

  struct Node;
  using Seq = std::vector<Node>;

 private:
  std::vector<Seq> alternatives_;
  std::size_t groups_ = 0;  ///< capturing groups
};

/// One element of a pattern: a character test, a group or an anchor, with a quantifier.
struct RoutePattern::Node {
  enum class Kind { literal, any, not_slash, group, not_followed_by, end };
  Kind kind = Kind::literal;
  char ch = 0;                    ///< of a literal
  std::vector<Seq> alternatives;  ///< of a group or a lookahead
  char quantifier = 0;            ///< 0, '?', '*' or '+' ('*' and '+' only on one character)
  std::size_t capture = 0;        ///< of a capturing group: its number (from 1); else 0
};

}  // namespace kb::http
