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
  /// Text every line a regex matches holds (its longest run of plain characters outside
  /// groups, when it has no alternation), searched before the regex runs: std::regex
  /// tries every position of every line, a substring search skips most lines at once.
  const std::string& required() const { return required_; }

 private:
  std::string pattern_;
  bool is_regex_ = false;
  std::optional<std::regex> compiled_;
  std::string required_;
};

/// The longest text every match of ECMAScript regex `pattern` contains, as LineMatcher
/// uses it: "" when none can be told (alternation, or nothing plain outside groups).
std::string required_literal(std::string_view pattern);

}  // namespace kb
