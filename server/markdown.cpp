#include "markdown.h"

#include <md4c-html.h>

#include <algorithm>
#include <cctype>

#include "kb/text.h"

namespace kb::pages {

namespace {

constexpr unsigned kParserFlags =
    MD_FLAG_NOHTML | MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEAUTOLINKS;

// NUL bytes after the input md4c is given (see render_markdown).
constexpr std::size_t kOverReadPadding = 16;

void append_output(const MD_CHAR* text, MD_SIZE size, void* out) {
  static_cast<std::string*>(out)->append(text, size);
}

// C0 controls other than tab, newline and carriage return are not allowed in XML and
// mean nothing in HTML: they are dropped from every page.
bool is_dropped_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7f;
}

// md4c escapes attribute values with these entities only.
std::string unescape_attribute(std::string_view v) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&quot;", '"'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&#39;", '\''}};
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    bool replaced = false;
    if (v[i] == '&') {
      for (const auto& [entity, ch] : kEntities) {
        if (v.substr(i, entity.size()) == entity) {
          out += ch;
          i += entity.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += v[i++];
  }
  return out;
}

// Raw HTML is disabled, so every `<` of record text reaches the output as `&lt;`: the
// only tags below are md4c's own, and attribute values never hold a raw `"` or `>`.
std::string filter_links(const std::string& html) {
  static constexpr std::string_view kLink = "<a href=\"";
  static constexpr std::string_view kImage = "<img src=\"";
  std::string out;
  out.reserve(html.size());
  std::size_t drop_closing = 0;
  std::size_t i = 0;
  while (i < html.size()) {
    // Text up to the next tag or dropped control is copied as it is.
    std::size_t plain = i;
    while (plain < html.size() && html[plain] != '<' && !is_dropped_control(html[plain])) ++plain;
    out.append(html, i, plain - i);
    i = plain;
    if (i == html.size()) break;
    const std::string_view rest(html.data() + i, html.size() - i);
    const bool link = rest.starts_with(kLink);
    const bool image = !link && rest.starts_with(kImage);
    if (link || image) {
      const std::size_t start = i + (link ? kLink.size() : kImage.size());
      const std::size_t quote = html.find('"', start);
      const std::size_t close = html.find('>', start);
      if (quote == std::string::npos || close == std::string::npos) break;
      const std::string url =
          unescape_attribute(std::string_view(html).substr(start, quote - start));
      if (is_safe_link(url)) {
        out.append(html, i, close - i);
        if (link && is_web_url(url)) out += " rel=\"nofollow noopener noreferrer\"";
        out += '>';
      } else if (link) {
        ++drop_closing;
      } else {
        static constexpr std::string_view kAlt = " alt=\"";
        const std::size_t alt = html.find(kAlt, quote);
        if (alt != std::string::npos && alt < close) {
          const std::size_t alt_end = html.find('"', alt + kAlt.size());
          out.append(html, alt + kAlt.size(), alt_end - alt - kAlt.size());
        }
      }
      i = close + 1;
      continue;
    }
    if (drop_closing > 0 && rest.substr(0, 4) == "</a>") {
      --drop_closing;
      i += 4;
      continue;
    }
    if (!is_dropped_control(html[i])) out += html[i];
    ++i;
  }
  return out;
}

bool is_scheme_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
}

// What a browser's URL parser sees: leading/trailing C0 controls and spaces stripped,
// tabs and newlines removed everywhere.
std::string browser_view(std::string_view url) {
  std::string s;
  for (char c : url) {
    if (c != '\t' && c != '\n' && c != '\r') s += c;
  }
  auto is_trim = [](char c) { return static_cast<unsigned char>(c) <= 0x20; };
  const auto first = std::find_if_not(s.begin(), s.end(), is_trim);
  const auto last = std::find_if_not(s.rbegin(), s.rend(), is_trim).base();
  return first < last ? std::string(first, last) : std::string();
}

std::string lower_scheme(const std::string& url) {
  const std::size_t colon = url.find(':');
  const std::size_t stop = url.find_first_of("/?#");
  if (colon == std::string::npos || (stop != std::string::npos && stop < colon)) return {};
  const std::string scheme = text::lower(std::string_view(url).substr(0, colon));
  return scheme.empty() ? std::string(":") : scheme;
}

constexpr char kHex[] = "0123456789ABCDEF";

}  // namespace

bool is_safe_link(std::string_view url) {
  const std::string seen = browser_view(url);
  const std::string scheme = lower_scheme(seen);
  if (scheme.empty()) return true;
  if (!std::all_of(scheme.begin(), scheme.end(), is_scheme_char)) return false;
  return scheme == "http" || scheme == "https" || scheme == "mailto";
}

bool is_web_url(std::string_view url) {
  if (url != browser_view(url)) return false;
  const std::string scheme = lower_scheme(std::string(url));
  if (scheme != "http" && scheme != "https") return false;
  return url.substr(scheme.size(), 3) == "://" && url.size() > scheme.size() + 3;
}

std::string render_markdown(std::string_view markdown) {
  // md_html() takes a pointer and a size, but md4c 0.4.8 reads past the end: an input
  // ending in an unclosed link destination (`[a](b`) has it look at the next byte, and
  // if that is `)` it hands the output callback a span beyond the input, or crashes. So
  // md4c gets a copy followed by NULs, which end every construct it scans, while the
  // size stays the input's: the output is the same as for any input it reads correctly.
  std::string padded;
  padded.reserve(markdown.size() + kOverReadPadding);
  padded.append(markdown).append(kOverReadPadding, '\0');
  std::string html;
  html.reserve(markdown.size() + markdown.size() / 4 + 64);
  md_html(padded.data(), static_cast<MD_SIZE>(markdown.size()), append_output, &html, kParserFlags,
          MD_HTML_FLAG_XHTML | MD_HTML_FLAG_SKIP_UTF8_BOM);
  return filter_links(html);
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t run = 0;  // start of the text not yet copied
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    std::string_view entity;
    switch (c) {
      case '&':
        entity = "&amp;";
        break;
      case '<':
        entity = "&lt;";
        break;
      case '>':
        entity = "&gt;";
        break;
      case '"':
        entity = "&quot;";
        break;
      case '\'':
        entity = "&#39;";
        break;
      default:
        if (!is_dropped_control(c)) continue;  // copied with its run
    }
    out.append(text.data() + run, i - run);
    out.append(entity);
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
  return out;
}

std::string snippet_html(std::string_view snippet) {
  std::string out;
  bool open = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= snippet.size(); ++i) {
    if (i < snippet.size() && snippet[i] != '\x02' && snippet[i] != '\x03') continue;
    out += escape_html(snippet.substr(start, i - start));
    start = i + 1;
    if (i == snippet.size()) break;
    if (snippet[i] == '\x02' && !open) {
      out += "<mark>";
      open = true;
    } else if (snippet[i] == '\x03' && open) {
      out += "</mark>";
      open = false;
    }
  }
  if (open) out += "</mark>";
  return out;
}

std::string encode_uri_component(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string encode_uri_path(std::string_view path) {
  std::string out;
  std::size_t start = 0;
  for (std::size_t slash = path.find('/'); slash != std::string_view::npos;
       slash = path.find('/', start)) {
    out += encode_uri_component(path.substr(start, slash - start)) + "/";
    start = slash + 1;
  }
  return out + encode_uri_component(path.substr(start));
}

}  // namespace kb::pages
