#include "core/log_signature.h"

#include <algorithm>
#include <cctype>

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

std::string required_literal(std::string_view p) {
  // Alternation anywhere: no one text is required (a class's `|` is plain, but rare).
  if (p.find('|') != std::string_view::npos) return {};
  std::string best, run;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  int depth = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    // A quantifier after a plain character: `?`, `*` and `{` make it optional (dropped
    // from the run), `+` keeps it once; either way the run ends there.
    auto quantified = [&](std::size_t next) {
      if (next >= p.size()) return;
      const char q = p[next];
      if (q != '?' && q != '*' && q != '+' && q != '{') return;
      if (q != '+' && !run.empty()) run.pop_back();
      end_run();
    };
    if (c == '\\' && i + 1 < p.size()) {
      const char e = p[++i];
      // An escaped punctuation character is itself; a letter or digit is a class, an
      // anchor, a control character or a back-reference: the run ends.
      if (std::isalnum(static_cast<unsigned char>(e))) {
        end_run();
        continue;
      }
      if (depth == 0) {
        run += e;
        quantified(i + 1);
      }
      continue;
    }
    if (c == '(') {
      end_run();
      ++depth;
      continue;
    }
    if (c == ')') {
      end_run();
      depth = std::max(0, depth - 1);
      continue;
    }
    if (c == '[') {  // a class: skip it whole (`]` first in it is plain)
      end_run();
      std::size_t j = i + 1;
      if (j < p.size() && p[j] == '^') ++j;
      if (j < p.size() && p[j] == ']') ++j;
      while (j < p.size() && p[j] != ']') j += p[j] == '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (c == '{') {  // a quantifier's bounds, already handled
      while (i < p.size() && p[i] != '}') ++i;
      continue;
    }
    if (c == '.' || c == '^' || c == '$' || c == '?' || c == '*' || c == '+') {
      end_run();
      continue;
    }
    if (depth == 0) {
      run += c;
      quantified(i + 1);
    }
  }
  end_run();
  return best;
}

LineMatcher::LineMatcher(std::string pattern, bool regex)
    : pattern_(std::move(pattern)), is_regex_(regex) {
  if (!is_regex_) return;
  required_ = required_literal(pattern_);
  try {
    compiled_.emplace(pattern_, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error&) {
    compiled_.reset();
  }
}

bool LineMatcher::matches(std::string_view line) const {
  if (!is_regex_) return !pattern_.empty() && line.find(pattern_) != std::string_view::npos;
  if (!compiled_) return false;
  if (!required_.empty() && line.find(required_) == std::string_view::npos) return false;
  try {
    return std::regex_search(line.begin(), line.end(), *compiled_);
  } catch (const std::regex_error&) {
    return false;  // too complex for this line (error_complexity, error_stack): no match
  }
}

}  // namespace kb
