#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "commands.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/file_read.h"
#include "kb/flag_config.h"
#include "kb/store.h"

#ifndef KB_VERSION
#define KB_VERSION "0.0.0"
#endif
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

std::string installed_index(const std::string& records) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(records).lexically_normal();
  if (dir.filename() != "records" &&
      !(dir.filename().empty() && dir.parent_path().filename() == "records"))
    return {};
  const fs::path base = (dir.filename().empty() ? dir.parent_path() : dir).parent_path();
  const fs::path db = base / "kb.db";
  // Only the knowledge base kb was installed with: PREFIX/share/kb beside the binary, or
  // where it was configured to go.
  bool installed = false;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::equivalent(base, exe.parent_path().parent_path() / "share" / "kb", ec))
    installed = true;
  if (!installed && !std::string(KB_DATADIR).empty() &&
      fs::equivalent(base, fs::path(KB_DATADIR), ec))
    installed = true;
  if (!installed || !fs::is_regular_file(db, ec)) return {};
  // Never older than the records it was built from: an edited installed record wins.
  const auto built = fs::last_write_time(db, ec);
  if (ec) return {};
  for (auto it = fs::recursive_directory_iterator(base / "records", ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;  // a directory's time is when it was made
    const auto changed = it->last_write_time(ec);
    if (ec || changed > built) return {};
  }
  return ec ? std::string() : db.string();
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
  std::string out = "kb " KB_VERSION "\n";
  try {
    const std::string db = installed_index(records);
    std::shared_ptr<const Corpus> corpus;
    if (db.empty()) {
      corpus = Corpus::load(records);
    } else {
      Store store = Store::open_readonly(db);
      corpus = Corpus::from_store(store, db);
    }
    std::string newest;
    for (const auto& r : corpus->records()) {
      newest = std::max({newest, r->updated.str(), r->created.str()});
    }
    out += "knowledge base " + corpus->content_hash().substr(0, 16) + ": " +
           std::to_string(corpus->records().size()) + " records" +
           (newest.empty() ? std::string() : ", newest change " + newest) + ", from " + records +
           (db.empty() ? std::string() : " (index " + db + ")") + "\n";
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

// The config file: `--config FILE` (taken out of `args` here), else `.kb.yaml` in the
// working directory or the nearest one above; empty when there is none.
std::string config_path(std::vector<std::string>& args, const CLI::App& app) {
  // A command with a --config of its own (`kb results import --config k=v`) keeps it:
  // kb's config file is then named before the command.
  std::size_t command_at = args.size();
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (!args[i].starts_with("-")) {
      command_at = i;
      break;
    }
  }
  bool own_config = false;
  if (command_at < args.size()) {
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() != args[command_at]) continue;
      std::function<bool(const CLI::App*)> has = [&](const CLI::App* a) {
        for (const CLI::Option* o : a->get_options()) {
          const auto& names = o->get_lnames();
          if (std::find(names.begin(), names.end(), "config") != names.end()) return true;
        }
        for (const CLI::App* c : a->get_subcommands({})) {
          if (has(c)) return true;
        }
        return false;
      };
      own_config = has(sub);
    }
  }
  const std::size_t until = own_config ? command_at : args.size();
  for (std::size_t i = 1; i < until; ++i) {
    if (args[i] == "--config" && i + 1 < args.size()) {
      std::string path = args[i + 1];
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(i) + 2);
      return path;
    }
    if (args[i].starts_with("--config=")) {
      std::string path = args[i].substr(9);
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
      return path;
    }
  }
  namespace fs = std::filesystem;
  std::error_code ec, missing;
  for (fs::path dir = fs::current_path(ec); !ec && !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / ".kb.yaml", missing)) return (dir / ".kb.yaml").string();
    if (dir == dir.parent_path()) break;
  }
  return {};
}

// Applies the config file for the command `chosen` as KB_<FLAG> environment variables,
// under those already set (so: command line, then environment, then config file, then
// defaults). A path a path flag names is relative to the file's directory. False
// (reported) when it cannot be read or names a flag no command has.
bool apply_config(CLI::App& app, const std::string& path, const std::string& chosen) {
  namespace fs = std::filesystem;
  std::vector<std::string> commands;
  std::map<std::string, std::set<std::string>> flags;  // command -> its long flags
  for (CLI::App* sub : app.get_subcommands({})) {
    commands.push_back(sub->get_name());
    for (CLI::Option* opt : sub->get_options()) {
      if (!opt->get_lnames().empty()) flags[sub->get_name()].insert(opt->get_lnames().front());
    }
  }
  std::vector<Diagnostic> diags;
  constexpr std::size_t kMaxConfigBytes = 1 << 20;
  const FileRead read = read_file(path, named_input_policy(kMaxConfigBytes));
  if (read.failure) {
    std::cerr << format_diagnostic(read_diagnostic(read, path, kMaxConfigBytes)) << "\n";
    return false;
  }
  const std::string& text = read.bytes;
  auto settings = parse_flag_config(text, path, commands, diags);
  bool ok = count_severity(diags, Severity::error) == 0;
  for (const FlagSetting& s : settings) {
    const bool known = s.command.empty()
                           ? std::any_of(flags.begin(), flags.end(),
                                         [&](const auto& c) { return c.second.count(s.flag) > 0; })
                           : flags[s.command].count(s.flag) > 0;
    if (!known) {
      diags.push_back(
          {Severity::error, diag_code("check.unknown-field"), path, s.pos.line, s.pos.column,
           (s.command.empty() ? "" : s.command + ".") + s.flag + ": no kb command has this flag",
           "write a flag's long name: fail-on: major", ""});
      ok = false;
    }
  }
  for (const auto& d : diags) std::cerr << format_diagnostic(d) << "\n";
  if (!ok) return false;
  const fs::path base = fs::path(path).parent_path();
  // A command's own section wins over the top level: applied first (setenv keeps it).
  std::stable_sort(settings.begin(), settings.end(),
                   [](const FlagSetting& a, const FlagSetting& b) {
                     return !a.command.empty() && b.command.empty();
                   });
  static const std::set<std::string> kPaths = {"records", "db", "ignore", "web-dir"};
  for (const FlagSetting& s : settings) {
    if (!s.command.empty() && s.command != chosen) continue;
    if (s.command.empty() && !flags[chosen].count(s.flag)) continue;  // not this command's
    std::string value = s.value;
    if (kPaths.count(s.flag) && !value.empty() && value.front() != '/')
      value = (base / value).lexically_normal().string();
    std::string env = "KB_";
    for (char c : s.flag)
      env += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    ::setenv(env.c_str(), value.c_str(), 0);
  }
  return true;
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
  add_new(app, run);
  add_vocab(app, run);
  env_for_every_flag(app);
  // `--config FILE` or .kb.yaml: flag values under the environment's.
  std::vector<std::string> args(argv, argv + argc);
  const std::string config = config_path(args, app);
  if (!config.empty()) {
    std::string chosen;
    for (std::size_t i = 1; i < args.size(); ++i) {
      if (!args[i].starts_with("-")) {
        chosen = args[i];
        break;
      }
    }
    if (!apply_config(app, config, chosen)) return kExitUsage;
  }
  std::vector<char*> cargs;
  for (std::string& a : args) cargs.push_back(a.data());
  try {
    app.parse(static_cast<int>(cargs.size()), cargs.data());
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
