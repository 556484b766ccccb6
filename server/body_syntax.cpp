#include "body_syntax.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace kb::http {
namespace {

bool yaml_type(std::string_view t) {
  return t == "application/yaml" || t == "application/x-yaml" || t == "text/yaml" ||
         t == "text/x-yaml";
}

std::string at(std::size_t line, std::size_t column) {
  if (line == 0) return {};
  return " at line " + std::to_string(line) + ", column " + std::to_string(column);
}

// nlohmann's reason without its "[json.exception...] parse error at line L, column C: "
// prefix, and the position of the last byte it read (1-based, counted as YAML counts).
struct JsonError {
  std::string reason;
  std::size_t line = 0;
  std::size_t column = 0;
};

// Reads JSON without building it (the text may nest deeply), keeping the first error.
struct Checker {
  using json = nlohmann::json;
  std::optional<std::string> what;
  std::size_t byte = 0;
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const std::string&) { return true; }
  bool string(std::string&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) { return true; }
  bool key(std::string&) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    what = e.what();
    byte = position;
    return false;
  }
};

std::optional<JsonError> json_error(std::string_view text) {
  Checker checker;
  if (nlohmann::json::sax_parse(text, &checker) || !checker.what) return std::nullopt;
  JsonError out;
  std::string_view what = *checker.what;
  const auto column = what.find(", column ");
  const auto colon = column == std::string_view::npos ? what.find("] ") : what.find(": ", column);
  out.reason = std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
  // The 1-based index of the last byte read; one past the end at end of input.
  const std::size_t last =
      std::min<std::size_t>(checker.byte == 0 ? 0 : checker.byte - 1, text.size());
  out.line = 1;
  out.column = 1;
  for (std::size_t i = 0; i < last; ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      ++out.line;
      out.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++out.column;
    }
  }
  return out;
}

}  // namespace

BodySyntax body_syntax(std::string_view media_type, std::string_view kind, std::string_view text) {
  if (yaml_type(media_type) || kind == "kubernetes" || kind == "compose") return BodySyntax::yaml;
  if (!kind.empty() && kind != "deployment" && kind != "endpoint") return BodySyntax::other;
  if (media_type == "application/json") return BodySyntax::json;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && (text[first] == '{' || text[first] == '[')) {
    return BodySyntax::json;
  }
  return BodySyntax::yaml;
}

std::optional<std::string> json_syntax_message(std::string_view subject, std::string_view text) {
  auto e = json_error(text);
  if (!e) return std::nullopt;
  return std::string(subject) + " is not valid JSON: " + e->reason + at(e->line, e->column);
}

std::string syntax_message(std::string_view subject, BodySyntax syntax, std::string_view text,
                           const Diagnostic& first) {
  const std::string out(subject);
  if (syntax == BodySyntax::json) {
    if (auto m = json_syntax_message(subject, text)) return *m;
  } else if (syntax == BodySyntax::yaml && first.code.starts_with("yaml.")) {
    return out + " is not valid YAML: " + first.message + at(first.line, first.column);
  }
  // Text its language accepts that its reader still refused (too deep, too many nodes), or
  // an artifact read by a reader of neither language.
  return out + " cannot be read: " + first.message + at(first.line, first.column);
}

}  // namespace kb::http
