// What a parsed YAML node is: lookups in a mapping, where a byte of a scalar stands, the
// core-schema type of a scalar and the names messages give them (the tree itself is built
// in yaml_tree.cpp).

#include <string_view>

#include "yaml/yaml_tree.h"

namespace kb::yaml {

const Node* Node::find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.type == Type::scalar && k.value == key) return &v;
  }
  return nullptr;
}

Pos value_pos(const Node& n, std::size_t offset) {
  if (!n.is_scalar() || !n.verbatim || offset > n.value.size()) return n.pos;
  // A quoted value starts one byte after its opening quote.
  return Pos{n.pos.line, n.pos.column + (n.plain ? 0 : 1) + static_cast<int>(offset)};
}

namespace {

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool is_dec(char c) {
  return c >= '0' && c <= '9';
}
bool is_oct(char c) {
  return c >= '0' && c <= '7';
}
bool is_hex(char c) {
  return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
bool is_core_float(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && is_dec(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_dec(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!all_of(s.substr(i), is_dec)) return false;
    i = s.size();
  }
  return i == s.size();
}

}  // namespace

CoreType core_type(const Node& n) {
  if (n.type == Node::Type::null) return CoreType::null;
  if (n.type != Node::Type::scalar || !n.plain) return CoreType::string;
  std::string_view s = n.value;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE")
    return CoreType::boolean;
  std::string_view digits = s;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  if (all_of(digits, is_dec)) return CoreType::integer;
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && all_of(s.substr(2), is_oct))
    return CoreType::integer;
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && all_of(s.substr(2), is_hex))
    return CoreType::integer;
  if (is_core_float(s)) return CoreType::floating;
  std::string_view mag = s;
  if (!mag.empty() && (mag[0] == '-' || mag[0] == '+')) mag.remove_prefix(1);
  if (mag == ".inf" || mag == ".Inf" || mag == ".INF") return CoreType::floating;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return CoreType::floating;
  return CoreType::string;
}

std::string_view core_type_name(CoreType t) {
  switch (t) {
    case CoreType::null:
      return "nothing";
    case CoreType::boolean:
      return "a boolean";
    case CoreType::integer:
      return "an integer";
    case CoreType::floating:
      return "a number";
    case CoreType::string:
      return "text";
  }
  return "?";
}

std::string_view type_name(const Node& n) {
  switch (n.type) {
    case Node::Type::null:
      return "nothing";
    case Node::Type::scalar:
      return "a scalar";
    case Node::Type::seq:
      return "a list";
    case Node::Type::map:
      return "a mapping";
  }
  return "?";
}

}  // namespace kb::yaml
