// Log signatures (a gotcha's `detection.signatures`): a literal or an ECMAScript regex
// matched against one line of a log.

#pragma once

#include <optional>
#include <regex>
#include <string>
#include <string_view>

namespace kb {

/// Why `pattern` is not an ECMAScript regular expression std::regex accepts, or nullopt.
std::optional<std::string> regex_error(std::string_view pattern);

/// One signature, compiled: a literal substring or a regex searched in a line.
class LineMatcher {
 public:
  /// A literal when `regex` is false. A regex that does not compile matches nothing
  /// (`kb lint` reports it as detection.bad-regex).
  LineMatcher(std::string pattern, bool regex);
  bool matches(std::string_view line) const;
  bool valid() const { return !is_regex_ || compiled_.has_value(); }

 private:
  std::string pattern_;
  bool is_regex_ = false;
  std::optional<std::regex> compiled_;
};

}  // namespace kb
