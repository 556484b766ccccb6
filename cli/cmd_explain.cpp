#include <iostream>

#include "commands.h"
#include "kb/diagnostic_codes.h"

namespace kb::cli {
namespace {

constexpr std::string_view kCodesBegin = "<!-- BEGIN GENERATED: kb explain --update README.md -->";

}  // namespace

int explain(const std::string& code) {
  if (code == "all") {
    for (const CodeInfo& c : diagnostic_codes()) std::cout << explain_code(c);
    return kExitOk;
  }
  if (const CodeInfo* info = find_code(code)) {
    std::cout << explain_code(*info);
    return kExitOk;
  }
  std::cerr << "kb explain: no diagnostic code '" << code << "'";
  if (auto guess = suggest_code(code)) std::cerr << "; did you mean '" << *guess << "'?";
  std::cerr << "\n  hint: `kb explain all` lists every code\n";
  return kExitUsage;
}

void add_explain(CLI::App& app, Action& run) {
  struct ExplainConfig {
    std::string code;
    std::string update;
  };
  auto cfg = std::make_shared<ExplainConfig>();
  auto* sub = app.add_subcommand(
      "explain",
      "Print what a diagnostic code means and how it is usually fixed (`all`: every code)");
  sub->add_option("code", cfg->code, "A diagnostic code, e.g. schema.unknown-field, or all");
  sub->add_option("--update", cfg->update,
                  "Rewrite the generated table of every code between the markers of this "
                  "Markdown file (README.md)");
  sub->callback([&run, cfg] {
    run = [cfg] {
      if (!cfg->update.empty()) {
        return update_generated(cfg->update, kCodesBegin, codes_markdown(), "kb explain");
      }
      if (cfg->code.empty()) {
        std::cerr << "kb explain: name a diagnostic code, `all`, or --update FILE\n";
        return kExitUsage;
      }
      return explain(cfg->code);
    };
  });
}

}  // namespace kb::cli
