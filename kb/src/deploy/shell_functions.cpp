#include "deploy/shell_functions.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace kb::deploy {

namespace {

bool ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool ident_char(char c) {
  return ident_start(c) || (c >= '0' && c <= '9') || c == '-' || c == ':' || c == '.';
}

std::size_t indent_of(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t')) ++n;
  return n;
}

std::string_view trim_blank(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The function header a line is, with whether its `{` is on it; nullopt when it is none.
std::optional<std::pair<std::string, bool>> function_header(std::string_view line) {
  std::string_view t = trim_blank(line);
  bool keyword = false;
  if (t.starts_with("function ") || t.starts_with("function\t")) {
    keyword = true;
    t = trim_blank(t.substr(8));
  }
  std::size_t n = 0;
  if (t.empty() || !ident_start(t[0])) return std::nullopt;
  while (n < t.size() && ident_char(t[n])) ++n;
  std::string name(t.substr(0, n));
  std::string_view rest = trim_blank(t.substr(n));
  if (rest.starts_with("()")) {
    rest = trim_blank(rest.substr(2));
  } else if (!keyword) {
    return std::nullopt;
  }
  if (rest.empty()) return std::make_pair(std::move(name), false);
  if (rest == "{" || (rest.starts_with("{") && trim_blank(rest.substr(1)).starts_with("#")))
    return std::make_pair(std::move(name), true);
  return std::nullopt;  // a one-line function (`f() { a; }`) is read where it stands
}

}  // namespace

// The functions `text` defines, outermost only, in order.
std::vector<Function> find_functions(std::string_view text) {
  std::vector<Function> out;
  std::vector<std::pair<std::size_t, std::size_t>> lines;  // [start, end) without '\n'
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(at, nl);
    at = nl + 1;
  }
  // Lines looked at while searching for closing braces, at most a few times the text's:
  // a script of unclosed headers must not cost a scan to its end per header.
  std::size_t scanned = 0;
  const std::size_t max_scanned = 4 * lines.size() + 64;
  for (std::size_t li = 0; li < lines.size() && scanned < max_scanned; ++li) {
    const std::string_view line = text.substr(lines[li].first, lines[li].second - lines[li].first);
    auto header = function_header(line);
    if (!header) continue;
    std::size_t open = li;
    if (!header->second) {
      // `{` alone on the next non-blank line.
      std::size_t k = li + 1;
      while (k < lines.size() &&
             trim_blank(text.substr(lines[k].first, lines[k].second - lines[k].first)).empty())
        ++k;
      if (k >= lines.size() ||
          trim_blank(text.substr(lines[k].first, lines[k].second - lines[k].first)) != "{")
        continue;
      open = k;
    }
    const std::size_t depth = indent_of(line);
    std::size_t close = open + 1;
    for (; close < lines.size() && scanned < max_scanned; ++close, ++scanned) {
      const std::string_view l =
          text.substr(lines[close].first, lines[close].second - lines[close].first);
      if (trim_blank(l) == "}" && indent_of(l) <= depth) break;
    }
    if (close >= lines.size()) continue;
    Function f;
    f.name = std::move(header->first);
    f.begin = lines[li].first;
    f.body = std::min(lines[open].second + 1, text.size());
    f.body_end = lines[close].first;
    f.end = std::min(lines[close].second + 1, text.size());
    out.push_back(std::move(f));
    li = close;
  }
  return out;
}

// `text` with the bytes of `fns` (their headers, bodies and closing lines) made blanks, so
// that what is left keeps every position.
std::string without(std::string_view text, const std::vector<Function>& fns, std::size_t from,
                    std::size_t to) {
  std::string out(text.substr(from, to - from));
  for (const Function& f : fns) {
    if (f.begin < from || f.end > to) continue;
    for (std::size_t k = f.begin; k < f.end; ++k) {
      if (out[k - from] != '\n') out[k - from] = ' ';
    }
  }
  return out;
}

}  // namespace kb::deploy
