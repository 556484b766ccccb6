#pragma once

// Fuzz target body: the first line of the input as a version, the second as another, the
// rest as a range; checks that parsing and ordering behave like an ordering.

#include <string>
#include <string_view>

#include "kb/version.h"

namespace kb::fuzz {

namespace detail {

inline int sign(int x) {
  return (x > 0) - (x < 0);
}

// The whitespace Version::parse trims.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

inline std::string_view next_line(std::string_view& data) {
  const std::size_t nl = data.find('\n');
  std::string_view line = data.substr(0, nl);
  data = nl == std::string_view::npos ? std::string_view() : data.substr(nl + 1);
  return line;
}

}  // namespace detail

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string version(std::string_view data) {
  const std::string_view first = detail::next_line(data);
  const std::string_view second = detail::next_line(data);
  const Parsed<Version> pa = Version::parse_or_error(first);
  const auto& a = pa.value;
  if (!a && pa.error.message.empty()) return "refused a version without saying why";
  if (!a && pa.error.offset > first.size()) return "a version error points past the text";
  if (a.has_value() != Version::parse(first).has_value())
    return "parse and parse_or_error disagree";
  auto b = Version::parse(second);
  const Parsed<VersionRange> pr = VersionRange::parse_or_error(data);
  const auto& range = pr.value;
  if (!range && pr.error.message.empty()) return "refused a range without saying why";
  if (!range && pr.error.offset > data.size()) return "a range error points past the text";
  auto whole = VersionRange::parse(first);
  if (a) {
    if (a->compare(*a) != 0) return "a version differs from itself";
    if (a->text() != detail::trim(first)) return "version text is not the trimmed input";
    if (range) range->contains(*a);
    if (whole) whole->contains(*a);
  }
  if (a && b) {
    const int ab = a->compare(*b);
    if (detail::sign(ab) != -detail::sign(b->compare(*a))) return "compare is not antisymmetric";
    if (detail::sign(a->compare_public(*b)) != -detail::sign(b->compare_public(*a))) {
      return "compare_public is not antisymmetric";
    }
    if (ab == 0 && a->compare_base(*b) != 0) return "equal versions with different bases";
    if (a->compare_public(*b) != 0 && ab == 0) return "equal versions differing publicly";
    // `===` compares text (PEP 440 arbitrary equality), so equal versions may differ there.
    const bool textual = data.find("===") != std::string_view::npos;
    if (range && !textual && ab == 0 && range->contains(*a) != range->contains(*b)) {
      return "equal versions disagree on a range";
    }
  }
  return {};
}

}  // namespace kb::fuzz
