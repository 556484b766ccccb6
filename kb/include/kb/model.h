#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb {

/// The four record namespaces; the first path component of every id.
enum class Kind { gotcha, engine, oracle, result };

/// "gotchas", "engines", "oracles" or "results".
std::string_view kind_namespace(Kind k);
/// "gotcha", "engine", "oracle" or "result".
std::string_view kind_name(Kind k);
/// Parses a namespace ("gotchas") or a singular name ("gotcha").
std::optional<Kind> parse_kind(std::string_view s);

/// A 1-based position in a record file; 0 means unknown.
struct Pos {
  int line = 0;
  int column = 0;
};

/// A reference to another record as written in a field.
struct RefValue {
  std::string raw;       ///< the text as written, e.g. "mooncache" or "engines/mooncake"
  std::string field;     ///< where it stands, e.g. "affects[2]" or "subject.engines[0]"
  Pos pos;               ///< position of the scalar `raw`
  std::string versions;  ///< version range (affects, predicates) or exact version (subjects)
  Pos versions_pos;      ///< position of `versions`
};

/// A key/value pair of a configuration map; scalars keep their text.
using ConfigEntry = std::pair<std::string, std::string>;

/// The `applies_when` predicate tree.
struct Predicate {
  enum class Op { all, any, negate, engine, config, config_set };
  Op op = Op::all;
  Pos pos;
  std::vector<Predicate> children;   ///< all / any / negate (exactly one)
  RefValue engine;                   ///< engine
  std::vector<ConfigEntry> config;   ///< config
  std::vector<std::string> keys;     ///< config_set
};

/// An upstream reference: an issue, a pull request, a commit, a document.
struct Citation {
  std::string type;  ///< issue | pr | commit | doc | url | ...
  std::string repo;  ///< owner/name
  std::int64_t number = 0;
  std::string ref;    ///< commit sha or tag
  std::string url;
  std::string title;
  std::string state;  ///< open | closed | merged ...
  std::string as_of;  ///< YYYY-MM-DD the state was observed
  std::string note;
  Pos pos;
};

/// One entry of a record's `repairs:` log.
struct RepairEntry {
  std::string date;
  std::string field;
  std::string from;
  std::string to;
  std::string reason;
  double confidence = 0;  ///< 0 when not recorded
  Pos pos;
};

/// What an oracle result was run on.
struct Subject {
  std::vector<RefValue> engines;  ///< `versions` holds the exact version, when given
  std::vector<ConfigEntry> config;
  std::string model;  ///< the served model, when the result names it
};

/// How `kb oracle run` runs an oracle: a built-in procedure and its parameters.
struct RunnerDecl {
  std::string kind;                 ///< monolithic-equivalence | cold-vs-warm
  std::vector<ConfigEntry> params;  ///< as written, checked against the kind's parameters
  Pos pos;
};

/// One route an engine's server answers that identifies it, and where its version is.
struct ProbeRoute {
  std::string path;                 ///< e.g. "/version", relative to the server root
  std::string version;              ///< the JSON field holding the version (dots for nesting)
  std::vector<ConfigEntry> expect;  ///< JSON fields that must hold these values
  Pos pos;
};

/// One divergence an oracle run observed: where the outputs first differ.
struct Failure {
  std::int64_t prompt = 0;    ///< 0-based index of the prompt in the prompt set
  std::int64_t position = 0;  ///< 0-based index of the first diverging generated token
  std::int64_t trial = 0;     ///< 1-based trial, 0 when not recorded
  std::int64_t run = 0;       ///< 1-based warm run (cold-vs-warm), 0 when not recorded
  std::string compared;       ///< "tokens" (token ids) or "text" (characters); empty: tokens
  std::string expected;       ///< a short excerpt of the reference output at the divergence
  std::string got;            ///< the same excerpt of the output under test
  Pos pos;
};

/// One record, whatever its namespace; fields of other namespaces stay empty.
struct Record {
  Kind kind = Kind::gotcha;
  std::string id;    ///< "gotchas/foo"
  std::string file;  ///< relative to the records directory, "gotchas/foo.yaml"
  std::string title;
  std::vector<std::string> aliases;  ///< former ids (gotchas, oracles) or other names (engines)
  std::vector<Citation> references;
  std::vector<RepairEntry> repairs;
  std::string notes;

  // gotchas
  std::string severity;  ///< blocker | major | minor | info
  std::string status;    ///< open | mitigated | fixed | withdrawn
  std::string category;  ///< the free `kind:` classification
  std::string family;
  std::string created;  ///< YYYY-MM-DD, optional
  std::string updated;  ///< YYYY-MM-DD, optional
  std::vector<RefValue> affects;
  std::optional<Predicate> applies_when;
  std::string symptom;
  std::string root_cause;
  std::string workaround;
  std::vector<RefValue> related;
  std::vector<RefValue> oracles;

  // engines
  std::string name;
  std::string repo;
  std::string url;
  std::string description;
  std::vector<ProbeRoute> probe;  ///< how `kb oracle run` recognises its server

  // oracles
  std::string method;
  std::string pass_criterion;
  std::optional<RunnerDecl> runner;

  // results
  RefValue oracle;
  std::string date;
  Subject subject;
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::int64_t errors = 0;
  std::int64_t skipped = 0;
  std::vector<RefValue> evidence_for;
  std::optional<Citation> source;
  std::vector<Failure> failures;
  bool incomplete = false;  ///< the run was interrupted: the counts cover part of it

  std::string content_hash;  ///< FNV-1a 64 of the file bytes, hex
  std::string source_text;   ///< the file's bytes exactly as read (a BOM kept), for in-place repair
};

/// The ids reachable from a record's reference fields, with the namespace each implies.
struct RefSlot {
  const RefValue* ref;
  Kind target;
};
/// Every reference a record holds (affects, related, oracles, oracle, evidence_for,
/// subject.engines and engines named in applies_when), in file order per field.
std::vector<RefSlot> reference_slots(const Record& r);

/// Display name: engines' `name`, else `title`, else the id.
std::string_view display_name(const Record& r);

}  // namespace kb
