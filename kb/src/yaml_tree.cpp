#include "yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <map>
#include <memory>
#include <sstream>
#include <unordered_map>
#include "kb/diagnostic_codes.h"

namespace kb::yaml {
namespace {

Pos to_pos(const YAML::Mark& m) { return Pos{m.line + 1, m.column + 1}; }

struct LimitHit {
  std::string code;
  std::string message;
  Pos pos;
};

class TreeBuilder final : public YAML::EventHandler {
 public:
  TreeBuilder(const Limits& limits) : limits_(limits) {}

  void OnDocumentStart(const YAML::Mark& mark) override { start_ = to_pos(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Node n;
    n.type = Node::Type::null;
    place(n, mark);
    add(std::move(n), anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      Node n;
      place(n, mark);
      add(std::move(n), 0);
      return;
    }
    count(it->second.weight, mark);
    Node copy = it->second.node;
    copy.pos = to_pos(mark);
    copy.offset = mark.pos;
    add(std::move(copy), 0, it->second.weight);
  }
  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Node n;
    n.type = Node::Type::scalar;
    n.plain = tag == "?";
    n.value = value;
    place(n, mark);
    add(std::move(n), anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(Node::Type::seq, mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(Node::Type::map, mark, anchor);
  }
  void OnMapEnd() override { close(); }

  bool has_root() const { return has_root_; }
  Pos start() const { return start_; }
  Node take_root() { return std::move(root_); }

 private:
  struct Frame {
    Node node;
    YAML::anchor_t anchor = 0;
    std::size_t weight = 1;
    bool have_key = false;
    Node key;
  };
  struct Anchored {
    Node node;
    std::size_t weight;
  };

  void place(Node& n, const YAML::Mark& mark) {
    n.pos = to_pos(mark);
    n.offset = mark.pos;
  }
  void count(std::size_t n, const YAML::Mark& mark) {
    nodes_ += n;
    if (nodes_ > limits_.max_nodes) {
      throw LimitHit{diag_code("limits.nodes"),
                     "document expands to more than " + std::to_string(limits_.max_nodes) +
                         " nodes (an alias/anchor expansion bomb?)",
                     to_pos(mark)};
    }
  }
  void open(Node::Type t, const YAML::Mark& mark, YAML::anchor_t anchor) {
    count(1, mark);
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
      throw LimitHit{diag_code("limits.depth"),
                     "collections nested deeper than " + std::to_string(limits_.max_depth) +
                         " levels",
                     to_pos(mark)};
    }
    Frame f;
    f.node.type = t;
    place(f.node, mark);
    f.anchor = anchor;
    stack_.push_back(std::move(f));
  }
  void close() {
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    add(std::move(f.node), f.anchor, f.weight, true);
  }
  void add(Node n, YAML::anchor_t anchor, std::size_t weight = 1, bool counted = false) {
    if (!counted && weight == 1) count(1, YAML::Mark::null_mark());
    if (anchor != 0) anchors_[anchor] = Anchored{n, weight};
    if (stack_.empty()) {
      root_ = std::move(n);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    top.weight += weight;
    if (top.node.type == Node::Type::seq) {
      top.node.items.push_back(std::move(n));
    } else if (!top.have_key) {
      top.key = std::move(n);
      top.have_key = true;
    } else {
      top.node.entries.emplace_back(std::move(top.key), std::move(n));
      top.have_key = false;
    }
  }

  const Limits& limits_;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Anchored> anchors_;
  std::size_t nodes_ = 0;
  Node root_;
  bool has_root_ = false;
  Pos start_;
};

// yaml-cpp recurses once per nesting level; bound flow nesting before it sees the text.
// Quotes are not tracked, so prose with many unbalanced brackets could trip this, which
// is why the bound is far above anything a record needs.
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

// Block nesting on one line (`- - - - x`, `? ? ? x`) also recurses in yaml-cpp.
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

void check_duplicates(const Node& n, const std::string& file, std::vector<Diagnostic>& diags) {
  if (n.type == Node::Type::map) {
    std::map<std::string, Pos> seen;
    for (const auto& [k, v] : n.entries) {
      if (k.type == Node::Type::scalar) {
        auto [it, fresh] = seen.emplace(k.value, k.pos);
        if (!fresh) {
          diags.push_back({Severity::error, diag_code("yaml.duplicate-key"), file, k.pos.line, k.pos.column,
                           "duplicate key '" + k.value + "' (first at line " +
                               std::to_string(it->second.line) + ")",
                           "YAML keeps only one of them; merge the two values into one key",
                           ""});
        }
      }
      check_duplicates(k, file, diags);
      check_duplicates(v, file, diags);
    }
  } else if (n.type == Node::Type::seq) {
    for (const auto& item : n.items) check_duplicates(item, file, diags);
  }
}

// yaml-cpp 0.7 accepts a quoted scalar that runs to the end of the input; such text
// silently swallows every field after it, so it is reported as a syntax error.
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

}  // namespace

const Node* Node::find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.type == Type::scalar && k.value == key) return &v;
  }
  return nullptr;
}

namespace {

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool is_dec(char c) { return c >= '0' && c <= '9'; }
bool is_oct(char c) { return c >= '0' && c <= '7'; }
bool is_hex(char c) { return is_dec(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

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
    case CoreType::null: return "nothing";
    case CoreType::boolean: return "a boolean";
    case CoreType::integer: return "an integer";
    case CoreType::floating: return "a number";
    case CoreType::string: return "text";
  }
  return "?";
}

std::string_view type_name(const Node& n) {
  switch (n.type) {
    case Node::Type::null: return "nothing";
    case Node::Type::scalar: return "a scalar";
    case Node::Type::seq: return "a list";
    case Node::Type::map: return "a mapping";
  }
  return "?";
}

bool parse(std::string_view text, const std::string& file, const Limits& limits, Node& out,
           std::vector<Diagnostic>& diags) {
  auto error = [&](std::string code, Pos p, std::string msg, std::string hint = {}) {
    diags.push_back({Severity::error, std::move(code), file, p.line, p.column, std::move(msg),
                     std::move(hint), ""});
  };
  Pos where;
  if (!flow_depth_ok(text, limits.max_depth, where) ||
      !block_depth_ok(text, limits.max_depth, where)) {
    error(diag_code("limits.depth"), where,
          "collections nested deeper than " + std::to_string(limits.max_depth) + " levels",
          "records are shallow; this file is probably corrupt or hostile");
    return false;
  }
  std::istringstream in{std::string(text)};
  TreeBuilder builder(limits);
  try {
    YAML::Parser parser(in);
    if (!parser.HandleNextDocument(builder) || !builder.has_root()) {
      error(diag_code("yaml.empty"), Pos{1, 1}, "the file holds no YAML document",
            "a record is a mapping such as `title: ...`");
      return false;
    }
    TreeBuilder second(limits);
    if (parser.HandleNextDocument(second)) {
      error(diag_code("yaml.multiple-documents"), second.start(),
            "the file holds more than one YAML document",
            "put one record per file; remove the `---` separator");
      return false;
    }
  } catch (const LimitHit& hit) {
    error(hit.code, hit.pos, hit.message, "records are small; this file is probably hostile");
    return false;
  } catch (const YAML::Exception& e) {
    std::string msg = e.msg.empty() ? std::string("malformed YAML") : e.msg;
    error(diag_code("yaml.syntax"), to_pos(e.mark), msg);
    return false;
  }
  out = builder.take_root();
  if (const Node* bad = unterminated_quote(out, text)) {
    error(diag_code("yaml.unterminated-string"), bad->pos, "quoted string is never closed",
          std::string("add the closing ") + text[bad->offset] + " where the text ends");
    return false;
  }
  check_duplicates(out, file, diags);
  return true;
}

}  // namespace kb::yaml
