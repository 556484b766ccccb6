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
  auto force = std::make_shared<bool>(false);
  auto base_path = std::make_shared<std::string>("/");
  auto* sub = app.add_subcommand(
      "site", "Write the static site: every page, relative links, works offline");
  add_lint_options(sub, *cfg);
  sub->add_option("--out", *out,
                  "Site directory; kb replaces only the files it wrote there (listed in .kb-site)")
      ->required();
  sub->add_flag("--force", *force,
                "Overwrite files in --out of the same name that kb did not write");
  sub->add_option("--web-dir", *web_dir, "Read templates and static files from this directory")
      ->check(CLI::ExistingDirectory);
  sub->add_option("--base-path", *base_path,
                  "Path the site is served from, for 404.html's links (a static host answers "
                  "every missing path with it): / or /REPO/ for GitHub project pages")
      ->capture_default_str();
  sub->callback([&run, cfg, out, web_dir, force, base_path] {
    run = [cfg, out, web_dir, force, base_path] {
      if (base_path->empty() || base_path->front() != '/') {
        std::cerr << "kb site: --base-path must start with '/' (got '" << *base_path << "')\n";
        return kExitUsage;
      }
      const Linted linted = lint_tree(cfg->records, cfg->lint_options());
      const auto report = site::write_site(linted, {*out, *web_dir, *force, *base_path});
      std::cout << "wrote " << report.pages << " pages (" << report.files << " files) to " << *out
                << "; " << count_severity(linted.diagnostics, Severity::error) << " errors, "
                << count_severity(linted.diagnostics, Severity::warning)
                << " warnings (see diagnostics.html)\n";
      return count_severity(linted.diagnostics, Severity::error) > 0 ? kExitProblems : kExitOk;
    };
  });
}

}  // namespace kb::cli
