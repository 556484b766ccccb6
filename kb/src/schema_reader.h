#pragma once

// The reader behind schema::read_record: one method per kind of field value. The plain
// field readers live in schema.cpp; references, citations, repairs and predicates, which
// hold nested structure, in schema_refs.cpp.

#include <cstdint>
#include <string>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"
#include "yaml_tree.h"

namespace kb::schema {

/// Reads the values of one record's fields into it, reporting problems as diagnostics
/// on the record's file; ok() turns false at the first error.
class Reader {
 public:
  using Node = yaml::Node;

  Reader(Record& r, std::vector<Diagnostic>& diags) : r_(r), diags_(diags) {}

  void error(const std::string& code, Pos p, std::string msg, std::string hint = {});
  void warn(const std::string& code, Pos p, std::string msg, std::string hint = {});
  bool ok() const { return ok_; }

  // Plain values (schema.cpp).
  /// A scalar field; null counts as absent (false, `out` untouched).
  bool scalar(const Node& v, const std::string& field, std::string& out);
  void text(const Node& v, const std::string& field, std::string& out) { scalar(v, field, out); }
  void date(const Node& v, const std::string& field, std::string& out);
  void count(const Node& v, const std::string& field, std::int64_t& out);
  void confidence(const Node& v, const std::string& field, double& out);
  void one_of(const Node& v, const std::string& field, const std::vector<std::string>& choices,
              std::string& out);
  void strings(const Node& v, const std::string& field, std::vector<std::string>& out);
  void config(const Node& v, const std::string& field, std::vector<ConfigEntry>& out);
  /// True when `v` is a list. Otherwise false, and `field: expected a list` is reported
  /// unless `v` is null (an absent list); `suggest_brackets` adds a hint for a scalar.
  bool list(const Node& v, const std::string& field, bool suggest_brackets = false);
  void unknown(const Node& key, const std::string& where, const std::vector<std::string>& allowed);

  // Nested values (schema_refs.cpp).
  RefValue ref_scalar(const Node& v, const std::string& field);
  /// `vllm` or `{engine: vllm, versions|version: "..."}`.
  RefValue engine_ref(const Node& v, const std::string& field, const char* version_key);
  void refs(const Node& v, const std::string& field, std::vector<RefValue>& out,
            const char* version_key = nullptr);
  Citation citation(const Node& v, const std::string& field);
  void citations(const Node& v, const std::string& field, std::vector<Citation>& out);
  void repairs(const Node& v, std::vector<RepairEntry>& out);
  Predicate predicate(const Node& v, const std::string& field, int depth);
  void subject(const Node& v);

  // What `kb oracle run` reads and writes (schema_oracle.cpp).
  /// `true` or `false`.
  void flag(const Node& v, const std::string& field, bool& out);
  /// An oracle's `runner: {kind, params}`, checked against the runner table.
  void runner(const Node& v);
  /// An engine's `probe: [{path, version, expect}]`.
  void probe(const Node& v);
  /// A result's `failures: [{prompt, position, trial, run, compared, expected, got}]`.
  void failures(const Node& v);

 private:
  void report(Severity s, const std::string& code, Pos p, std::string msg, std::string hint);
  void check_version(const Node& v, const std::string& field, const std::string& text,
                     const std::string& key);

  Record& r_;
  std::vector<Diagnostic>& diags_;
  bool ok_ = true;
};

}  // namespace kb::schema
