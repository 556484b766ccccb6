#include "core/log_signature.h"

namespace kb {

std::optional<std::string> regex_error(std::string_view pattern) {
  try {
    std::regex re(pattern.begin(), pattern.end(), std::regex::ECMAScript);
    (void)re;
    return std::nullopt;
  } catch (const std::regex_error& e) {
    return std::string("not a valid regular expression (") + e.what() + ")";
  }
}

LineMatcher::LineMatcher(std::string pattern, bool regex)
    : pattern_(std::move(pattern)), is_regex_(regex) {
  if (!is_regex_) return;
  try {
    compiled_.emplace(pattern_, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error&) {
    compiled_.reset();
  }
}

bool LineMatcher::matches(std::string_view line) const {
  if (!is_regex_) return !pattern_.empty() && line.find(pattern_) != std::string_view::npos;
  if (!compiled_) return false;
  try {
    return std::regex_search(line.begin(), line.end(), *compiled_);
  } catch (const std::regex_error&) {
    return false;  // too complex for this line (error_complexity, error_stack): no match
  }
}

}  // namespace kb
