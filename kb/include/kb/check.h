#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/deployment.h"
#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

class Corpus;
class EvidenceIndex;

/// How bad a gotcha is when it hits; declared worst first, so `<` means "worse than".
enum class GotchaSeverity { blocker, major, minor, info };

/// "blocker", "major", "minor" or "info".
std::string_view to_string(GotchaSeverity s);
/// Parses a severity name; nullopt for anything else.
std::optional<GotchaSeverity> parse_gotcha_severity(std::string_view s);


/// One entry of an ignore file: findings of gotcha `id` are reported as ignored.
struct IgnoreEntry {
  std::string id;       ///< as written; resolved like a `related` reference
  std::string reason;   ///< required
  std::string expires;  ///< YYYY-MM-DD or empty (never); the entry stops applying that day
  Pos pos;
};

/// An ignore file: `ignore: [{id: gotchas/x, reason: "...", expires: 2027-01-01}]`.
struct IgnoreList {
  std::string file;
  std::vector<IgnoreEntry> entries;
};

/// Parses an ignore file; entries without an id or a reason, or with a malformed date,
/// are errors and are left out.
IgnoreList parse_ignore_file(std::string_view text, const std::string& file,
                             std::vector<Diagnostic>& diags);

/// A place in the inputs a finding rests on.
struct Location {
  std::string file;
  Pos pos;
};

/// A gotcha that applies to a deployment.
struct Finding {
  std::string id;
  std::string title;
  std::string severity;  ///< blocker | major | minor | info
  std::string status;    ///< open | mitigated | fixed
  std::string evidence;  ///< "reproduced", "not-reproduced" or "no-evidence"
  /// The predicate parts that held, e.g. "engine vllm 0.26.0 in >=0.26, <0.28",
  /// "prefix_caching = true (the default of vllm 0.26.0)".
  std::vector<std::string> why;
  /// The lines of the inputs that made it true, first one first; unique.
  std::vector<Location> locations;
  /// It holds only if an engine whose version was not given (or a range that does not
  /// parse, or a default that depends on it) is in range: it may apply, and is reported
  /// so it is not missed.
  bool possible = false;
  Pos pos;                     ///< locations[0].pos, or 0 if none
  std::string service;         ///< the service it hit; "" for a deployment of one service
  std::string ignore_reason;   ///< for ignored findings
  std::string ignore_expires;  ///< for ignored findings
};

/// How strictly a deployment is checked.
struct CheckOptions {
  /// Unknown engines, unknown settings and values that do not normalise become warnings
  /// instead of errors (the gate then does not fail closed on them).
  bool allow_unknown = false;
};

/// The answer of `kb check`.
struct CheckReport {
  Deployment deployment;  ///< resolved: engine ids, canonical keys, effective services
  std::vector<Finding> findings;        ///< worst severity first, then by id
  std::vector<Finding> ignored;         ///< findings an ignore entry matched
  std::vector<Diagnostic> diagnostics;  ///< about the deployment and the ignore file
};

/// Whether any (not ignored) finding is at or worse than `threshold`: `kb check` exits 1.
bool fails(const CheckReport& report, GotchaSeverity threshold);

/// Every non-withdrawn gotcha's applicability compiled once per snapshot: engine
/// references resolved to ids, version ranges parsed, so a check costs microseconds.
class CheckIndex {
 public:
  /// Compiles every gotcha of `corpus`; `corpus` must outlive the index.
  /// With `previous` (an index of an earlier corpus, still alive), the gotchas whose record
  /// is unchanged are shared instead of recompiled when no name changed in between, so
  /// an index after a one-file edit costs that file, not the corpus.
  static CheckIndex build(const Corpus& corpus, const EvidenceIndex& evidence,
                          const CheckIndex* previous = nullptr);
  /// Resolves the deployment's engines and settings against the knowledge base (an
  /// unknown engine or setting, or a value that does not normalise, is an error unless
  /// `options.allow_unknown`) and returns every gotcha that applies to some service.
  CheckReport run(const Deployment& deployment, const CheckOptions& options = {}) const;
  /// Moves findings matched by an unexpired entry of `ignores` to `report.ignored`;
  /// warns about expired entries and entries that matched nothing. `today` is YYYY-MM-DD
  /// (empty: today, UTC); throws Error{invalid_argument} when it is not a date.
  void apply_ignores(CheckReport& report, const IgnoreList& ignores, std::string_view today) const;
  /// Gotchas compiled (withdrawn ones are not).
  std::size_t size() const;

  /// The compiled form; defined inside kb_core only.
  struct Impl;

 private:
  std::shared_ptr<const Impl> impl_;
};

}  // namespace kb
