#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/boxed.h"
#include "kb/str.h"
#include "kb/vec.h"

namespace kb {

/// The record namespaces; the first path component of every id.
enum class Kind { gotcha, engine, oracle, result, setting, model };

/// Every Kind, in declaration order.
inline constexpr Kind kAllKinds[] = {Kind::gotcha, Kind::engine,  Kind::oracle,
                                     Kind::result, Kind::setting, Kind::model};
/// Number of namespaces.
inline constexpr std::size_t kKindCount = 6;

/// "gotchas", "engines", "oracles", "results", "settings" or "models".
std::string_view kind_namespace(Kind k);
/// "gotcha", "engine", "oracle", "result", "setting" or "model".
std::string_view kind_name(Kind k);
/// Parses a namespace ("gotchas") or a singular name ("gotcha").
std::optional<Kind> parse_kind(std::string_view s);

/// How bad a gotcha is when it hits; declared worst first, so `<` means "worse than".
enum class GotchaSeverity { blocker, major, minor, info };
/// Where a gotcha stands upstream.
/// `unknown`: nobody has confirmed whether it still happens; `stale`: closed upstream
/// without a fix (a stale bot, no answer): as open for a deployment, said differently.
enum class GotchaStatus { open, mitigated, fixed, withdrawn, unknown, stale };

/// Every severity, worst first.
inline constexpr GotchaSeverity kAllGotchaSeverities[] = {
    GotchaSeverity::blocker, GotchaSeverity::major, GotchaSeverity::minor, GotchaSeverity::info};
/// Every status, in declaration order.
inline constexpr GotchaStatus kAllGotchaStatuses[] = {
    GotchaStatus::open,      GotchaStatus::mitigated, GotchaStatus::fixed,
    GotchaStatus::withdrawn, GotchaStatus::unknown,   GotchaStatus::stale};
/// "blocker", "major", "minor", "info": as records write them, worst first.
inline constexpr std::string_view kSeverityNames[] = {"blocker", "major", "minor", "info"};
/// "open", "mitigated", "fixed", "withdrawn": as records write them.
inline constexpr std::string_view kStatusNames[] = {"open",      "mitigated", "fixed",
                                                    "withdrawn", "unknown",   "stale"};

// The values of the record enumerations code tests, as records write them. The schema
// table declares each of these enumerations from its `kAll`, so code compares against
// the value the table declares, and a value renamed here is renamed for lint, docs and
// every comparison at once.

/// A fix chain's `resolution`: what the fix did. Only `fixed` is a fix.
namespace fix_resolution {
inline constexpr std::string_view kFixed = "fixed";
inline constexpr std::string_view kDisabled = "disabled";
inline constexpr std::string_view kWarned = "warned";
inline constexpr std::string_view kWorkaround = "workaround";
inline constexpr std::string_view kWontfix = "wontfix";
inline constexpr std::string_view kNone = "none";
/// The documentation now says how to avoid it; the code is unchanged (a docs-only fix).
inline constexpr std::string_view kDocumented = "documented";
inline constexpr std::string_view kAll[] = {kFixed,   kDisabled, kWarned,    kWorkaround,
                                            kWontfix, kNone,     kDocumented};
}  // namespace fix_resolution

/// A settings record's `type`: how its values are normalised and compared.
namespace setting_type {
inline constexpr std::string_view kBool = "bool";
inline constexpr std::string_view kInteger = "integer";
inline constexpr std::string_view kNumber = "number";
inline constexpr std::string_view kEnum = "enum";
inline constexpr std::string_view kString = "string";
inline constexpr std::string_view kVersion = "version";
inline constexpr std::string_view kAll[] = {kBool, kInteger, kNumber, kEnum, kString, kVersion};
}  // namespace setting_type

/// A settings record's `scope`: what it describes.
namespace setting_scope {
inline constexpr std::string_view kService = "service";
inline constexpr std::string_view kModel = "model";
inline constexpr std::string_view kHardware = "hardware";
/// A property of the requests, not of the servers (prompt logprobs asked for): unstated,
/// it is unknown, so a clause on it makes a finding possible, never false.
inline constexpr std::string_view kTraffic = "traffic";
/// Words for what an operator sees (`differs`: nondeterministic, inconsistent): never a
/// deployment's, only search's. Each value's synonyms are searched as the value.
inline constexpr std::string_view kSymptom = "symptom";
inline constexpr std::string_view kAll[] = {kService, kModel, kHardware, kTraffic, kSymptom};
}  // namespace setting_scope

/// An engine relation's `type`: how the engine derives from the other.
namespace relation_type {
inline constexpr std::string_view kPluginOf = "plugin-of";
inline constexpr std::string_view kForkOf = "fork-of";
inline constexpr std::string_view kPlatformOf = "platform-of";
inline constexpr std::string_view kBundles = "bundles";
inline constexpr std::string_view kUses = "uses";
inline constexpr std::string_view kAll[] = {kPluginOf, kForkOf, kPlatformOf, kBundles, kUses};
}  // namespace relation_type

/// A package's `ecosystem`: where it is published.
namespace package_ecosystem {
inline constexpr std::string_view kPypi = "pypi";
inline constexpr std::string_view kConda = "conda";
inline constexpr std::string_view kNpm = "npm";
inline constexpr std::string_view kDeb = "deb";
inline constexpr std::string_view kAll[] = {kPypi, kConda, kNpm, kDeb};
}  // namespace package_ecosystem

/// An entry point's `wraps`: what follows a launcher's own options.
namespace wraps_kind {
inline constexpr std::string_view kCommand = "command";  ///< a program and its arguments (srun)
inline constexpr std::string_view kPython = "python";    ///< what `python` takes (torchrun)
inline constexpr std::string_view kAll[] = {kCommand, kPython};
}  // namespace wraps_kind

/// A result failure's `compared`: what an oracle compared.
namespace failure_compared {
inline constexpr std::string_view kTokens = "tokens";
inline constexpr std::string_view kText = "text";
inline constexpr std::string_view kAll[] = {kTokens, kText};
}  // namespace failure_compared

/// The roles of a service that code has mechanisms for. Which roles there are, with their
/// synonyms, is data: the values of the `role` settings record (records/settings/role.yaml),
/// which lint requires to declare these three (setting.missing-role). A role the record
/// adds (`encode`) works in predicates and deployments without a change here.
namespace service_role {
inline constexpr std::string_view kKey = "role";         ///< the settings record's key
inline constexpr std::string_view kPrefill = "prefill";  ///< `differs` compares it with decode
inline constexpr std::string_view kDecode = "decode";
inline constexpr std::string_view kBoth = "both";  ///< a service no fact gives a role
inline constexpr std::string_view kRequired[] = {kPrefill, kDecode, kBoth};
/// The key of the setting a server's listening port is read into: a router names its
/// servers by it (a role value's `routed_by`).
inline constexpr std::string_view kPortKey = "port";
}  // namespace service_role

/// "blocker", "major", "minor" or "info".
std::string_view to_string(GotchaSeverity s);
/// "open", "mitigated", "fixed" or "withdrawn".
std::string_view to_string(GotchaStatus s);
/// Parses a severity name; nullopt for anything else.
std::optional<GotchaSeverity> parse_gotcha_severity(std::string_view s);
/// Parses a status name; nullopt for anything else.
std::optional<GotchaStatus> parse_gotcha_status(std::string_view s);
/// The rank of a severity name for sorting: 0 for blocker ... 3 for info, 4 for anything else.
int severity_rank(std::string_view severity);
/// The rank of a record's severity: 0 for blocker ... 3 for info, 4 when it has none.
int severity_rank(const std::optional<GotchaSeverity>& severity);
/// A record's severity as records write it; "" when it has none (not a gotcha).
std::string_view to_string(const std::optional<GotchaSeverity>& s);
/// A record's status as records write it; "" when it has none (not a gotcha).
std::string_view to_string(const std::optional<GotchaStatus>& s);

/// A 1-based position in a record file; 0 means unknown.
struct Pos {
  int line = 0;
  int column = 0;
};

/// A reference to another record as written in a field.
struct RefValue {
  Str raw;           ///< the text as written, e.g. "mooncache" or "engines/mooncake"
  Str field;         ///< where it stands, e.g. "affects[2]" or "subject.engines[0]"
  Pos pos;           ///< position of the scalar `raw`
  Str versions;      ///< version range (affects, predicates) or exact version (subjects)
  Pos versions_pos;  ///< position of `versions`
};

/// A key/value pair of a configuration map; scalars keep their text.
using ConfigEntry = std::pair<std::string, std::string>;

/// A setting named by key with a value, both as written: a model's trait, a value's
/// implication. The key is a reference into settings/.
struct KeyValue {
  RefValue key;
  Str value;
  Pos value_pos;
};

/// One test of a setting in a predicate: `KEY: VALUE` or `KEY: {OP: VALUE}`.
struct ConfigTest {
  RefValue key;             ///< the setting as written; a reference into settings/
  Str op = "eq";            ///< eq | ne | in | not_in | gt | gte | lt | lte
  Vec<std::string> values;  ///< one value, or several for in / not_in
  Vec<Pos> value_pos;       ///< of each value
};

/// One side of a `compare` predicate: a setting of this service, a setting of the
/// services of one role (`decode.tensor_parallel_size`), or a literal.
struct Operand {
  Str role;      ///< "" for this service
  RefValue key;  ///< the setting, when not a literal
  Str literal;   ///< the literal's text
  bool is_literal = false;
  Pos pos;
};

/// `compare: [LEFT, CMP, RIGHT]` of a predicate.
struct Comparison {
  Operand left;
  Str cmp;  ///< == != < <= > >=
  Operand right;
};

/// The `applies_when` predicate tree.
struct Predicate {
  /// any_service: some service of the same serving graph (this one included) satisfies
  /// the one child: a clause over the whole deployment.
  enum class Op {
    all,
    any,
    negate,
    engine,
    config,
    config_set,
    role,
    differs,
    compare,
    any_service
  };
  Op op = Op::all;
  Pos pos;
  Vec<Predicate> children;  ///< all / any / negate and any_service (exactly one)
  /// engine; differs {engine: E}. Boxed: a corpus holds a node per predicate node of
  /// every gotcha, and most nodes name no engine (a reference is 112 bytes).
  Boxed<RefValue> engine;
  Vec<ConfigTest> config;     ///< config, model, hardware
  Str scope;                  ///< config: "" (any), "model" or "hardware" as written
  Vec<RefValue> keys;         ///< config_set; differs
  Vec<std::string> roles;     ///< role
  Vec<Pos> role_pos;          ///< of each role
  Boxed<Comparison> compare;  ///< compare

  /// The engine named, or an empty reference when the node names none.
  const RefValue& engine_ref() const {
    static const RefValue none;
    return engine ? *engine : none;
  }
};

/// An upstream reference: an issue, a pull request, a commit, a document.
struct Citation {
  Str type;  ///< issue | pr | commit | doc | url | ...
  Str repo;  ///< owner/name
  std::int64_t number = 0;
  Str ref;  ///< commit sha or tag
  Str url;
  Str title;
  Str state;  ///< open | closed | merged ...
  Str as_of;  ///< YYYY-MM-DD the state was observed
  Str date;   ///< YYYY-MM-DD the upstream item was filed or merged
  Str note;
  Pos pos;
};

/// The dates a record's references hold: all that lists, checks and dates read of them.
struct CitationDates {
  Str newest_as_of;  ///< the newest valid `as_of`; "" when none is valid
  Pos newest_as_of_pos;
  Str earliest;  ///< the earliest valid `date` or `as_of`; "" when none is valid
  Str latest;    ///< the latest valid `date` or `as_of`
};

/// The fix chain of a gotcha in one engine or fork: issues, pull requests, the first
/// fixed version and what kind of fix it was.
struct FixChain {
  RefValue engine;
  Vec<Citation> issues;
  Vec<Citation> prs;
  Str fixed_in;  ///< first fixed version; empty: not fixed or not known
  Pos fixed_in_pos;
  Str resolution;  ///< fixed | disabled | warned | workaround | wontfix | documented | none
  Str note;
  /// A gotcha with several causes has one chain per cause: its name ("hash collision")
  /// and the versions it affects; empty: the chain is about the whole gotcha.
  Str cause;
  Str affected;
  Pos affected_pos;
  Pos pos;
};

/// A line a gotcha prints in a log, which names the gotcha when a log has it.
struct Signature {
  Str literal;      ///< a substring of the line, as written; or
  Str regex;        ///< an ECMAScript regular expression searched in the line
  RefValue engine;  ///< the engine that prints it; empty: any
  Str versions;     ///< its versions that print it; empty: all
  Pos pos;
};

/// How a gotcha shows itself, or does not.
struct Detection {
  std::optional<bool> silent;      ///< every health signal says fine
  Vec<std::string> lying_signals;  ///< the signals that look fine meanwhile
  Vec<RefValue> oracles;           ///< oracles that catch it
  Str canary;                      ///< Markdown: a check that catches it in production
  Vec<Signature> signatures;       ///< log lines that name it (`kb triage`)
  Pos pos;
};

/// What a performance gotcha degrades, and by how much.
struct Impact {
  Str metric;  ///< throughput | ttft | itl | kv-capacity | hit-rate | ...
  Str change;  ///< "about -50%", "x4"
  Str note;
  Pos pos;
};

/// How an engine derives from another: plugin-of, fork-of, platform-of, bundles, uses.
struct EngineRelation {
  Str type;
  RefValue engine;
  Pos pos;
};

/// A distribution package that is an engine.
struct Package {
  Str name;
  Str ecosystem = package_ecosystem::kPypi;  ///< pypi | conda | npm | deb
  Pos pos;
};

/// A container image repository of an engine, and the other engines the image ships.
struct Image {
  Str image;  ///< registry optional: "vllm/vllm-openai"
  Vec<RefValue> engines;
  Pos pos;
};

/// How a process of an engine is started: an argv prefix or a Python module.
struct Entrypoint {
  Str command;   ///< words, "vllm serve"
  Str module;    ///< `python -m MODULE`
  Str role;      ///< the role of such a service, when it implies one
  Pos role_pos;  ///< position of `role`
  /// Engines a process started this way runs besides this one, whose flags follow (a
  /// launcher: Dynamo's `dynamo.vllm` runs vLLM).
  Vec<RefValue> engines;
  /// Set: a launcher that starts the command after its own options (`srun`, `mpirun`,
  /// `torchrun`), a value of wraps_kind; the command behind it is what is read.
  Str wraps;
  Vec<std::string> value_options;  ///< its options that take the next word as their value
  /// false: a process started this way serves nothing itself, it lends its node to a
  /// cluster another process serves from (`ray start`); a container that runs only such
  /// processes is no service, whatever its image. Absent: true.
  std::optional<bool> serves;
  /// Settings a service started this way has, unless it sets them (`disagg_proxy_demo.py`
  /// is pd_proxy: vllm-disagg-proxy-demo).
  Vec<KeyValue> implies;
  /// The versions of this entry point's engine for which `implies` holds (empty: all).
  /// With the version unknown, the implied settings are set but unknown: a clause on them
  /// is possible, never true or false.
  Str versions;
  Pos pos;
};

/// A shell function a launch script calls from a helper file kb does not read, and the
/// variable it sets: Dynamo's `pick_worker_module dynamo.vllm dynamo.vllm.unified_main`
/// sets WORKER_MODULE to its first argument (the second only under `--unified`).
struct ShellFunction {
  Str name;                   ///< the function's name
  Str sets;                   ///< the variable it sets
  std::int64_t argument = 1;  ///< to its N-th argument (1-based)
  Pos pos;
};

/// Which pods of a platform resource take which role: those under `path`, or when
/// `role_from` is set, those of each item of the list at `path`, by that field's value.
struct ResourcePods {
  Str path;       ///< dotted path from the document's root: "spec.prefill"
  Str role;       ///< the role they take
  Str when;       ///< only when this dotted path is present in the document
  Str role_from;  ///< the field of each list item that names its role ("name")
  Pos pos;
};

/// A Kubernetes resource of a platform whose pods run engines the manifest may not name:
/// KServe's LLMInferenceService starts vLLM in a container it builds from a preset.
struct PlatformResource {
  Str kind;                   ///< the resource's `kind`
  Str group;                  ///< the API group its `apiVersion` starts with; empty: any
  Vec<RefValue> engines;      ///< what its pods run when their image and command name none
  Str container;              ///< the container that runs them; empty: every container
  Vec<std::string> args_env;  ///< environment variables whose value is more engine arguments
  Vec<std::string> model;     ///< dotted paths to the served model, first present wins
  Vec<ResourcePods> pods;     ///< roles by where a pod stands; first match wins
  /// Dotted paths of the pools whose fields their pods share (KServe's `spec`,
  /// `spec.prefill`): a pod takes the longest it stands under.
  Vec<std::string> pools;
  /// Fields of a pool (dotted, from the pool) whose leaves are keys of this platform's
  /// engine (KServe's `kvCacheOffloading`, which its controller turns into vLLM flags).
  Vec<std::string> pool_keys;
  Pos pos;
};

/// The values of a Helm chart that runs engines (vLLM production-stack's
/// `servingEngineSpec.modelSpec`): each item of the list at `values` is a service.
struct ChartValues {
  Str values;              ///< dotted path of a list (each item a service) or a mapping
  Vec<RefValue> engines;   ///< what each service runs when its image names none
  Str name;                ///< the item field naming the service
  Vec<std::string> image;  ///< item fields of the image's repository, then its tag
  Vec<std::string> model;  ///< item fields of the served model, first present wins
  Vec<std::string> args;   ///< item fields holding more engine arguments (a list)
  /// Item fields holding the command a service runs (a list): when one is set, it and the
  /// `args` are the whole command line, not arguments after the image's entry point
  /// (llm-d-modelservice's `modelCommand: custom` with `command: [/bin/sh, -c]`).
  Vec<std::string> command;
  Vec<std::string> env;  ///< item fields holding a Kubernetes `env` list
  /// Item fields holding a mapping of environment variables (`NAME: value`).
  Vec<std::string> env_vars;
  /// Item fields holding a mapping of the engine's own arguments by their long names
  /// (Ray Serve LLM's `engine_kwargs: {tensor_parallel_size: 2}`), read as a `--config`
  /// file of the service's engine is.
  Vec<std::string> engine_args;
  RefValue keys_of;  ///< the item's fields are keys this engine spells
  /// Item fields whose fields are all engine settings the chart renders into flags or
  /// variables (`vllmConfig`): one no record spells is listed as not understood.
  Vec<std::string> settings;
  Str role;  ///< the role of every such service, when the chart says
  /// A mapping whose fields every item has unless it sets them ("." the top level), the
  /// engine's chart lists aside: TensorRT-LLM's disagg_config top-level options.
  Str inherit;
  Pos pos;
};

/// A known release of an engine, with the versions of the components it ships or pins.
struct Release {
  Str version;
  Str date;
  Vec<RefValue> bundles;  ///< `versions` holds the exact version
  Pos pos;
};

/// One spelling of a setting by an engine: a flag, an environment variable, a config key,
/// or a field inside a JSON-valued flag.
struct Spelling {
  Str name;   ///< "--enable-prefix-caching", "VLLM_BATCH_INVARIANT", "kv_role"
  Str field;  ///< json: dotted path inside the flag's JSON value
  Str value;  ///< a switch's fixed value, when `has_value`
  bool has_value = false;
  bool invert = false;  ///< bool keys: the value is negated (`disable_radix_cache`)
  /// Bool flags: true when the flag always takes the next word as its value
  /// (`--use_paged_context_fmha disable`), false when it never does (a switch: a word after
  /// it is something else, such as the model); unset: a bool word after it is its value.
  std::optional<bool> takes_value;
  /// Flags taking every word up to the next flag (Dynamo's `--connector kvbm nixl`): the
  /// setting's value meaning several at once. One word is the value; two or more make the
  /// setting this value, each word bringing its own value's engines and implications.
  Str several;
  Pos pos;
};

/// A setting's default for the versions of an engine in `versions` (empty: all).
struct SettingDefault {
  Str versions;
  Str value;
  /// Instead of a value: what the engine works the value out from when it starts
  /// (SGLang's request cap, from its memory pools). Unknown to a deployment that does not
  /// state it, never false.
  Str derived;
  /// The roles (values of settings/role) it holds for; empty: every service. A default
  /// that names its roles also brings its value's `engines`: the setting matters only
  /// there (SGLang's transfer backend, on a prefill or decode server).
  Vec<std::string> roles;
  Pos pos;
};

/// How one engine spells a setting, and its defaults.
struct EngineSpelling {
  RefValue engine;
  Str versions;  ///< the spellings hold for these versions; empty: all
  Vec<Spelling> flags;
  Vec<Spelling> env;
  Vec<Spelling> json;
  Vec<Spelling> keys;
  Vec<SettingDefault> defaults;
  Pos pos;
};

/// One allowed value of an enum setting.
struct SettingValue {
  Str value;
  Vec<std::string> synonyms;
  Str description;
  Vec<RefValue> engines;  ///< a service with this value also runs these engines
  Vec<KeyValue> implies;  ///< ... and has these settings, unless it sets them
  /// A service with this value runs the engines its image merely ships; false for a
  /// router or a cache server (Dynamo's frontend in a vllm-runtime image is no vLLM).
  bool runs_shipped_engines = true;
  /// Words that give a workload this value by its name (`decode` in a Deployment named
  /// `llama-decode`): the weakest fact, taken only when nothing else says more.
  Vec<std::string> in_names;
  /// Keys of settings by which a router names the servers it sends this role's requests
  /// to (`prefill_servers`: a vLLM example proxy's `--prefiller-ports 8100`): a service of
  /// the same file listening on such a port (its `port` setting) takes this value, when
  /// nothing else gives one other than `both`.
  Vec<std::string> routed_by;
  Pos pos;
};

/// How a setting's value follows from the services of one deployment when no artifact
/// states it: every service of `roles` takes `value` when the deployment has a service of
/// each of those roles and they do not disagree on the `shared` keys.
struct Derivation {
  Str value;
  Vec<std::string> roles;
  Vec<std::string> shared;  ///< setting keys; set on two sides with different values: no
  Pos pos;
};

/// What a settings record declares.
struct SettingDef {
  Str key;                              ///< canonical key; the slug with '-' -> '_' when not given
  Str type;                             ///< bool | integer | number | enum | string | version
  Str scope = setting_scope::kService;  ///< service | model | hardware
  Vec<std::string> synonyms;
  Vec<SettingValue> values;
  Vec<EngineSpelling> engines;
  /// The value is the path of a config file whose keys this engine spells
  /// (`LMCACHE_CONFIG_FILE`, `--extra_llm_api_options`); empty reference: none.
  RefValue file_of;
  Vec<Derivation> derive;
};

/// One entry of a record's `repairs:` log.
struct RepairEntry {
  Str date;
  Str field;
  Str from;
  Str to;
  Str reason;
  double confidence = 0;  ///< 0 when not recorded
  Pos pos;
};

/// What an oracle result was run on.
struct Subject {
  Vec<RefValue> engines;  ///< `versions` holds the exact version, when given
  Vec<ConfigEntry> config;
  Str model;  ///< the served model, when the result names it
};

/// How `kb oracle run` runs an oracle: a built-in procedure and its parameters.
struct RunnerDecl {
  Str kind;                 ///< monolithic-equivalence | cold-vs-warm
  Vec<ConfigEntry> params;  ///< as written, checked against the kind's parameters
  Pos pos;
};

/// One route an engine's server answers that identifies it, and where its version is.
struct ProbeRoute {
  Str path;                 ///< e.g. "/version", relative to the server root
  Str version;              ///< the JSON field holding the version (dots for nesting)
  Vec<ConfigEntry> expect;  ///< JSON fields that must hold these values
  Pos pos;
};

/// One divergence an oracle run observed: where the outputs first differ.
struct Failure {
  std::int64_t prompt = 0;    ///< 0-based index of the prompt in the prompt set
  std::int64_t position = 0;  ///< 0-based index of the first diverging generated token
  std::int64_t trial = 0;     ///< 1-based trial, 0 when not recorded
  std::int64_t run = 0;       ///< 1-based warm run (cold-vs-warm), 0 when not recorded
  Str compared;               ///< "tokens" (token ids) or "text" (characters); empty: tokens
  Str expected;               ///< a short excerpt of the reference output at the divergence
  Str got;                    ///< the same excerpt of the output under test
  Pos pos;
};

/// What an engines record declares.
struct EngineInfo {
  Str name;
  Str repo;
  Str url;
  Vec<EngineRelation> relations;
  Vec<Package> packages;
  Vec<Image> images;
  Vec<Entrypoint> entrypoints;
  Vec<ShellFunction> shell_functions;  ///< helpers of its launch scripts that set variables
  Vec<PlatformResource> resources;     ///< Kubernetes kinds whose pods run engines
  Vec<ChartValues> charts;             ///< Helm values whose items run engines
  Vec<ProbeRoute> probe;  ///< how `kb oracle run` and `kb check --endpoint` recognise its server
  Vec<Release> releases;
};

/// What a results record reports.
struct ResultInfo {
  RefValue oracle;
  Str date;
  Subject subject;
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::int64_t errors = 0;
  std::int64_t skipped = 0;
  Vec<RefValue> evidence_for;
  Boxed<Citation> source;
  Vec<Failure> failures;
  bool incomplete = false;  ///< the run was interrupted: the counts cover part of it
};

/// One record, whatever its namespace. Fields of other namespaces stay empty; the parts
/// only one namespace has (engine, setting, result) are held apart and read as empty in
/// every other record.
struct Record {
  Kind kind = Kind::gotcha;
  Str id;    ///< "gotchas/foo"
  Str file;  ///< relative to the records directory, "gotchas/foo.yaml"
  Str title;
  Vec<std::string> aliases;  ///< former ids (gotchas, oracles) or other names (engines)
  Vec<Citation> references;
  /// Set when a slim record dropped `references` (only its own answer shows them):
  /// their dates, what the rest of a snapshot reads. Read both through reference_dates().
  Boxed<CitationDates> kept_reference_dates;
  Vec<RepairEntry> repairs;
  Str notes;

  // gotchas
  std::optional<GotchaSeverity> severity;  ///< parsed once at load; absent outside gotchas
  std::optional<GotchaStatus> status;      ///< parsed once at load; absent outside gotchas
  Str category;                            ///< the free `kind:` classification
  Str family;
  Str created;  ///< YYYY-MM-DD, optional
  Str updated;  ///< YYYY-MM-DD, optional
  Vec<RefValue> affects;
  Boxed<Predicate> applies_when;
  Str symptom;
  Str root_cause;
  Str workaround;
  Vec<RefValue> related;
  Vec<RefValue> oracles;
  Str as_of;       ///< YYYY-MM-DD status and fixes were last verified
  Str confidence;  ///< reproduced-upstream | maintainer-confirmed | ...
  Vec<std::string> tags;
  Vec<FixChain> fixes;
  Boxed<Detection> detection;
  Vec<Impact> impact;

  Str description;           ///< engines and settings
  Part<EngineInfo> engine;   ///< engines
  Part<SettingDef> setting;  ///< settings

  // models
  Vec<std::string> match;  ///< model id globs
  Vec<KeyValue> traits;

  // oracles
  Str method;
  Str pass_criterion;
  Boxed<RunnerDecl> runner;

  Part<ResultInfo> result;  ///< results

  Str content_hash;  ///< FNV-1a 64 of the file bytes, hex
  Str source_text;   ///< the file's bytes exactly as read (a BOM kept), for in-place repair
};

/// The ids reachable from a record's reference fields, with the namespace each implies.
struct RefSlot {
  const RefValue* ref;
  Kind target;
};
/// Every reference a record holds (affects, related, oracles, oracle, evidence_for,
/// subject.engines, engines and settings named in applies_when, fix chains, detection,
/// relations, images, releases, settings' engines and models' traits), in file order per
/// field.
std::vector<RefSlot> reference_slots(const Record& r);

/// Display name: engines' `name`, else `title`, else the id.
std::string_view display_name(const Record& r);

}  // namespace kb
