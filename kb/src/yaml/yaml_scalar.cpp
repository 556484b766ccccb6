#include "yaml/yaml_scalar.h"
#include "kb/text.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace kb::yaml_out {
namespace {

constexpr std::string_view kLineSeparator = "\xE2\x80\xA8";
constexpr std::string_view kParagraphSeparator = "\xE2\x80\xA9";
constexpr std::string_view kNextLine = "\xC2\x85";

}  // namespace

bool has_unsafe_chars(std::string_view s) {
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
  }
  for (auto seq : {kLineSeparator, kParagraphSeparator, kNextLine, text::kUtf8Bom}) {
    if (s.find(seq) != std::string_view::npos) return true;
  }
  return false;
}

namespace {

// The words YAML 1.1 or 1.2 reads as a bool or null, compared without case.
bool is_special_word(std::string_view s) {
  static constexpr std::array<std::string_view, 12> kWords = {
      "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "nan", "inf"};
  return std::find(kWords.begin(), kWords.end(), text::lower(s)) != kWords.end();
}

bool digits(std::string_view s, std::string_view allowed) {
  return !s.empty() && s.find_first_not_of(allowed) == std::string_view::npos &&
         s.find_first_not_of('_') != std::string_view::npos;
}

// An int or float of YAML 1.1 or 1.2: 12, 1_000, 0x1F, 0o17, 0b101, 1.5, 1e3, 6.02E+23.
bool is_number(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  if (s.size() > 2 && s[0] == '0') {
    const char base = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
    if (base == 'x') return digits(s.substr(2), "0123456789abcdefABCDEF_");
    if (base == 'o') return digits(s.substr(2), "01234567_");
    if (base == 'b') return digits(s.substr(2), "01_");
  }
  std::string_view mantissa = s;
  const auto e = s.find_first_of("eE");
  if (e != std::string_view::npos) {
    std::string_view exp = s.substr(e + 1);
    if (!exp.empty() && (exp.front() == '+' || exp.front() == '-')) exp.remove_prefix(1);
    if (!digits(exp, "0123456789")) return false;
    mantissa = s.substr(0, e);
  }
  const auto dot = mantissa.find('.');
  if (dot == std::string_view::npos) return digits(mantissa, "0123456789_");
  const std::string_view whole = mantissa.substr(0, dot), frac = mantissa.substr(dot + 1);
  if (frac.find('.') != std::string_view::npos) return false;  // 0.26.0 is a version
  return (whole.empty() || digits(whole, "0123456789_")) &&
         (frac.empty() || digits(frac, "0123456789_")) && !(whole.empty() && frac.empty());
}

// ',' ends a plain scalar in a flow sequence; ':' and '#' can start a mapping or a comment.
bool plain_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view(" -_./+()'<>=;").find(c) != std::string_view::npos;
}

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string hex_escape(unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("\\x") + kHex[c >> 4] + kHex[c & 0xF];
}

}  // namespace

std::string double_quoted(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::string_view rest = s.substr(i);
    if (rest.starts_with(kLineSeparator)) {
      out += "\\u2028";
      i += kLineSeparator.size() - 1;
    } else if (rest.starts_with(kParagraphSeparator)) {
      out += "\\u2029";
      i += kParagraphSeparator.size() - 1;
    } else if (rest.starts_with(kNextLine)) {
      out += "\\u0085";
      i += kNextLine.size() - 1;
    } else if (rest.starts_with(text::kUtf8Bom)) {
      out += "\\uFEFF";
      i += text::kUtf8Bom.size() - 1;
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += hex_escape(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

bool plain_safe(std::string_view s) {
  if (s.empty() || !alnum(s.front()) || s.back() == ' ') return false;
  if (!std::all_of(s.begin(), s.end(), plain_char)) return false;
  return !is_special_word(s) && !is_number(s);
}

std::string scalar(std::string_view s, Quote preferred) {
  if (preferred == Quote::plain && plain_safe(s)) return std::string(s);
  if (preferred == Quote::single && !has_unsafe_chars(s) &&
      s.find('\n') == std::string_view::npos && s.find('\t') == std::string_view::npos) {
    std::string out = "'";
    for (char c : s) {
      out += c;
      if (c == '\'') out += '\'';
    }
    return out + "'";
  }
  return double_quoted(s);
}

std::string typed_scalar(std::string_view s) {
  std::string_view digits_part = s;
  if (!digits_part.empty() && digits_part.front() == '-') digits_part.remove_prefix(1);
  const auto dot = digits_part.find('.');
  const auto all_digits = [](std::string_view d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  const bool number = dot == std::string_view::npos ? all_digits(digits_part)
                                                    : all_digits(digits_part.substr(0, dot)) &&
                                                          all_digits(digits_part.substr(dot + 1));
  if (s == "true" || s == "false" || number) return std::string(s);
  return scalar(s);
}

}  // namespace kb::yaml_out
