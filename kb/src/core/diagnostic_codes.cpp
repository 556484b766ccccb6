#include "kb/diagnostic_codes.h"

#include <algorithm>
#include <vector>

#include "core/similarity.h"

namespace kb {
namespace {

constexpr bool sorted_and_unique() {
  const auto codes = diagnostic_codes();
  for (std::size_t i = 1; i < codes.size(); ++i) {
    if (!(codes[i - 1].code < codes[i].code)) return false;
  }
  return true;
}
static_assert(sorted_and_unique(), "kb::code_table::kCodes must be sorted by code, each once");

// `|` would end a Markdown table cell.
std::string cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string_view to_string(CodeScope s) {
  switch (s) {
    case CodeScope::record:
      return "record";
    case CodeScope::tree:
      return "tree";
    case CodeScope::deployment:
      return "deployment";
    case CodeScope::input:
      return "input";
  }
  return "record";
}

const CodeInfo* find_code(std::string_view code) {
  const auto codes = diagnostic_codes();
  auto it = std::lower_bound(codes.begin(), codes.end(), code,
                             [](const CodeInfo& c, std::string_view v) { return c.code < v; });
  return it != codes.end() && it->code == code ? &*it : nullptr;
}

std::optional<std::string> suggest_code(std::string_view word) {
  std::vector<std::string> choices;
  for (const CodeInfo& c : diagnostic_codes()) choices.emplace_back(c.code);
  return did_you_mean(word, choices);
}

std::string explain_code(const CodeInfo& info) {
  std::string out;
  out += std::string(info.code) + " (" + std::string(to_string(info.severity)) + ", " +
         std::string(to_string(info.scope)) + ")\n";
  out += "  " + std::string(info.meaning) + "\n";
  if (!info.fix.empty()) out += "  fix: " + std::string(info.fix) + "\n";
  switch (info.scope) {
    case CodeScope::record:
      out += "  found by: kb lint, loading one record file\n";
      break;
    case CodeScope::tree:
      out += "  found by: kb lint, checking a record against the rest of the tree\n";
      break;
    case CodeScope::deployment:
      out += "  found by: kb check and POST /api/v1/check, reading a deployment\n";
      break;
    case CodeScope::input:
      out +=
          "  found by: the command reading that input (import-text, results import, "
          "oracle run, repair)\n";
      break;
  }
  return out;
}

std::string codes_markdown() {
  std::string out = "| code | severity | from | meaning | usual fix |\n|---|---|---|---|---|\n";
  for (const CodeInfo& c : diagnostic_codes()) {
    out += "| `" + std::string(c.code) + "` | " + std::string(to_string(c.severity)) + " | " +
           std::string(to_string(c.scope)) + " | " + cell(c.meaning) + " | " + cell(c.fix) + " |\n";
  }
  return out;
}

}  // namespace kb
