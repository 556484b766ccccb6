#pragma once

// Fuzz target body: record Markdown to HTML, then checks that only md4c's own tags came
// out, that every link or image target left in the HTML is one is_safe_link accepts, and
// that nothing after the input changes the output.

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "markdown.h"

namespace kb::fuzz {

namespace detail {

inline bool allowed_tag(std::string_view name) {
  static constexpr std::string_view kTags[] = {
      "p",  "a",     "img",   "em",    "strong", "code", "pre", "ul",         "ol",
      "li", "h1",    "h2",    "h3",    "h4",     "h5",   "h6",  "blockquote", "hr",
      "br", "table", "thead", "tbody", "tr",     "th",   "td",  "del"};
  return std::find(std::begin(kTags), std::end(kTags), name) != std::end(kTags);
}

// md4c writes attribute values with these entities only.
inline std::string unescape(std::string_view v) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&quot;", '"'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&#39;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    bool replaced = false;
    for (const auto& [entity, ch] : kEntities) {
      if (v.substr(i, entity.size()) == entity) {
        out += ch;
        i += entity.size();
        replaced = true;
        break;
      }
    }
    if (!replaced) out += v[i++];
  }
  return out;
}

inline std::string check_html(const std::string& html, bool snippet) {
  for (std::size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
    std::size_t j = i + 1;
    if (j < html.size() && html[j] == '/') ++j;
    std::size_t end = j;
    while (end < html.size() && std::isalnum(static_cast<unsigned char>(html[end]))) ++end;
    const std::string_view name(html.data() + j, end - j);
    if (snippet ? name != "mark" : !allowed_tag(name))
      return "unexpected tag <" + std::string(name) + ">";
    const std::size_t close = html.find('>', i);
    if (close == std::string::npos) return "unterminated tag";
    const std::string_view tag(html.data() + i, close - i);
    for (std::string_view attr : {std::string_view(" href=\""), std::string_view(" src=\"")}) {
      const std::size_t at = tag.find(attr);
      if (at == std::string_view::npos) continue;
      const std::size_t start = at + attr.size();
      const std::size_t quote = tag.find('"', start);
      if (quote == std::string_view::npos) return "unterminated attribute";
      if (!pages::is_safe_link(unescape(tag.substr(start, quote - start)))) {
        return "unsafe link target survived: " + std::string(tag.substr(start, quote - start));
      }
    }
  }
  return {};
}

}  // namespace detail

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string markdown(std::string_view data) {
  const std::string html = pages::render_markdown(data);
  if (std::string problem = detail::check_html(html, false); !problem.empty()) return problem;
  // md4c 0.4.8 reads past the end of its input, and what it finds there decides what it
  // does: rendering the same bytes followed by `)` makes that show every time.
  const std::string followed = std::string(data) + "))";
  if (pages::render_markdown(std::string_view(followed).substr(0, data.size())) != html) {
    return "the output depends on the bytes after the input";
  }
  const std::string escaped = pages::escape_html(data);
  if (escaped.find_first_of("<>\"") != std::string::npos) return "escape_html let markup through";
  const std::string snippet = pages::snippet_html(data);
  if (std::string problem = detail::check_html(snippet, true); !problem.empty()) {
    return "snippet: " + problem;
  }
  pages::encode_uri_component(data);
  return {};
}

}  // namespace kb::fuzz
