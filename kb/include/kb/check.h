#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/deploy.h"
#include "kb/deployment.h"
#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

class Corpus;
class EvidenceIndex;

/// One entry of an ignore file: findings of gotcha `id` are reported as ignored.
struct IgnoreEntry {
  std::string id;       ///< as written; resolved like a `related` reference
  std::string reason;   ///< required
  std::string expires;  ///< YYYY-MM-DD or empty (never); the entry stops applying that day
  /// Only findings at these paths: a path as the finding's location names it, a directory
  /// prefix ending in '/', or a glob (`deploy/*.yaml`); empty: everywhere.
  std::vector<std::string> paths;
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
  Pos end;  ///< just past the text that made it true; 0 when not known
};

/// What a gotcha's fix chain says about one engine a hit service runs.
struct FixAdvice {
  std::string engine;      ///< "vllm"
  std::string running;     ///< the version the service runs; empty when not known
  std::string affected;    ///< the gotcha's range for this engine; empty: every version
  std::string fixed_in;    ///< first fixed version; empty when not fixed (or not known)
  std::string resolution;  ///< fixed | disabled | warned | workaround | wontfix | documented | none
  std::string cause;       ///< the cause this chain is about; empty: the whole gotcha
  std::string advice;      ///< "upgrade vllm from 0.26.0 to 0.28.0 or later"
};

/// One service a finding hits.
struct HitService {
  std::string name;
  std::string role;  ///< its role; "" when it has none
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
  Pos pos;                           ///< locations[0].pos, or 0 if none
  std::string service;               ///< the service it hit; "" for a deployment of one service
  std::vector<HitService> services;  ///< every service it hits, in the deployment's order
  std::string ignore_reason;         ///< for ignored findings
  std::string ignore_expires;        ///< for ignored findings
  std::string symptom;               ///< the record's symptom: first paragraph, plain text
  std::string workaround;            ///< the record's workaround: first paragraph, plain text
  std::string workaround_markdown;   ///< the whole workaround, Markdown
  std::vector<std::string> tags;     ///< family, kind and the record's tags
  std::vector<FixAdvice> fixes;      ///< per engine of the hit service the fix chain names
};

/// One clause of a gotcha's predicate evaluated for one service, for `kb check --explain`.
struct Clause {
  std::string text;   ///< "all of", "any of", "not", or the atom: "config prefix_caching = true"
  std::string truth;  ///< "true", "false" or "unknown"
  /// The facts it rests on, each "TEXT (FILE:LINE:COLUMN)" when it has a place.
  std::vector<std::string> facts;
  std::vector<Clause> children;
};

/// A gotcha's predicate for each service of a deployment.
struct Explanation {
  std::string id;
  std::string title;
  std::string result;  ///< "applies", "may apply" or "does not apply"
  struct ServiceClauses {
    std::string service;  ///< "" for a deployment of one unnamed service
    std::string role;
    Clause root;
  };
  std::vector<ServiceClauses> services;
};

/// How strictly a deployment is checked.
struct CheckOptions {
  /// Unknown engines, unknown settings and values that do not normalise become warnings
  /// instead of errors (the gate then does not fail closed on them).
  bool allow_unknown = false;
  /// Asked between gotchas: when it says true, the check stops early and its report is
  /// incomplete (the caller, who asked it to stop, knows). Unset: never.
  std::function<bool()> stop;
};

/// The answer of `kb check`.
struct CheckReport {
  Deployment deployment;          ///< resolved: engine ids, canonical keys, effective services
  std::vector<Finding> findings;  ///< worst severity first, then by id
  std::vector<Finding> ignored;   ///< findings an ignore entry matched
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
  /// Reads deployment artifacts (manifests, compose files, scripts, package lists, image
  /// references, deployment files) into one deployment, looking up what they say --
  /// images, packages and entry points of engines; flags, environment variables and keys
  /// of settings -- in this index's knowledge base (kb/src/deploy/). Problems become
  /// diagnostics; an error among them means the deployment was not read whole.
  Deployment read(const std::vector<DeployInput>& inputs, const ReadOptions& options,
                  std::vector<Diagnostic>& diags) const;
  /// Every clause of gotcha `id`'s predicate as true, false or unknown for each service of
  /// the deployment (resolved as `run` resolves it; its diagnostics are appended to
  /// `diags`); nullopt when no live gotcha has that id or alias.
  std::optional<Explanation> explain(const Deployment& deployment, std::string_view id,
                                     const CheckOptions& options,
                                     std::vector<Diagnostic>& diags) const;
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
