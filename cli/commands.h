#pragma once

// Each command file adds one subcommand to the app. `add_*` declares its flags into a
// config struct it owns and sets `run` to the action, called only if that subcommand
// was chosen. Exit codes: 0 ok, 1 problems found, 2 bad usage or unreadable input.

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kb::cli {

/// What a chosen subcommand does; returns the exit code.
using Action = std::function<int()>;

/// Exit codes shared by every command.
inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;

/// The records directory when none is given: ./records when it exists, else the knowledge
/// base an installed kb brings (PREFIX/share/kb/records), else "records".
std::string default_records();

/// The built index of the installed knowledge base (PREFIX/share/kb/kb.db) when `records`
/// is that knowledge base's records and no record file is newer than the index; else "".
/// Commands that read records use it in their place (faster start, same answers).
std::string installed_index(const std::string& records);

/// Adds `--records DIR` to `sub` (default: default_records(); the environment's
/// KB_RECORDS over that).
void add_records_option(CLI::App* sub, std::string& records);

/// Adds `--format`, one of `choices` (the default shown in --help), to `sub`.
void add_format_option(CLI::App* sub, std::string& format, std::vector<std::string> choices);

/// Adds option `name` taking a date written YYYY-MM-DD that exists on the calendar.
CLI::Option* add_date_option(CLI::App* sub, const std::string& name, std::string& date,
                             const std::string& help);

/// Writes `text` to `path`, replacing it; throws kb::Error(io) on failure.
void write_all(const std::string& path, const std::string& text);

/// Replaces what stands between `begin_marker` and the next `<!-- END GENERATED -->` of
/// the Markdown file `path` with `generated` (writing only when it differs); `who` names
/// the command in messages. Exit code: 2 when the markers are missing.
int update_generated(const std::string& path, std::string_view begin_marker,
                     const std::string& generated, std::string_view who);

/// Prints the documentation of a diagnostic code (`kb explain`, `kb lint --explain`).
int explain(const std::string& code);

void add_lint(CLI::App& app, Action& run);
void add_explain(CLI::App& app, Action& run);
void add_build(CLI::App& app, Action& run);
void add_show(CLI::App& app, Action& run);
void add_import_text(CLI::App& app, Action& run);
void add_check(CLI::App& app, Action& run);
void add_serve(CLI::App& app, Action& run);
void add_site(CLI::App& app, Action& run);
void add_results(CLI::App& app, Action& run);
void add_repair(CLI::App& app, Action& run);
void add_schema(CLI::App& app, Action& run);
void add_oracle(CLI::App& app, Action& run);
void add_triage(CLI::App& app, Action& run);
void add_new(CLI::App& app, Action& run);
void add_vocab(CLI::App& app, Action& run);

}  // namespace kb::cli
