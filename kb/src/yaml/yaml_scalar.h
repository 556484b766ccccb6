#pragma once

// One writer of YAML scalars, shared by everything that writes record text (`kb
// import-text`, `kb results import`, `kb oracle run`, `kb repair --write`): it decides
// between plain, single- and double-quoted so the text reads back as exactly the same
// string, in a block or a flow context alike.

#include <string>
#include <string_view>

namespace kb::yaml_out {

/// A quoting style a caller would like to keep (an edited scalar keeps the file's style).
enum class Quote { plain, single, double_ };

/// Whether `s` holds characters a reader may not hand back verbatim inside a block or
/// single-quoted scalar: control characters but tab and newline, and the code points
/// YAML 1.1 treats as line breaks or a byte-order mark.
bool has_unsafe_chars(std::string_view s);

/// `s` double-quoted, with YAML escapes for `"`, `\`, control characters and the
/// characters YAML may treat as line breaks or byte-order marks.
std::string double_quoted(std::string_view s);

/// Whether `s` written unquoted reads back as the same string, in a block or a flow
/// context: letters, digits and ` -_./+()'<>=;`, starting with a letter or digit, no
/// trailing space, and not a word or number YAML would read as a bool, null, int or float
/// (`yes`, `Off`, `~`, `1e3`, `0x1F`, `1_000`).
bool plain_safe(std::string_view s);

/// `s` as a one-line scalar in the `preferred` style when that style can hold it (plain
/// when plain_safe; single-quoted when it holds no line break, tab, control character or
/// other YAML line break), otherwise double-quoted.
std::string scalar(std::string_view s, Quote preferred = Quote::plain);

/// A value whose YAML type is meant (a setting value such as `prefix_caching: true`):
/// plain also when YAML reads it as a bool or a number (`true`, `false`, `64`, `-1`,
/// `0.5`), otherwise as scalar().
std::string typed_scalar(std::string_view s);

}  // namespace kb::yaml_out
