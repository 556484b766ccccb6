#include <iostream>

#include "commands.h"
#include "kb/error.h"
#include "kb/evidence.h"

namespace kb::cli {

void add_records_option(CLI::App* sub, std::string& records) {
  sub->add_option("--records", records, "Directory of record files")->capture_default_str();
}

void add_format_option(CLI::App* sub, std::string& format, std::vector<std::string> choices) {
  sub->add_option("-f,--format", format, "Output format")
      ->check(CLI::IsMember(std::move(choices)))
      ->capture_default_str();
}

CLI::Option* add_date_option(CLI::App* sub, const std::string& name, std::string& date,
                             const std::string& help) {
  return sub->add_option(name, date, help)->check([](const std::string& s) {
    return date_to_days(s) ? std::string() : std::string("expected a date YYYY-MM-DD");
  });
}

}  // namespace kb::cli

int main(int argc, char** argv) {
  using namespace kb::cli;
  CLI::App app{"kb: the gotcha knowledge base for LLM-serving stacks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "kb 0.1.0");
  Action run;
  add_lint(app, run);
  add_explain(app, run);
  add_build(app, run);
  add_show(app, run);
  add_import_text(app, run);
  add_check(app, run);
  add_serve(app, run);
  add_site(app, run);
  add_results(app, run);
  add_repair(app, run);
  add_schema(app, run);
  add_oracle(app, run);
  add_triage(app, run);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  try {
    return run ? run() : kExitUsage;
  } catch (const kb::Error& e) {
    std::cerr << "kb: error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "kb: internal error: " << e.what() << "\n";
    return 3;
  }
}
