#pragma once

// What the parts of the settings reader share (settings_reader.cpp: flags, variables,
// keys and config files; settings_json.cpp: JSON-valued flags): which fact wins, and how
// a word or a JSON value is looked at.

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "yaml/yaml_tree.h"

namespace kb::deploy::settings_detail {

// Which fact wins when several set one setting (lower wins; among equals, the later).
inline constexpr int kKey = 0;        // what the orchestrator says: labels, Dynamo service fields
inline constexpr int kEntryFlag = 1;  // the launched engine's own flags, its entry point's role
inline constexpr int kFlag = 2;       // flags spelled by the other engines of the service
inline constexpr int kEnv = 3;        // environment variables
inline constexpr int kFile = 4;       // keys of a config file the service names
inline constexpr int kImplied = 5;    // what the entry point implies

inline bool looks_like_flag(std::string_view s) {
  return s.size() > 1 && s[0] == '-' && !(s[1] >= '0' && s[1] <= '9') && s[1] != '.';
}

// Whether a switch's value turns it off: a spelling with a fixed value (`enable_nixl` is
// transfer channel nixl) given false, 0, no, off or nothing sets nothing.
inline bool switched_off(std::string_view v) {
  static constexpr std::string_view kOff[] = {"false", "False", "FALSE", "0",   "no",
                                              "No",    "NO",    "off",   "Off", "OFF"};
  return v.empty() || std::find(std::begin(kOff), std::end(kOff), v) != std::end(kOff);
}

// Whether the shell computes `v` when the script runs: a variable kb could not expand
// (`$TP`, `${LEN}`, `$2`), a command or arithmetic substitution (`$(nproc)`,
// `$((8000 + RANK))`), a backquote. Such a value is set, but not known: unknown, never
// wrong.
inline bool set_at_run_time(std::string_view v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '`') return true;
    if (v[i] != '$' || i + 1 == v.size()) continue;
    const unsigned char c = static_cast<unsigned char>(v[i + 1]);
    if (c == '{' || c == '(' || c == '_' || std::isalnum(c) || c == '@' || c == '*' || c == '#' ||
        c == '?') {
      return true;
    }
  }
  return false;
}

// Every scalar or list under a JSON object, with its dotted path.
inline void leaves(const yaml::Node& n, const std::string& path,
                   std::vector<std::pair<std::string, const yaml::Node*>>& out) {
  if (n.is_map()) {
    for (const auto& [k, v] : n.entries) {
      if (!k.is_scalar()) continue;
      leaves(v, path.empty() ? k.value : path + "." + k.value, out);
    }
  } else if (!n.is_null()) {
    out.emplace_back(path, &n);
  }
}

}  // namespace kb::deploy::settings_detail
