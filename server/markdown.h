#pragma once

// Untrusted record text to HTML: Markdown through md4c with raw HTML off, and the small
// escaping helpers every page shares. Nothing here trusts its input.

#include <string>
#include <string_view>

namespace kb::pages {

/// Renders Markdown as XHTML-compatible HTML: raw HTML is shown as text, tables and
/// strikethrough and permissive autolinks are on, and a link or image whose target is
/// not http(s), mailto or relative is rendered as its text alone.
std::string render_markdown(std::string_view markdown);

/// Whether a link target is http(s), mailto or relative (no other scheme), judged the
/// way a browser parses it (leading spaces and control characters, tabs and newlines
/// inside are ignored, scheme case-insensitive).
bool is_safe_link(std::string_view url);

/// Whether `url` is an absolute http(s) URL: the only kind a record's own URL fields
/// (engine url, citation url) are turned into links with.
bool is_web_url(std::string_view url);

/// Escapes `& < > " '` for HTML (and XML) text and attribute values, and drops C0
/// control characters other than tab and line breaks.
std::string escape_html(std::string_view text);

/// A search snippet as HTML: the text escaped, then the \x02 ... \x03 markers around
/// matches turned into <mark> ... </mark> (unbalanced markers are dropped).
std::string snippet_html(std::string_view snippet);

/// Percent-encodes everything but RFC 3986 unreserved characters: one path segment or
/// one query value.
std::string encode_uri_component(std::string_view text);

/// encode_uri_component() of each `/`-separated segment, the slashes kept.
std::string encode_uri_path(std::string_view path);

}  // namespace kb::pages
