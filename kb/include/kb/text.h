#pragma once

// The text helpers every layer shares (the engine, the server, the CLI): one trim, one
// lower, one id -> slug, one rule for slugs and ids, one UTF-8 check.

#include <cstddef>
#include <string>
#include <string_view>

namespace kb::text {

/// The UTF-8 byte order mark some editors write at a file's start; readers skip it.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

/// `s` without leading and trailing ASCII whitespace (space, \t, \n, \r, \f, \v).
std::string_view trim(std::string_view s);
/// ASCII lower case; other bytes (UTF-8 included) are kept as they are.
std::string lower(std::string_view s);
/// The name of an id without its namespace: `gotchas/x` -> `x`; an id without '/' as is.
std::string_view id_slug(std::string_view id);
/// Whether `s` is one slug: [a-z0-9][a-z0-9._-]*, at most 200 bytes (a file name with
/// its extension must fit the usual 255). No '/', and no segment `.` or `..`.
bool valid_slug(std::string_view s);
/// Whether `s` is an id path: valid slugs joined by '/', e.g. `gotchas/x`.
bool valid_id(std::string_view s);

/// Offset of the first byte that is not valid UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing past U+10FFFF), or npos.
std::size_t invalid_utf8_offset(std::string_view s);
/// Whether all of `s` is valid UTF-8.
inline bool valid_utf8(std::string_view s) {
  return invalid_utf8_offset(s) == std::string_view::npos;
}

}  // namespace kb::text
