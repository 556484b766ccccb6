#include <iostream>

#include "commands.h"
#include "kb/store.h"
#include "lint_options.h"

namespace kb::cli {

void add_build(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<LintConfig>();
  auto db = std::make_shared<std::string>("kb.db");
  auto* sub = app.add_subcommand("build", "Lint, then write the SQLite index atomically");
  add_lint_options(sub, *cfg);
  sub->add_option("--db", *db, "Index file to write")->capture_default_str();
  sub->callback([&run, cfg, db] {
    run = [cfg, db] {
      Linted linted = build_index_file(cfg->records, cfg->lint_options(), *db);
      std::size_t errors = count_severity(linted.diagnostics, Severity::error);
      if (errors > 0) {
        for (const auto& d : linted.diagnostics) {
          if (d.severity == Severity::error) std::cerr << format_diagnostic(d) << "\n";
        }
        std::cerr << "kb build: " << errors << " errors; '" << *db << "' left unchanged\n";
        return kExitProblems;
      }
      std::cout << "built " << *db << ": " << linted.corpus->records().size() << " records, "
                << count_severity(linted.diagnostics, Severity::warning) << " warnings, content "
                << linted.corpus->content_hash() << "\n";
      return kExitOk;
    };
  });
}

}  // namespace kb::cli
