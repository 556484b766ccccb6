#include "yaml/yaml_tree.h"

#include <yaml.h>

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "kb/diagnostic_codes.h"
#include "yaml/yaml_checks.h"

namespace kb::yaml {
namespace {

// Where an event starts: 0-based line and column, and its byte offset in the text.
struct Mark {
  int line = 0;
  int column = 0;
  std::size_t pos = 0;
};

Pos to_pos(const Mark& m) {
  return Pos{m.line + 1, m.column + 1};
}

struct LimitHit {
  std::string code;
  std::string message;
  Pos pos;
};

// Builds the tree from parser events, counting nodes and scalar bytes (aliases expanded,
// since each alias is a copy) and depth.
class TreeBuilder {
 public:
  TreeBuilder(const Limits& limits, Allowance& left) : limits_(limits), left_(left) {}

  void on_null(const Mark& mark, const std::string& anchor) {
    Node n;
    n.type = Node::Type::null;
    place(n, mark);
    add(std::move(n), anchor);
  }
  void on_alias(const Mark& mark, const std::string& anchor) {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) {
      Node n;
      place(n, mark);
      add(std::move(n), {});
      return;
    }
    count(it->second.weight, mark);
    count_bytes(it->second.bytes, mark);
    Node copy = it->second.node;
    copy.pos = to_pos(mark);
    copy.offset = mark.pos;
    copy.verbatim = false;  // its text is at the anchor, not here
    add(std::move(copy), {}, it->second.weight, false, it->second.bytes);
  }
  void on_scalar(const Mark& mark, bool plain, bool verbatim, const std::string& anchor,
                 std::string value) {
    Node n;
    n.type = Node::Type::scalar;
    n.plain = plain;
    n.verbatim = verbatim;
    const std::size_t bytes = value.size();
    count_bytes(bytes, mark);
    n.value = std::move(value);
    place(n, mark);
    add(std::move(n), anchor, 1, false, bytes);
  }
  void on_seq_start(const Mark& mark, const std::string& anchor) {
    open(Node::Type::seq, mark, anchor);
  }
  void on_map_start(const Mark& mark, const std::string& anchor) {
    open(Node::Type::map, mark, anchor);
  }
  void on_end() { close(); }

  bool has_root() const { return has_root_; }
  Node take_root() { return std::move(root_); }

 private:
  struct Frame {
    Node node;
    std::string anchor;
    std::size_t weight = 1;
    std::size_t bytes = 0;  ///< scalar bytes inside, aliases expanded
    bool have_key = false;
    Node key;
  };
  struct Anchored {
    Node node;
    std::size_t weight;
    std::size_t bytes;
  };

  void place(Node& n, const Mark& mark) {
    n.pos = to_pos(mark);
    n.offset = mark.pos;
  }
  void count(std::size_t n, const Mark& mark) {
    if (n > left_.nodes) {
      throw LimitHit{diag_code("limits.nodes"),
                     "document expands to more than " + std::to_string(limits_.max_nodes) +
                         " nodes (an alias/anchor expansion bomb?)",
                     to_pos(mark)};
    }
    left_.nodes -= n;
  }
  void count_bytes(std::size_t n, const Mark& mark) {
    if (n > left_.bytes) {
      throw LimitHit{diag_code("limits.expansion"),
                     "the text expands to more bytes than its budget (aliases copy what they "
                     "name): " +
                         std::to_string(limits_.expansion_factor) + "x the file's size, at least " +
                         std::to_string(limits_.min_expansion_bytes),
                     to_pos(mark)};
    }
    left_.bytes -= n;
  }
  void open(Node::Type t, const Mark& mark, const std::string& anchor) {
    count(1, mark);
    if (static_cast<int>(stack_.size()) >= limits_.max_depth) {
      throw LimitHit{
          diag_code("limits.depth"),
          "collections nested deeper than " + std::to_string(limits_.max_depth) + " levels",
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
    add(std::move(f.node), f.anchor, f.weight, true, f.bytes);
  }
  void add(Node n, const std::string& anchor, std::size_t weight = 1, bool counted = false,
           std::size_t bytes = 0) {
    if (!counted && weight == 1) count(1, Mark{});
    if (!anchor.empty()) anchors_[anchor] = Anchored{n, weight, bytes};
    if (stack_.empty()) {
      root_ = std::move(n);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    top.weight += weight;
    top.bytes += bytes;
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
  Allowance& left_;
  std::vector<Frame> stack_;
  std::unordered_map<std::string, Anchored> anchors_;
  Node root_;
  bool has_root_ = false;
};

// libyaml counts characters; nodes keep byte offsets (in-place repair edits bytes) and
// columns in bytes, as before. Maps a character index to its byte offset.
class Offsets {
 public:
  explicit Offsets(std::string_view text) : size_(text.size()), last_line_(last_line(text)) {
    bool ascii = true;
    for (unsigned char c : text) ascii = ascii && c < 0x80;
    if (ascii) return;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts_.push_back(i);
    }
    starts_.push_back(text.size());
  }
  std::size_t byte(std::size_t index) const {
    if (starts_.empty()) return index;
    return index < starts_.size() ? starts_[index] : starts_.back();
  }
  Mark mark(const yaml_mark_t& m) const {
    Mark out;
    out.line = static_cast<int>(m.line);
    out.pos = byte(m.index);
    out.column = static_cast<int>(out.pos - byte(m.index - std::min(m.index, m.column)));
    // At the end of a text without a final newline libyaml moves its mark to a line that
    // does not exist; a diagnostic points at the end of the last line instead.
    if (out.pos >= size_ && out.line > last_line_.line) {
      out.line = last_line_.line;
      out.column = last_line_.column;
    }
    return out;
  }

 private:
  static Mark last_line(std::string_view text) {
    Mark m;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      // Line breaks as libyaml counts them: `\n`, `\r\n`, a lone `\r`.
      if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
        ++m.line;
        m.column = 0;
      } else if (c == '\r') {
        continue;
      } else {
        ++m.column;  // in bytes, as the marks' columns are
      }
    }
    return m;
  }

  std::size_t size_;
  Mark last_line_;                   ///< where the text ends, 0-based line and column
  std::vector<std::size_t> starts_;  ///< empty: ASCII text, indexes are offsets
};

// YAML 1.1/1.2 core nulls, written plainly and untagged: what yaml-cpp 0.7 reported as
// null, so records read the same.
bool is_null_scalar(const yaml_event_t& e) {
  if (!e.data.scalar.plain_implicit || e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
  std::string_view v(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

// Whether scalar `e`, starting at byte `at` of `text`, is its value byte for byte on one
// line: plain, or between quotes with no escape, so a byte of the value has a column.
bool verbatim_scalar(const yaml_event_t& e, std::string_view text, std::size_t at) {
  const std::string_view v(reinterpret_cast<const char*>(e.data.scalar.value),
                           e.data.scalar.length);
  if (v.find('\n') != std::string_view::npos || at > text.size()) return false;
  const std::string_view from = text.substr(at);
  switch (e.data.scalar.style) {
    case YAML_PLAIN_SCALAR_STYLE:
      return e.data.scalar.plain_implicit && from.starts_with(v);
    case YAML_SINGLE_QUOTED_SCALAR_STYLE:
    case YAML_DOUBLE_QUOTED_SCALAR_STYLE: {
      const char q = e.data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ? '\'' : '"';
      return from.size() >= v.size() + 2 && from[0] == q && from.substr(1, v.size()) == v &&
             from[v.size() + 1] == q;
    }
    default:
      return false;
  }
}

// The 1-based line and column (in bytes) of byte `offset` of `text`.
Pos byte_pos(std::string_view text, std::size_t offset) {
  Pos p{1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else {
      ++p.column;
    }
  }
  return p;
}

std::string anchor_of(const yaml_char_t* anchor) {
  return anchor ? std::string(reinterpret_cast<const char*>(anchor)) : std::string();
}

// Owns a libyaml parser over `text`.
class Parser {
 public:
  explicit Parser(std::string_view text) {
    yaml_parser_initialize(&p_);
    yaml_parser_set_input_string(&p_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~Parser() { yaml_parser_delete(&p_); }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;
  /// The next event into `e` (which the caller deletes); false on a syntax error.
  bool next(yaml_event_t& e) { return yaml_parser_parse(&p_, &e) != 0; }
  const yaml_parser_t& state() const { return p_; }

 private:
  yaml_parser_t p_;
};

// Deletes an event when it goes out of scope.
struct EventGuard {
  yaml_event_t& e;
  ~EventGuard() { yaml_event_delete(&e); }
};

}  // namespace

std::size_t expansion_budget(const Limits& limits, std::size_t text_bytes) {
  return std::max(limits.min_expansion_bytes, limits.expansion_factor * text_bytes);
}

Allowance allowance(const Limits& limits, std::size_t text_bytes) {
  return Allowance{limits.max_nodes, expansion_budget(limits, text_bytes)};
}

bool parse(std::string_view text, const std::string& file, const Limits& limits, Node& out,
           std::vector<Diagnostic>& diags) {
  Allowance left = allowance(limits, text.size());
  return parse(text, file, limits, out, diags, left);
}

bool parse(std::string_view text, const std::string& file, const Limits& limits, Node& out,
           std::vector<Diagnostic>& diags, Allowance& left) {
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
  const Offsets offsets(text);
  Parser parser(text);
  TreeBuilder builder(limits, left);
  int documents = 0;
  try {
    for (bool done = false; !done;) {
      yaml_event_t e;
      if (!parser.next(e)) {
        const yaml_parser_t& st = parser.state();
        const std::string problem = st.problem ? st.problem : "malformed YAML";
        const std::string context = st.context ? st.context : "";
        if (context == "while scanning a quoted scalar" &&
            problem.find("end of stream") != std::string::npos) {
          const Mark at = offsets.mark(st.context_mark);
          error(diag_code("yaml.unterminated-string"), to_pos(at), "quoted string is never closed",
                std::string("add the closing ") + text[std::min(at.pos, text.size() - 1)] +
                    " where the text ends");
          return false;
        }
        // A reader error (a character YAML does not allow) has a byte offset, no mark.
        const Pos at = st.error == YAML_READER_ERROR
                           ? byte_pos(text, std::min(st.problem_offset, text.size()))
                           : to_pos(offsets.mark(st.problem_mark));
        error(diag_code("yaml.syntax"), at,
              context.empty() ? problem : problem + " (" + context + ")",
              st.error == YAML_READER_ERROR
                  ? "record files are UTF-8 text without control characters"
                  : std::string());
        return false;
      }
      EventGuard guard{e};
      const Mark mark = offsets.mark(e.start_mark);
      switch (e.type) {
        case YAML_DOCUMENT_START_EVENT:
          if (++documents > 1) {
            error(diag_code("yaml.multiple-documents"), to_pos(mark),
                  "the file holds more than one YAML document",
                  "put one record per file; remove the `---` separator");
            return false;
          }
          break;
        case YAML_SCALAR_EVENT:
          if (is_null_scalar(e)) {
            builder.on_null(mark, anchor_of(e.data.scalar.anchor));
          } else {
            builder.on_scalar(
                mark,
                e.data.scalar.plain_implicit && e.data.scalar.style == YAML_PLAIN_SCALAR_STYLE,
                verbatim_scalar(e, text, mark.pos), anchor_of(e.data.scalar.anchor),
                std::string(reinterpret_cast<const char*>(e.data.scalar.value),
                            e.data.scalar.length));
          }
          break;
        case YAML_ALIAS_EVENT:
          builder.on_alias(mark, anchor_of(e.data.alias.anchor));
          break;
        case YAML_SEQUENCE_START_EVENT:
          builder.on_seq_start(mark, anchor_of(e.data.sequence_start.anchor));
          break;
        case YAML_MAPPING_START_EVENT:
          builder.on_map_start(mark, anchor_of(e.data.mapping_start.anchor));
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          builder.on_end();
          break;
        case YAML_STREAM_END_EVENT:
          done = true;
          break;
        default:
          break;
      }
    }
  } catch (const LimitHit& hit) {
    error(hit.code, hit.pos, hit.message, "records are small; this file is probably hostile");
    return false;
  }
  if (!builder.has_root()) {
    error(diag_code("yaml.empty"), Pos{1, 1}, "the file holds no YAML document",
          "a record is a mapping such as `title: ...`");
    return false;
  }
  out = builder.take_root();
  if (const Node* bad = unterminated_quote(out, text)) {
    error(diag_code("yaml.unterminated-string"), bad->pos, "quoted string is never closed",
          std::string("add the closing ") + text[bad->offset] + " where the text ends");
    return false;
  }
  check_duplicates(out, file, diags, limits.later_duplicate_wins);
  return true;
}

}  // namespace kb::yaml
