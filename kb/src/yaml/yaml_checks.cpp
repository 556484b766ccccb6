// Checks of a YAML text before libyaml reads it and of the tree after (yaml_checks.h).

#include "yaml/yaml_checks.h"

#include <map>

#include "kb/diagnostic_codes.h"

namespace kb::yaml {

// Bounds flow nesting before the parser sees the text (yaml-cpp, used before, recursed
// once per level; libyaml does not, but the bound stays the same). Quotes are not tracked, so prose
// with many unbalanced brackets could trip this, which is why the bound is far above anything a
// record needs.
bool flow_depth_ok(std::string_view text, int max_depth, Pos& where) {
  int depth = 0;
  int line = 1;
  int col = 0;
  for (char c : text) {
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        where = Pos{line, col};
        return false;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

// Block nesting on one line (`- - - - x`, `? ? ? x`), bounded the same way.
bool block_depth_ok(std::string_view text, int max_depth, Pos& where) {
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    int indicators = 0;
    std::size_t j = i;
    while (j < text.size() && text[j] == ' ') ++j;
    while (j + 1 < text.size() && (text[j] == '-' || text[j] == '?') && text[j + 1] == ' ') {
      ++indicators;
      j += 2;
      while (j < text.size() && text[j] == ' ') ++j;
    }
    if (indicators > max_depth) {
      where = Pos{line, 1};
      return false;
    }
    std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) break;
    i = nl + 1;
    ++line;
  }
  return true;
}

// Reports a mapping's repeated keys and keeps only one of each, so that every reader sees
// one value per key: the first, the one the error points back to; or, where the file is
// another tool's, the later one, which that tool reads.
void check_duplicates(Node& n, const std::string& file, std::vector<Diagnostic>& diags,
                      bool later_wins) {
  if (n.type == Node::Type::map) {
    std::map<std::string, std::size_t> seen;  // key -> index among the kept entries
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n.entries.size(); ++i) {
      auto& [k, v] = n.entries[i];
      if (k.type == Node::Type::scalar) {
        auto [it, fresh] = seen.emplace(k.value, kept);
        if (!fresh) {
          const int first = n.entries[it->second].first.pos.line;
          if (later_wins) {
            diags.push_back(
                {Severity::warning, diag_code("yaml.duplicate-key"), file, k.pos.line, k.pos.column,
                 "duplicate key '" + k.value + "' (first at line " + std::to_string(first) +
                     "): this later value is read, as kubectl's and Helm's "
                     "YAML-to-JSON conversion keeps it, and the first is ignored",
                 "merge the two values into one key; other YAML readers may keep "
                 "either",
                 ""});
            check_duplicates(v, file, diags, later_wins);
            n.entries[it->second] = std::move(n.entries[i]);
          } else {
            diags.push_back(
                {Severity::error, diag_code("yaml.duplicate-key"), file, k.pos.line, k.pos.column,
                 "duplicate key '" + k.value + "' (first at line " + std::to_string(first) + ")",
                 "YAML keeps only one of them; merge the two values into one key", ""});
          }
          continue;
        }
      }
      check_duplicates(k, file, diags, later_wins);
      check_duplicates(v, file, diags, later_wins);
      if (kept != i) n.entries[kept] = std::move(n.entries[i]);
      ++kept;
    }
    n.entries.resize(kept);
  } else if (n.type == Node::Type::seq) {
    for (auto& item : n.items) check_duplicates(item, file, diags, later_wins);
  }
}

// A quoted scalar that runs to the end of the input would swallow every field after it;
// libyaml rejects it, and this names it (yaml-cpp 0.7, used before, accepted it).
const Node* unterminated_quote(const Node& n, std::string_view text) {
  if (n.type == Node::Type::scalar && !n.plain && n.offset < text.size()) {
    char q = text[n.offset];
    if (q == '"' || q == '\'') {
      for (std::size_t i = n.offset + 1; i < text.size(); ++i) {
        if (q == '"' && text[i] == '\\') {
          ++i;
        } else if (text[i] == q) {
          if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
            ++i;
          } else {
            return nullptr;
          }
        }
      }
      return &n;
    }
  }
  for (const auto& item : n.items) {
    if (const Node* bad = unterminated_quote(item, text)) return bad;
  }
  for (const auto& [k, v] : n.entries) {
    if (const Node* bad = unterminated_quote(k, text)) return bad;
    if (const Node* bad = unterminated_quote(v, text)) return bad;
  }
  return nullptr;
}

}  // namespace kb::yaml
