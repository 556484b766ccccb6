#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"

#ifndef KB_DATADIR
#define KB_DATADIR ""
#endif

namespace kb::cli {

std::string default_records() {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory("records", ec)) return "records";
  // An installed kb brings its knowledge base: PREFIX/share/kb/records beside PREFIX/bin/kb
  // (wherever `cmake --install --prefix` put it), else where it was configured to go.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path beside = exe.parent_path().parent_path() / "share" / "kb" / "records";
    if (fs::is_directory(beside, ec)) return beside.string();
  }
  const std::string shared = std::string(KB_DATADIR) + "/records";
  if (!std::string(KB_DATADIR).empty() && fs::is_directory(shared, ec)) return shared;
  return "records";
}

void add_records_option(CLI::App* sub, std::string& records) {
  if (records == "records") records = default_records();
  sub->add_option("--records", records,
                  "Directory of record files (default: ./records, else the installed knowledge "
                  "base; env KB_RECORDS)")
      ->capture_default_str()
      ->envname("KB_RECORDS");
}

namespace {

// `kb version` and `kb --version`: kb's version and the knowledge base it would use.
std::string version_text(const std::string& records) {
  std::string out = "kb 0.1.0\n";
  try {
    auto corpus = Corpus::load(records);
    std::string newest;
    for (const auto& r : corpus->records()) {
      newest = std::max({newest, r->updated.str(), r->created.str()});
    }
    out += "knowledge base " + corpus->content_hash().substr(0, 16) + ": " +
           std::to_string(corpus->records().size()) + " records" +
           (newest.empty() ? std::string() : ", newest change " + newest) + ", from " + records +
           "\n";
  } catch (const std::exception& e) {
    out += "knowledge base: none (" + std::string(e.what()) + ")\n";
  }
  return out;
}

// Every long option of every subcommand also reads KB_<NAME> from the environment
// (--fail-on: KB_FAIL_ON), as osv-scanner and Trivy do; the command line wins.
void env_for_every_flag(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    for (CLI::Option* opt : sub->get_options()) {
      if (!opt->get_envname().empty() || opt->get_lnames().empty()) continue;
      const std::string& name = opt->get_lnames().front();
      if (name == "help") continue;
      std::string env = "KB_";
      for (char c : name)
        env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      opt->envname(env);
    }
    env_for_every_flag(*sub);
  }
}

}  // namespace

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
  app.set_version_flag("--version", [] {
    const char* env = std::getenv("KB_RECORDS");
    std::string text = version_text(env && *env ? std::string(env) : default_records());
    text.pop_back();  // CLI11 ends the line itself
    return text;
  });
  Action run;
  {
    auto records = std::make_shared<std::string>(default_records());
    auto* sub = app.add_subcommand(
        "version", "Print kb's version and the knowledge base it uses (snapshot, records, date)");
    add_records_option(sub, *records);
    sub->callback([&run, records] {
      run = [records] {
        std::cout << version_text(*records);
        return kExitOk;
      };
    });
  }
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
  env_for_every_flag(app);
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
