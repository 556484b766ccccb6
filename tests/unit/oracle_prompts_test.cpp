// Prompt files (JSON lines) and the built-in prompt set.

#include <catch2/catch.hpp>

#include "kb/oracle.h"

namespace {

std::string dump(const std::vector<kb::Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) s += kb::format_diagnostic(d) + "\n";
  return s;
}

bool has(const std::vector<kb::Diagnostic>& diags, const std::string& code, int line, int column) {
  for (const auto& d : diags) {
    if (d.code == code && d.line == line && d.column == column) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a prompt file holds completions and chat prompts", "[oracle][prompts]") {
  auto set = kb::oracle::parse_prompts(
      "# prompts\n"
      "{\"prompt\": \"The ferry leaves at\"}\n"
      "\n"
      "{\"messages\": [{\"role\": \"system\", \"content\": \"Be brief.\"}, "
      "{\"role\": \"user\", \"content\": \"When does it leave?\\nTell me.\"}]}\r\n"
      "{\"prompt\": \"caf\\u00e9\"}\n",
      "p.jsonl");
  INFO(dump(set.diagnostics));
  CHECK(set.diagnostics.empty());
  REQUIRE(set.prompts.size() == 3);
  CHECK(set.prompts[0].text == "The ferry leaves at");
  CHECK(set.prompts[0].line == 2);
  CHECK_FALSE(set.prompts[0].is_chat());
  REQUIRE(set.prompts[1].messages.size() == 2);
  CHECK(set.prompts[1].messages[0].role == "system");
  CHECK(set.prompts[1].messages[1].content == "When does it leave?\nTell me.");
  CHECK(set.prompts[1].line == 4);
  CHECK(set.prompts[2].text == "caf\xC3\xA9");
}

TEST_CASE("a bad prompt line is reported at its line and nothing is run", "[oracle][prompts]") {
  auto set = kb::oracle::parse_prompts(
      "{\"prompt\": \"ok\"}\n"
      "{\"prompt\": \"unterminated}\n"
      "{\"text\": \"x\"}\n"
      "{\"prompt\": \"a\", \"messages\": []}\n"
      "{\"messages\": [{\"role\": \"user\", \"content\": [1, 2]}]}\n"
      "[1, 2]\n"
      "{\"prompt\": \"\"}\n",
      "p.jsonl");
  INFO(dump(set.diagnostics));
  CHECK(set.prompts.empty());
  // At the opening quote of the string that is never closed (libyaml names it; yaml-cpp
  // reported the end of the line).
  CHECK(has(set.diagnostics, "prompts.syntax", 2, 12));
  CHECK(has(set.diagnostics, "prompts.unknown-field", 3, 2));
  CHECK(has(set.diagnostics, "prompts.bad-shape", 3, 1));
  CHECK(has(set.diagnostics, "prompts.bad-shape", 4, 1));
  CHECK(has(set.diagnostics, "prompts.bad-shape", 5, 43));
  CHECK(has(set.diagnostics, "prompts.bad-shape", 6, 1));
  CHECK(has(set.diagnostics, "prompts.bad-shape", 7, 12));
}

TEST_CASE("an empty or non-UTF-8 prompt file is refused", "[oracle][prompts]") {
  auto empty = kb::oracle::parse_prompts("# nothing\n\n", "p.jsonl");
  CHECK(empty.prompts.empty());
  CHECK(has(empty.diagnostics, "prompts.empty", 1, 1));
  auto bad = kb::oracle::parse_prompts("{\"prompt\": \"a\"}\n{\"prompt\": \"\xFF\"}\n", "p.jsonl");
  CHECK(bad.prompts.empty());
  CHECK(has(bad.diagnostics, "encoding.utf8", 2, 13));
}

TEST_CASE("the built-in prompts share a long prefix", "[oracle][prompts]") {
  auto set = kb::oracle::builtin_prompts();
  INFO(dump(set.diagnostics));
  CHECK(set.diagnostics.empty());
  REQUIRE(set.prompts.size() == 8);
  std::size_t chat = 0;
  for (const auto& p : set.prompts) chat += p.is_chat() ? 1 : 0;
  CHECK(chat == 2);
  // Every completion prompt starts with the same 2000 characters (a cache hit after the first).
  const std::string head = set.prompts[0].text.substr(0, 2000);
  REQUIRE(head.size() == 2000);
  for (const auto& p : set.prompts) {
    if (!p.is_chat()) CHECK(p.text.substr(0, 2000) == head);
  }
  CHECK(set.prompts[6].messages[0].content == set.prompts[7].messages[0].content);
}
