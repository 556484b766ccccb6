#pragma once

// Checking a parsed record against the schema table (kb/schema.h), generically: unknown
// fields with did-you-mean, required fields, every value's type as YAML 1.2's core schema
// reads it (so `kb lint` and the generated JSON Schemas agree), enums, dates, versions,
// URLs, and the grammar of applies_when predicates. What the table cannot say (a
// reference resolves, a setting's value fits its type) is checked across records later.

#include <string>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/schema.h"
#include "yaml/yaml_tree.h"

namespace kb::schema {

/// Collects the diagnostics of one record file.
class Validator {
 public:
  using Node = yaml::Node;

  Validator(const std::string& file, std::vector<Diagnostic>& out) : file_(file), out_(out) {}

  /// Checks a whole record of kind `k` whose path gives the id `id`.
  void record(const Node& root, Kind k, const std::string& id);
  /// Checks a mapping against `s`; `path` prefixes field names in messages ("" at the top).
  void object(const Node& v, const Struct& s, const std::string& path);
  /// Checks the value of field `f` (a list when `f.list`).
  void field(const Field& f, const Node& v, const std::string& path);
  /// Checks an applies_when predicate.
  void predicate(const Node& v, const std::string& path, int depth);

  void error(const std::string& code, Pos p, std::string msg, std::string hint = {});
  /// Errors reported so far.
  std::size_t errors() const { return errors_; }

 private:
  void value(const Field& f, const Node& v, const std::string& path);
  void scalar(const Field& f, const Node& v, const std::string& path);
  void map_of(const Field& f, const Node& v, const std::string& path);
  void unknown_key(const Node& key, const std::string& path,
                   const std::vector<std::string>& choices);
  void config_tests(const Node& v, const std::string& path);
  void role_value(const Node& v, const std::string& path);
  void operand(const Node& v, const std::string& path);

  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  std::vector<Diagnostic>& out_;
  std::size_t errors_ = 0;
};

/// Whether `n`, a scalar or nothing, counts as absent for a required field: null, or
/// text that is only whitespace.
bool blank(const yaml::Node& n);

}  // namespace kb::schema
