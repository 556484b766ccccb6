#pragma once

// Shared by the readers of `kb check`'s inputs (deployment, ignore file): parsing with
// input-sized limits and the diagnostics every reader emits the same way.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "yaml/yaml_tree.h"

namespace kb {

/// Collects diagnostics about one input file of `kb check`.
class InputDiagnostics {
 public:
  InputDiagnostics(const std::string& file, std::vector<Diagnostic>& diags);

  /// Parses `text` (YAML or JSON) into `root`; false when there is no usable tree:
  /// too large (`limits.file-size`), not UTF-8 (`encoding.utf8`), nested past 16 levels
  /// (`limits.depth`) or not YAML (`yaml.*`).
  bool parse(std::string_view text, yaml::Node& root);
  void add(Severity s, std::string code, Pos pos, std::string message, std::string hint = {});
  /// Reports and returns false unless `v` is a mapping.
  bool expect_map(const yaml::Node& v, const std::string& what, const std::string& example);
  /// Reports and returns false unless `v` is a scalar.
  bool expect_scalar(const yaml::Node& v, const std::string& field);
  /// Reports and returns false unless the mapping key `k` is a scalar.
  bool expect_key(const yaml::Node& k);
  /// An unknown key: an error when it looks like a misspelling of one of `choices`
  /// (the value it meant would be silently lost), else a warning.
  void unknown_key(const yaml::Node& k, const std::string& prefix,
                   const std::vector<std::string>& choices);
  /// Errors reported through this object so far.
  std::size_t error_count() const { return errors_; }

 private:
  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  std::vector<Diagnostic>& diags_;
  std::size_t errors_ = 0;
};

}  // namespace kb
