#include <iostream>

#include "commands.h"
#include "json.h"
#include "kb/lint.h"
#include "lint_options.h"

namespace kb::cli {

void add_lint(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<LintConfig>();
  auto* sub = app.add_subcommand("lint", "Validate every record and every reference; writes nothing");
  add_lint_options(sub, *cfg);
  add_format_option(sub, cfg->format, {"text", "json"});
  sub->callback([&run, cfg] {
    run = [cfg] {
      Linted linted = lint_tree(cfg->records, cfg->lint_options());
      const auto& diags = linted.diagnostics;
      if (cfg->format == "json") {
        std::cout << json::lint_report(linted.corpus->records().size(), diags).dump(2) << "\n";
      } else {
        for (const auto& d : diags) std::cout << format_diagnostic(d) << "\n";
        std::cout << linted.corpus->records().size() << " records, "
                  << count_severity(diags, Severity::error) << " errors, "
                  << count_severity(diags, Severity::warning) << " warnings\n";
      }
      return count_severity(diags, Severity::error) > 0 ? kExitProblems : kExitOk;
    };
  });
}

}  // namespace kb::cli
