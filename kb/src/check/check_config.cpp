// .kb.yaml: flag values per repository (kb/flag_config.h).

#include <algorithm>

#include "check/check_input.h"
#include "core/text_util.h"
#include "kb/diagnostic_codes.h"
#include "kb/flag_config.h"
#include "yaml/yaml_tree.h"

namespace kb {

namespace {

using yaml::Node;

std::string flag_name(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return key;
}

// A scalar, or a list of scalars joined by ','; nullopt (reported) for anything else.
std::optional<std::string> value_of(InputDiagnostics& out, const Node& v, const std::string& key) {
  if (v.is_scalar()) return std::string(text::trim(v.value));
  if (v.is_seq()) {
    std::string joined;
    for (const Node& item : v.items) {
      if (!out.expect_scalar(item, key)) return std::nullopt;
      joined += (joined.empty() ? "" : ",") + std::string(text::trim(item.value));
    }
    return joined;
  }
  out.add(Severity::error, diag_code("check.type"), v.pos,
          key + ": expected a value or a list of values", key + ": major");
  return std::nullopt;
}

}  // namespace

std::vector<FlagSetting> parse_flag_config(std::string_view text, const std::string& file,
                                           const std::vector<std::string>& commands,
                                           std::vector<Diagnostic>& diags) {
  std::vector<FlagSetting> out;
  InputDiagnostics in(file, diags);
  Node root;
  if (!in.parse(text, root) || root.is_null()) return out;
  if (!in.expect_map(root, "a kb config file", "fail-on: major\ncheck: {format: sarif}")) {
    return out;
  }
  for (const auto& [k, v] : root.entries) {
    if (!in.expect_key(k)) continue;
    const bool command = std::find(commands.begin(), commands.end(), k.value) != commands.end();
    if (command && v.is_map()) {
      for (const auto& [ck, cv] : v.entries) {
        if (!in.expect_key(ck)) continue;
        if (auto value = value_of(in, cv, k.value + "." + ck.value))
          out.push_back({k.value, flag_name(ck.value), *value, ck.pos});
      }
    } else if (!command) {
      if (auto value = value_of(in, v, k.value))
        out.push_back({"", flag_name(k.value), *value, k.pos});
    } else {
      in.add(Severity::error, diag_code("check.type"), v.pos,
             k.value + ": expected the flags of kb " + k.value + " as a mapping",
             k.value + ": {format: sarif}");
    }
  }
  return out;
}

}  // namespace kb
