#include "deploy/shell_words.h"

#include <algorithm>

#include "deploy/budget.h"

namespace kb::deploy {
namespace {

bool blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
bool separator(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')';
}
bool name_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool name_char(char c) {
  return name_start(c) || (c >= '0' && c <= '9');
}
bool digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

LineIndex::LineIndex(std::string_view text) : size_(text.size()) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts_.push_back(i + 1);
  }
}

Pos LineIndex::at(std::size_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const std::size_t line = static_cast<std::size_t>(it - starts_.begin());
  return Pos{static_cast<int>(line), static_cast<int>(offset - starts_[line - 1] + 1)};
}

std::size_t LineIndex::start_of(int line) const {
  if (line < 1) return 0;
  const auto i = static_cast<std::size_t>(line - 1);
  return i < starts_.size() ? starts_[i] : size_;
}

bool is_assignment(std::string_view word) {
  auto eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0 || !name_start(word[0])) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(eq), name_char);
}

ShellLexer::ShellLexer(std::string_view text, Locator where, Budget* budget)
    : text_(text),
      where_(where),
      budget_(budget),
      search_from_(where.base),
      // A string inside a string is at most a few times longer in the source (escapes);
      // searching no further keeps locating words linear in the input.
      search_end_(where.base + 8 * text.size() + 1024) {}

Pos ShellLexer::here() const {
  return where_.exact && where_.index ? where_.index->at(where_.base + i_) : where_.fallback;
}

bool ShellLexer::substitute(const std::string& value, std::string& out) {
  if (budget_ && !budget_->spend(value.size(), here(), "a shell variable's value")) return false;
  out += value;
  return true;
}

Pos ShellLexer::locate(std::size_t offset, const std::string& word, Pos* end) {
  if (where_.exact && where_.index) {
    return where_.index->at(where_.base + offset);
  }
  if (where_.index && !word.empty()) {
    // The word's first characters, searched for from where the previous word was found.
    const std::string needle = word.substr(0, std::min<std::size_t>(word.size(), 24));
    const std::size_t until = std::min(search_end_, where_.source.size());
    auto at = search_from_ < until ? where_.source.substr(0, until).find(needle, search_from_)
                                   : std::string_view::npos;
    if (at != std::string_view::npos) {
      search_from_ = at + 1;
      if (end && where_.source.compare(at, word.size(), word) == 0) {
        *end = where_.index->at(at + word.size());
      }
      return where_.index->at(at);
    }
  }
  return where_.fallback;
}

void ShellLexer::expand(const Vars& vars, std::string& out, bool quoted) {
  // text_[i_] == '$'
  ++i_;
  if (i_ >= text_.size()) {
    out += '$';
    return;
  }
  const char c = text_[i_];
  if (c == '{') {
    std::size_t close = text_.find('}', i_);
    if (close == std::string_view::npos) {
      out += '$';
      return;
    }
    std::string_view inner = text_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    std::size_t n = 0;
    while (n < inner.size() && name_char(inner[n])) ++n;
    const std::string name(inner.substr(0, n));
    std::string_view op = inner.substr(n);
    auto it = vars.find(name);
    // The default of ${X:-word} is a word of its own: its quotes go, its variables expand
    // (`${MODEL:-"Qwen/Qwen3-8B"}`, `${ARGS:-"$HOME/a.yaml"}`).
    auto word_of = [&](std::string_view w) {
      ShellLexer sub(w, Locator{nullptr, {}, 0, false, where_.fallback}, budget_);
      std::string joined;
      if (auto cmd = sub.next(vars)) {
        for (const Word& x : cmd->words) joined += (joined.empty() ? "" : " ") + x.text;
      }
      return joined;
    };
    if (it != vars.end() && !(op.starts_with(":-") && it->second.empty())) {
      if (!substitute(it->second, out)) out += "${" + std::string(inner) + "}";
    } else if (op.starts_with(":-") || op.starts_with(":=")) {
      out += word_of(op.substr(2));
    } else if (!op.empty() && (op[0] == '-' || op[0] == '=')) {
      out += word_of(op.substr(1));
    } else {
      out += "${" + std::string(inner) + "}";
    }
    return;
  }
  if (c == '(') {
    // Command substitution: kept as written.
    std::size_t start = i_ - 1;
    int depth = 0;
    while (i_ < text_.size()) {
      if (text_[i_] == '(') ++depth;
      if (text_[i_] == ')' && --depth == 0) {
        ++i_;
        break;
      }
      ++i_;
    }
    out += std::string(text_.substr(start, i_ - start));
    return;
  }
  if (name_start(c)) {
    std::size_t start = i_;
    while (i_ < text_.size() && name_char(text_[i_])) ++i_;
    const std::string name(text_.substr(start, i_ - start));
    auto it = vars.find(name);
    if (it == vars.end() || !substitute(it->second, out)) out += "$" + name;
    return;
  }
  if (!quoted && c == '\'') {
    // $'...': ANSI-C quoting, the common escapes only.
    ++i_;
    while (i_ < text_.size() && text_[i_] != '\'') {
      if (text_[i_] == '\\' && i_ + 1 < text_.size()) {
        const char e = text_[++i_];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      } else {
        out += text_[i_];
      }
      ++i_;
    }
    if (i_ < text_.size()) ++i_;
    return;
  }
  if (digit(c)) {
    // A positional parameter: set while a function the script defines is read for a call.
    ++i_;
    auto it = vars.find(std::string(1, c));
    if (it == vars.end() || !substitute(it->second, out)) out += std::string("$") + c;
    return;
  }
  out += '$';
  if (c == '@' || c == '*' || c == '#' || c == '?' || c == '$' || c == '!') {
    out += c;
    ++i_;
  }
}

bool ShellLexer::word(const Vars& vars, Word& w) {
  const std::size_t start = i_;
  std::string out;
  while (i_ < text_.size()) {
    const char c = text_[i_];
    if (c == '(' && !out.empty() && out.back() == '=' && is_assignment(out + "x")) {
      // An array (`files=("proxy.py")`): one word, kept as written; its elements are no
      // command.
      const std::size_t from = i_;
      int depth = 0;
      char quote = 0;
      while (i_ < text_.size()) {
        const char d = text_[i_];
        if (quote) {
          if (d == quote) quote = 0;
          if (d == '\\' && quote == '"') ++i_;
        } else if (d == '\'' || d == '"') {
          quote = d;
        } else if (d == '\\') {
          ++i_;
        } else if (d == '(') {
          ++depth;
        } else if (d == ')' && --depth == 0) {
          ++i_;
          break;
        }
        ++i_;
      }
      i_ = std::min(i_, text_.size());
      out += std::string(text_.substr(from, i_ - from));
      continue;
    }
    if (blank(c) || c == '\n' || separator(c) || c == '<' || c == '>') break;
    if (c == '\\') {
      if (i_ + 1 < text_.size() && text_[i_ + 1] != '\n') out += text_[i_ + 1];
      i_ += 2;
    } else if (c == '\'') {
      quoted_ = true;
      std::size_t close = text_.find('\'', i_ + 1);
      if (close == std::string_view::npos) close = text_.size();
      out += std::string(text_.substr(i_ + 1, close - i_ - 1));
      i_ = std::min(close + 1, text_.size());
    } else if (c == '"') {
      quoted_ = true;
      ++i_;
      while (i_ < text_.size() && text_[i_] != '"') {
        const char d = text_[i_];
        if (d == '\\' && i_ + 1 < text_.size()) {
          const char e = text_[i_ + 1];
          if (e == '\n') {
          } else if (e == '$' || e == '`' || e == '"' || e == '\\') {
            out += e;
          } else {
            out += d;
            out += e;
          }
          i_ += 2;
        } else if (d == '$') {
          expand(vars, out, true);
        } else {
          out += d;
          ++i_;
        }
      }
      if (i_ < text_.size()) ++i_;
    } else if (c == '$') {
      // An unquoted expansion is split into words at blanks, as sh does (`$CMD &`); not in
      // an assignment or $'...'.
      const std::size_t from = out.size();
      const bool assignment =
          is_assignment(out + "x") || (i_ + 1 < text_.size() && text_[i_ + 1] == '\'');
      if (!assignment) unquoted_ = true;
      expand(vars, out, false);
      if (!assignment && out.find_first_of(" \t\n", from) != std::string::npos) split_ = true;
    } else if (c == '`') {
      std::size_t close = text_.find('`', i_ + 1);
      if (close == std::string_view::npos) close = text_.size() - 1;
      out += std::string(text_.substr(i_, close + 1 - i_));
      i_ = close + 1;
    } else {
      out += c;
      ++i_;
    }
  }
  if (i_ == start) return false;
  Pos end;
  // A word a variable made (`$MODEL`) is where it is written: its value's text may be
  // found further on (another container's environment), which is not where it came from.
  const std::string_view raw = text_.substr(start, i_ - start);
  const bool expanded = raw.find('$') != std::string_view::npos;
  w.pos = locate(start, expanded ? std::string(raw) : out, &end);
  w.end = where_.exact && where_.index ? where_.index->at(where_.base + i_) : end;
  w.text = std::move(out);
  return true;
}

void ShellLexer::skip_heredocs() {
  for (const std::string& term : heredocs_) {
    while (i_ < text_.size()) {
      std::size_t nl = text_.find('\n', i_);
      std::string_view line =
          text_.substr(i_, nl == std::string_view::npos ? std::string_view::npos : nl - i_);
      i_ = nl == std::string_view::npos ? text_.size() : nl + 1;
      while (!line.empty() && (line.front() == '\t')) line.remove_prefix(1);
      while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
      if (line == term) break;
    }
  }
  heredocs_.clear();
}

std::optional<Command> ShellLexer::next(const Vars& vars) {
  Command cmd;
  while (i_ < text_.size()) {
    const char c = text_[i_];
    if (blank(c)) {
      ++i_;
    } else if (c == '\\' && i_ + 1 < text_.size() && text_[i_ + 1] == '\n') {
      i_ += 2;
    } else if (c == '#') {
      while (i_ < text_.size() && text_[i_] != '\n') ++i_;
    } else if (c == '\n') {
      ++i_;
      if (!heredocs_.empty()) skip_heredocs();
      if (!cmd.words.empty()) return cmd;
    } else if (c == '<' || c == '>' ||
               (c == '&' && i_ + 1 < text_.size() && text_[i_ + 1] == '>') || (digit(c) && [&] {
                 std::size_t j = i_;
                 while (j < text_.size() && digit(text_[j])) ++j;
                 return j < text_.size() && (text_[j] == '<' || text_[j] == '>');
               }())) {
      // A redirection and its target are dropped; a here-document's body is skipped.
      while (i_ < text_.size() && digit(text_[i_])) ++i_;
      const std::size_t op = i_;
      while (i_ < text_.size() && (text_[i_] == '<' || text_[i_] == '>' || text_[i_] == '&' ||
                                   text_[i_] == '|' || text_[i_] == '-')) {
        ++i_;
      }
      const std::string_view ops = text_.substr(op, i_ - op);
      const bool heredoc = ops.starts_with("<<") && !ops.starts_with("<<<");
      if (ops.size() >= 2 && ops.back() == '-' && ops[ops.size() - 2] == '&') continue;  // >&-
      while (i_ < text_.size() && blank(text_[i_])) ++i_;
      if (ops.find('&') != std::string_view::npos && i_ < text_.size() && digit(text_[i_]) &&
          ops != "&>" && ops != "&>>") {
        while (i_ < text_.size() && digit(text_[i_])) ++i_;  // 2>&1
        continue;
      }
      Word target;
      if (word(vars, target) && heredoc) heredocs_.push_back(target.text);
    } else if (separator(c)) {
      while (i_ < text_.size() && separator(text_[i_])) ++i_;
      if (!cmd.words.empty()) return cmd;
    } else {
      Word w;
      split_ = unquoted_ = quoted_ = false;
      if (!word(vars, w)) {
        ++i_;
      } else if (w.text.empty() && unquoted_ && !quoted_) {
        // An unquoted expansion to nothing is no word (`a $EMPTY b`).
      } else if (!split_) {
        cmd.words.push_back(std::move(w));
      } else {
        // Split at blanks outside what kb keeps as written because the script computes it
        // when it runs (`$(git rev-parse --show-toplevel)`, backquotes): one word each.
        std::string part;
        int depth = 0;
        bool backquote = false;
        auto flush = [&] {
          if (!part.empty()) cmd.words.push_back(Word{std::move(part), w.pos, w.end});
          part.clear();
        };
        for (std::size_t k = 0; k < w.text.size(); ++k) {
          const char ch = w.text[k];
          if (ch == '`') backquote = !backquote;
          if (ch == '$' && k + 1 < w.text.size() && w.text[k + 1] == '(') ++depth;
          if (ch == ')' && depth > 0) --depth;
          if ((ch == ' ' || ch == '\t' || ch == '\n') && depth == 0 && !backquote) {
            flush();
          } else {
            part += ch;
          }
        }
        flush();
      }
    }
  }
  if (!cmd.words.empty()) return cmd;
  return std::nullopt;
}

std::vector<Word> split_words(std::string_view text, Locator where) {
  ShellLexer lexer(text, where);
  std::vector<Word> out;
  while (auto cmd = lexer.next({})) {
    for (auto& w : cmd->words) out.push_back(std::move(w));
  }
  return out;
}

}  // namespace kb::deploy
