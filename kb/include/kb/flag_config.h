#pragma once

/// kb's config file (`.kb.yaml`, `kb --config FILE`): flag values written once for a
/// repository, as osv-scanner's and Trivy's config files hold them.

#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

/// One flag's value from the config file.
struct FlagSetting {
  std::string command;  ///< the subcommand it is for; empty: every command with this flag
  std::string flag;     ///< its long name, with '-' ("fail-on")
  std::string value;    ///< a list's items joined by ','
  Pos pos;
};

/// Reads a config file: a mapping of long flag names (`fail-on` or `fail_on`) to values
/// for every command that has the flag, and, under a command's name among `commands`
/// (`check: {format: sarif}`), for that command only. A list becomes a comma-separated
/// value. Problems are diagnostics on `file` (YAML errors, a key that is neither a
/// scalar's flag nor a command's mapping).
std::vector<FlagSetting> parse_flag_config(std::string_view text, const std::string& file,
                                           const std::vector<std::string>& commands,
                                           std::vector<Diagnostic>& diags);

}  // namespace kb
