#include "route_pattern.h"

namespace kb::http {
namespace {

using Node = RoutePattern::Node;
using Seq = RoutePattern::Seq;

class Parser {
 public:
  explicit Parser(std::string_view p) : p_(p) {}

  std::size_t groups = 0;

  std::optional<std::vector<Seq>> whole() {
    auto alts = alternatives();
    if (!alts || pos_ != p_.size()) return std::nullopt;
    return alts;
  }

 private:
  std::optional<std::vector<Seq>> alternatives() {
    std::vector<Seq> out;
    for (;;) {
      auto seq = sequence();
      if (!seq) return std::nullopt;
      out.push_back(std::move(*seq));
      if (pos_ < p_.size() && p_[pos_] == '|') {
        ++pos_;
        continue;
      }
      return out;
    }
  }

  std::optional<Seq> sequence() {
    Seq out;
    while (pos_ < p_.size() && p_[pos_] != '|' && p_[pos_] != ')') {
      auto node = atom();
      if (!node) return std::nullopt;
      if (pos_ < p_.size() && (p_[pos_] == '?' || p_[pos_] == '*' || p_[pos_] == '+')) {
        node->quantifier = p_[pos_++];
        const bool one_char = node->kind == Node::Kind::literal || node->kind == Node::Kind::any ||
                              node->kind == Node::Kind::not_slash;
        if (node->kind == Node::Kind::not_followed_by || node->kind == Node::Kind::end ||
            (node->quantifier != '?' && !one_char))
          return std::nullopt;
        // Lazy quantifiers and a second quantifier are outside the subset.
        if (pos_ < p_.size() && std::string_view("?*+{").find(p_[pos_]) != std::string_view::npos)
          return std::nullopt;
      } else if (pos_ < p_.size() && p_[pos_] == '{') {
        return std::nullopt;
      }
      out.push_back(std::move(*node));
    }
    return out;
  }

  std::optional<Node> atom() {
    Node n;
    const char c = p_[pos_++];
    switch (c) {
      case '\\':
        // Only escaped punctuation is a plain character (\d, \w, \b ... are not).
        if (pos_ >= p_.size() ||
            std::string_view(".()[]{}?*+|^$\\/-").find(p_[pos_]) == std::string_view::npos)
          return std::nullopt;
        n.ch = p_[pos_++];
        return n;
      case '.':
        n.kind = Node::Kind::any;
        return n;
      case '[':
        if (p_.substr(pos_, 3) != "^/]") return std::nullopt;
        pos_ += 3;
        n.kind = Node::Kind::not_slash;
        return n;
      case '$':
        n.kind = Node::Kind::end;
        return n;
      case '(': {
        n.kind = Node::Kind::group;
        if (p_.substr(pos_, 2) == "?:") {
          pos_ += 2;
        } else if (p_.substr(pos_, 2) == "?!") {
          pos_ += 2;
          n.kind = Node::Kind::not_followed_by;
        } else if (pos_ < p_.size() && p_[pos_] == '?') {
          return std::nullopt;
        } else {
          n.capture = ++groups;  // numbered as they open, as ECMAScript does
        }
        auto alts = alternatives();
        if (!alts || pos_ >= p_.size() || p_[pos_] != ')') return std::nullopt;
        ++pos_;
        n.alternatives = std::move(*alts);
        return n;
      }
      case '^':
      case ']':
      case '{':
      case '}':
      case '?':
      case '*':
      case '+':
        return std::nullopt;
      default:
        n.ch = c;
        return n;
    }
  }

  std::string_view p_;
  std::size_t pos_ = 0;
};

// What is left to match after a node: the rest of its sequence, then what follows the
// group that sequence belongs to. `seq == nullptr` accepts wherever it is reached (the
// end of a lookahead's alternative); a null frame accepts only at the end of the path.
// A frame that ends a capturing group records where it began.
struct Frame {
  const Seq* seq;
  std::size_t i;
  const Frame* next;
  std::size_t capture = 0;  ///< the group this frame's sequence is an alternative of
  std::size_t start = 0;    ///< where that group began
};

struct Span {
  std::size_t begin = 0, end = 0;
  bool set = false;
};

class Matcher {
 public:
  Matcher(std::string_view s, std::size_t groups) : s_(s), spans_(groups + 1) {}

  const std::vector<Span>& spans() const { return spans_; }

  bool rest(const Frame* f, std::size_t pos) {
    if (f == nullptr) return pos == s_.size();
    if (f->seq == nullptr) return true;
    if (f->i == f->seq->size()) {
      if (f->capture == 0) return rest(f->next, pos);
      // The group's text is set while what follows is tried, and put back if that fails.
      const Span before = spans_[f->capture];
      spans_[f->capture] = {f->start, pos, true};
      if (rest(f->next, pos)) return true;
      spans_[f->capture] = before;
      return false;
    }
    const Node& n = (*f->seq)[f->i];
    const Frame after{f->seq, f->i + 1, f->next, f->capture, f->start};
    switch (n.quantifier) {
      case '?':
        return once(n, pos, &after) || rest(&after, pos);
      case '*':
      case '+': {
        // One character a time: the longest run first, then shorter (greedy).
        std::size_t run = 0;
        while (pos + run < s_.size() && test(n, s_[pos + run])) ++run;
        const std::size_t least = n.quantifier == '+' ? 1 : 0;
        for (std::size_t k = run + 1; k-- > least;) {
          if (rest(&after, pos + k)) return true;
        }
        return false;
      }
      default:
        return once(n, pos, &after);
    }
  }

 private:
  static bool test(const Node& n, char c) {
    switch (n.kind) {
      case Node::Kind::literal:
        return c == n.ch;
      case Node::Kind::any:
        return c != '\n' && c != '\r';  // ECMAScript's '.'
      case Node::Kind::not_slash:
        return c != '/';
      default:
        return false;
    }
  }

  bool once(const Node& n, std::size_t pos, const Frame* after) {
    switch (n.kind) {
      case Node::Kind::end:
        return pos == s_.size() && rest(after, pos);
      case Node::Kind::group:
        for (const Seq& alt : n.alternatives) {
          const Frame inside{&alt, 0, after, n.capture, pos};
          if (rest(&inside, pos)) return true;
        }
        return false;
      case Node::Kind::not_followed_by: {
        // Groups inside a negative lookahead capture nothing (the subset has none).
        const Frame accept{nullptr, 0, nullptr};
        const std::vector<Span> kept = spans_;
        for (const Seq& alt : n.alternatives) {
          const Frame inside{&alt, 0, &accept};
          const bool seen = rest(&inside, pos);
          spans_ = kept;
          if (seen) return false;
        }
        return rest(after, pos);
      }
      default:
        return pos < s_.size() && test(n, s_[pos]) && rest(after, pos + 1);
    }
  }

  std::string_view s_;
  std::vector<Span> spans_;
};

}  // namespace

std::optional<RoutePattern> RoutePattern::compile(std::string_view pattern) {
  Parser parser(pattern);
  auto alts = parser.whole();
  if (!alts) return std::nullopt;
  RoutePattern out;
  out.alternatives_ = std::move(*alts);
  out.groups_ = parser.groups;
  return out;
}

bool RoutePattern::match(std::string_view path, std::vector<std::string_view>* captures) const {
  Matcher m(path, groups_);
  for (const Seq& alt : alternatives_) {
    const Frame top{&alt, 0, nullptr};
    if (!m.rest(&top, 0)) continue;
    if (captures) {
      captures->assign(1, path);
      for (std::size_t g = 1; g <= groups_; ++g) {
        const Span& s = m.spans()[g];
        captures->push_back(s.set ? path.substr(s.begin, s.end - s.begin) : std::string_view());
      }
    }
    return true;
  }
  return false;
}

}  // namespace kb::http
