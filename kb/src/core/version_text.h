#pragma once

// Character helpers shared by the version parser (version.cpp) and the range parser
// (version_range.cpp): ASCII only, so a locale never changes what a version means.

#include <string_view>

namespace kb::version_detail {

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

inline char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace kb::version_detail
