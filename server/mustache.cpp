#include "mustache.h"

#include <cctype>
#include <stdexcept>

#include "markdown.h"

namespace kb::pages {

Data::Data(List items) : type_(type::list), items_(std::move(items)) {}
Data::Data(const Data&) = default;
Data::Data(Data&&) noexcept = default;
Data& Data::operator=(const Data&) = default;
Data& Data::operator=(Data&&) noexcept = default;
Data::~Data() = default;

const Data* Data::get(std::string_view key) const {
  for (const Member& m : members_) {
    if (m.key == key) return &m.value;
  }
  return nullptr;
}

void Data::set(std::string_view key, Data value) {
  if (type_ != type::object) return;
  for (Member& m : members_) {
    if (m.key == key) {
      m.value = std::move(value);
      return;
    }
  }
  members_.push_back(Member{std::string(key), std::move(value)});
}

struct Template::Node {
  enum class Kind { text, newline, variable, unescaped, section, inverted, ignored };
  Kind kind = Kind::text;
  std::string text;                // text, newline: the characters; tags: the name
  std::vector<std::string> names;  // a dotted name, split as kainjow splits it
  std::vector<Node> children;      // sections
  std::size_t position = 0;        // of the tag, for messages
};

namespace {

using Node = Template::Node;

// kainjow's trim: std::isspace from both ends.
std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// std::getline on '.': the pieces between dots, a last empty one dropped.
std::vector<std::string> split_dots(std::string_view name) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t dot = name.find('.'); dot != std::string_view::npos;
       dot = name.find('.', start)) {
    out.emplace_back(name.substr(start, dot - start));
    start = dot + 1;
  }
  if (start < name.size()) out.emplace_back(name.substr(start));
  return out;
}

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument(what);
}

// The tag at `contents` (its text between the delimiters, trimmed), as kainjow reads it.
Node tag_node(bool triple, std::string_view contents, std::size_t position) {
  Node n;
  n.position = position;
  if (triple) {
    n.kind = Node::Kind::unescaped;
    n.text = contents;
  } else if (contents.empty()) {
    n.kind = Node::Kind::variable;
  } else {
    switch (contents.front()) {
      case '#':
        n.kind = Node::Kind::section;
        break;
      case '^':
        n.kind = Node::Kind::inverted;
        break;
      case '&':
        n.kind = Node::Kind::unescaped;
        break;
      case '!':  // a comment
      case '>':  // a partial no file defines (the others are spliced in)
      case '/':
        n.kind = Node::Kind::ignored;
        break;
      default:
        n.kind = Node::Kind::variable;
    }
    n.text = n.kind == Node::Kind::variable ? contents : trim(contents.substr(1));
  }
  if (n.text != "." && n.text.find('.') != std::string::npos) {
    n.names = split_dots(n.text);
  }
  return n;
}

void parse(std::string_view in, Node& root) {
  std::vector<Node*> open{&root};
  std::string text;
  auto flush = [&] {
    if (text.empty()) return;
    Node n;
    n.text = std::move(text);
    open.back()->children.push_back(std::move(n));
    text.clear();
  };
  std::size_t pos = 0;
  while (pos < in.size()) {
    if (in.compare(pos, 2, "{{") != 0) {
      const std::size_t nl = in.compare(pos, 2, "\r\n") == 0      ? 2
                             : in[pos] == '\n' || in[pos] == '\r' ? 1
                                                                  : 0;
      if (nl == 0) {
        text += in[pos++];
        continue;
      }
      flush();
      Node n;
      n.kind = Node::Kind::newline;
      n.text = in.substr(pos, nl);
      open.back()->children.push_back(std::move(n));
      pos += nl;
      continue;
    }
    flush();
    const std::size_t start = pos;
    std::size_t contents = pos + 2;
    const bool triple = start != in.size() - 2 && in[contents] == '{';
    const std::string_view close = triple ? "}}}" : "}}";
    if (triple) ++contents;
    const std::size_t end = in.find(close, contents);
    if (end == std::string_view::npos) fail("Unclosed tag at " + std::to_string(start));
    const std::string_view tag = trim(in.substr(contents, end - contents));
    pos = end + close.size();
    if (!tag.empty() && tag.front() == '=') fail("set-delimiter tags are not supported");
    Node n = tag_node(triple, tag, start);
    if (!triple && !tag.empty() && tag.front() == '/') {
      if (open.size() == 1) {
        fail("Unopened section \"" + n.text + "\" at " + std::to_string(start));
      }
      if (open.back()->text != n.text) {
        fail("Unclosed section \"" + open.back()->text + "\" at " +
             std::to_string(open.back()->position));
      }
      open.pop_back();
      continue;
    }
    const bool section = n.kind == Node::Kind::section || n.kind == Node::Kind::inverted;
    open.back()->children.push_back(std::move(n));
    if (section) open.push_back(&open.back()->children.back());
  }
  flush();
  if (open.size() > 1) {
    fail("Unclosed section \"" + open[1]->text + "\" at " + std::to_string(open[1]->position));
  }
}

// One rendering: the output, where its current line starts, and whether a section tag
// stood on that line. kainjow keeps the line in a buffer and drops it at its end when a
// section tag stood on it and it holds nothing but spaces and tabs; the line here is the
// output's tail, cut off instead.
class Renderer {
 public:
  explicit Renderer(const Data& root) { stack_.push_back(&root); }

  std::string finish() {
    end_line({});
    return std::move(out_);
  }

  void walk(const std::vector<Node>& nodes) {
    for (const Node& n : nodes) {
      switch (n.kind) {
        case Node::Kind::text:
          out_ += n.text;
          break;
        case Node::Kind::newline:
          end_line(n.text);
          break;
        case Node::Kind::variable:
        case Node::Kind::unescaped:
          if (const Data* v = lookup(n); v != nullptr && v->is_string()) {
            if (n.kind == Node::Kind::variable) {
              out_ += escape_html(v->string_value());
            } else {
              out_ += v->string_value();
            }
          }
          break;
        case Node::Kind::section: {
          const Data* v = lookup(n);
          if (v != nullptr && !v->is_false() && !v->is_empty_list()) section(n, v);
          break;
        }
        case Node::Kind::inverted: {
          const Data* v = lookup(n);
          if (v == nullptr || v->is_false() || v->is_empty_list()) section(n, v);
          break;
        }
        case Node::Kind::ignored:
          break;
      }
    }
  }

 private:
  void end_line(std::string_view newline) {
    bool blank = section_tag_;
    for (std::size_t i = line_; blank && i < out_.size(); ++i) {
      blank = out_[i] == ' ' || out_[i] == '\t';
    }
    if (blank) {
      out_.resize(line_);
    } else {
      out_ += newline;
    }
    line_ = out_.size();
    section_tag_ = false;
  }

  void section(const Node& n, const Data* v) {
    if (v != nullptr && v->is_list() && !v->list_value().empty()) {
      for (const Data& item : v->list_value()) inside(n, &item);
    } else {
      inside(n, v);
    }
  }

  void inside(const Node& n, const Data* context) {
    section_tag_ = true;  // the opening tag
    if (context != nullptr) stack_.push_back(context);
    walk(n.children);
    if (context != nullptr) stack_.pop_back();
    section_tag_ = true;  // the closing tag
  }

  const Data* lookup(const Node& n) const {
    if (n.text == ".") return stack_.back();
    for (auto it = stack_.rbegin(); it != stack_.rend(); ++it) {
      if (n.names.empty()) {
        if (const Data* v = (*it)->get(n.text)) return v;
        continue;
      }
      const Data* v = *it;
      for (const auto& name : n.names) {
        if ((v = v->get(name)) == nullptr) break;
      }
      if (v != nullptr) return v;
    }
    return nullptr;
  }

  std::string out_;
  std::size_t line_ = 0;
  bool section_tag_ = false;
  std::vector<const Data*> stack_;  // innermost last
};

}  // namespace

Template::Template(std::string_view text) : root_(std::make_unique<Node>()) {
  parse(text, *root_);
}
Template::Template(Template&&) noexcept = default;
Template& Template::operator=(Template&&) noexcept = default;
Template::~Template() = default;

std::string Template::render(const Data& data) const {
  Renderer r(data);
  r.walk(root_->children);
  return r.finish();
}

}  // namespace kb::pages
