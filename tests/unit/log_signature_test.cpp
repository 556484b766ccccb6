#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "core/log_signature.h"

TEST_CASE("log signature: the text a regex requires", "[triage]") {
  using kb::required_literal;
  CHECK(required_literal("The size of tensor a \\([0-9]+\\) must match") ==
        "The size of tensor a (");
  CHECK(required_literal("engine ID mismatch: [a-f0-9]+ vs") == "engine ID mismatch: ");
  CHECK(required_literal("colou?r scheme") == "r scheme");
  CHECK(required_literal("ab+c") == "ab");
  CHECK(required_literal("x{2,3}yz") == "yz");
  CHECK(required_literal("(optional group)?tail") == "tail");
  CHECK(required_literal("^\\d+ tokens\\.$") == " tokens.");
  CHECK(required_literal("timeout|deadline") == "");
  CHECK(required_literal("[abc]") == "");
  CHECK(required_literal("a\\bword") == "word");
}

// The prefilter never changes an answer: each pattern on each line matches exactly when
// std::regex_search says so.
TEST_CASE("log signature: a regex matches the same lines with its prefilter", "[triage]") {
  const std::vector<std::string> patterns = {
      "The size of tensor a \\([0-9]+\\) must match the size of tensor b \\([0-9]+\\)",
      "colou?r scheme",
      "ab+c",
      "x{2,3}yz",
      "(optional group)?tail",
      "^\\d+ tokens\\.$",
      "timeout|deadline",
      "Remote NIXL agent .* mismatch",
      "a\\.b",
      "[]x]yz",
      "q\\?"};
  const std::vector<std::string> lines = {
      "The size of tensor a (1024) must match the size of tensor b (2048) at dim 3",
      "The size of tensor a () must match the size of tensor b (2)",
      "color scheme",
      "colour scheme",
      "colr scheme",
      "abbbc",
      "ac",
      "xxyz",
      "xyz",
      "xxxyz",
      "optional grouptail",
      "tail",
      "tai",
      "12 tokens.",
      "12 tokens",
      "a timeout",
      "deadline",
      "Remote NIXL agent engine ID mismatch",
      "Remote NIXL agent",
      "a.b",
      "axb",
      "]yz",
      "xyz",
      "q?",
      "q",
      ""};
  int matched = 0;
  for (const auto& p : patterns) {
    const kb::LineMatcher m(p, true);
    const std::regex re(p, std::regex::ECMAScript);
    for (const auto& l : lines) {
      INFO(p << " on " << l);
      const bool want = std::regex_search(l, re);
      CHECK(m.matches(l) == want);
      matched += want;
    }
  }
  CHECK(matched > 10);
}
