#include <iostream>

#include "commands.h"
#include "kb/lint.h"
#include "lint_options.h"
#include "site.h"

namespace kb::cli {

void add_site(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<LintConfig>();
  auto out = std::make_shared<std::string>();
  auto web_dir = std::make_shared<std::string>();
  auto* sub = app.add_subcommand(
      "site", "Write the static site: every page, relative links, works offline");
  add_lint_options(sub, *cfg);
  sub->add_option("--out", *out, "Site directory (replaced as a whole, atomically)")->required();
  sub->add_option("--web-dir", *web_dir, "Read templates and static files from this directory")
      ->check(CLI::ExistingDirectory);
  sub->callback([&run, cfg, out, web_dir] {
    run = [cfg, out, web_dir] {
      const Linted linted = lint_tree(cfg->records, cfg->lint_options());
      const auto report = site::write_site(linted, {*out, *web_dir});
      std::cout << "wrote " << report.pages << " pages (" << report.files << " files) to " << *out
                << "; " << count_severity(linted.diagnostics, Severity::error) << " errors, "
                << count_severity(linted.diagnostics, Severity::warning)
                << " warnings (see diagnostics.html)\n";
      return count_severity(linted.diagnostics, Severity::error) > 0 ? kExitProblems : kExitOk;
    };
  });
}

}  // namespace kb::cli
