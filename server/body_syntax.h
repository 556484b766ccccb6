#pragma once

// Why the text of a POST /api/v1/check body does not parse, said in the language the body
// is written in: "the body is not valid YAML: <libyaml's message> at line L, column C" for
// YAML, nlohmann's message and position for JSON.

#include <optional>
#include <string>
#include <string_view>

#include "kb/diagnostic.h"

namespace kb::http {

/// The language a check body is written in, as far as the request says.
enum class BodySyntax { json, yaml, other };

/// The language of `text`, sent with media type `media_type` (lower-case, no parameters;
/// empty when none) to be read by the reader `kind` (empty: by content). A YAML media type
/// or a reader of YAML only (kubernetes, compose) says YAML; a reader of neither language
/// (shell, packages, image) says other; then a JSON media type says JSON; otherwise text
/// that starts with `{` or `[` is JSON and the rest YAML.
BodySyntax body_syntax(std::string_view media_type, std::string_view kind, std::string_view text);

/// The message of the 400 for `text` (called `subject`, e.g. "the body") whose reading
/// said `first` (its first error, a `yaml.`, `encoding.` or `limits.` one): nlohmann's
/// reason for JSON that does not parse, libyaml's (the reader's diagnostic) for YAML, e.g.
/// "the body is not valid JSON: syntax error while parsing value - unexpected end of
/// input; expected '[', '{', or a literal at line 1, column 14".
std::string syntax_message(std::string_view subject, BodySyntax syntax, std::string_view text,
                           const Diagnostic& first);

/// The message of the 400 for `text` (called `subject`) sent as JSON when it is not valid
/// JSON, though YAML (which the deployment format falls back to) may read it, e.g.
/// `{"engines": [],}`; nullopt when it is valid JSON.
std::optional<std::string> json_syntax_message(std::string_view subject, std::string_view text);

}  // namespace kb::http
