// The one declaration of every record field. Everything else that knows field names --
// the loader's checks, did-you-mean, required fields, import-text, the JSON encoder's
// field list, `kb schema`, the JSON Schemas and records/README.md -- reads it from here.

#include <algorithm>

#include "kb/schema.h"
#include "schema/runner_table.h"

namespace kb::schema {
namespace {

using T = ValueType;

// Values shared by several fields.
const std::vector<std::string_view> kSeverities(std::begin(kSeverityNames),
                                                std::end(kSeverityNames));
const std::vector<std::string_view> kStatuses(std::begin(kStatusNames), std::end(kStatusNames));

// An enumeration whose values code compares against: declared once, in kb/model.h.
template <std::size_t N>
std::vector<std::string_view> values_of(const std::string_view (&all)[N]) {
  return {std::begin(all), std::end(all)};
}

Field text(std::string_view name, std::string_view doc, std::string_view example = {}) {
  return Field{name, T::text, false, false, std::nullopt, {}, nullptr, {}, doc, example};
}
Field md(std::string_view name, std::string_view doc) {
  return Field{name, T::markdown, false, false, std::nullopt, {}, nullptr, {}, doc, "|"};
}
Field of(std::string_view name, T type, std::string_view doc, std::string_view example = {}) {
  return Field{name, type, false, false, std::nullopt, {}, nullptr, {}, doc, example};
}
Field one_of(std::string_view name, std::vector<std::string_view> values, std::string_view doc) {
  return Field{
      name, T::enumeration, false, false, std::nullopt, std::move(values), nullptr, {}, doc, {}};
}
Field ref(std::string_view name, Kind k, std::string_view doc, std::string_view example = {}) {
  return Field{name, T::reference, false, false, k, {}, nullptr, {}, doc, example};
}
Field obj(std::string_view name, const Struct& s, std::string_view doc,
          std::string_view shorthand = {}) {
  return Field{name, T::object, false, false, std::nullopt, {}, &s, shorthand, doc, {}};
}
Field list(Field f) {
  f.list = true;
  return f;
}
Field required(Field f) {
  f.required = true;
  return f;
}

// Nested structures.
const Struct kCitation = {
    "citation",
    "An upstream source: an issue, a pull request, a commit, a document.",
    {required(
         text("type", "what it is: issue, pr, commit, doc, url, release, discussion", "issue")),
     text("repo", "GitHub owner/name", "vllm-project/vllm"),
     of("number", T::integer, "issue or pull request number", "52617"),
     text("ref", "commit sha or tag", "98dff2a"),
     of("url", T::url, "a link, when it is not a GitHub issue, PR or commit"),
     text("title", "its title"),
     text("state", "its state when read: open, closed, merged, draft, ...", "open"),
     of("as_of", T::date, "the day the state was read", "2026-11-30"),
     of("date", T::date, "the day it was filed, merged or released", "2026-08-17"),
     text("note", "what it says, in a line")},
    {}};

// A citation whose type the list it stands in implies (a fix chain's issues and prs).
Struct optional_type(Struct s, std::string_view name, std::string_view doc) {
  s.name = name;
  s.doc = doc;
  s.fields.front().required = false;
  return s;
}
const Struct kIssueCitation = optional_type(kCitation, "issue-citation",
                                            "An issue of a fix chain; `type` defaults to issue.");
const Struct kPrCitation = optional_type(kCitation, "pr-citation",
                                         "A pull request of a fix chain; `type` defaults to pr.");

const Struct kEngineRange = {
    "engine-range",
    "An engine, optionally with the version range affected.",
    {required(ref("engine", Kind::engine, "the engine", "vllm")),
     of("versions", T::version_range, "affected versions; absent: all", "\">=0.26.0, <0.28\"")},
    {}};

const Struct kSubjectEngine = {"subject-engine",
                               "An engine a result was run on, optionally with its exact version.",
                               {required(ref("engine", Kind::engine, "the engine", "vllm")),
                                of("version", T::version, "the exact version that ran", "0.26.0")},
                               {}};

const Struct kSubject = {
    "subject",
    "What an oracle result was run on.",
    {list(obj("engines", kSubjectEngine, "engines with their exact versions", "engine")),
     of("config", T::scalar_map, "the configuration, key: value", "{kv_transfer: pd}"),
     text("model", "the served model", "Qwen/Qwen3-8B")},
    {}};

const Struct kRepair = {
    "repair",
    "One entry of the repairs log; written by `kb repair --write`, never by hand.",
    {required(of("date", T::date, "when the repair was made")),
     required(text("field", "the field repaired", "\"affects[2]\"")),
     required(text("from", "the value before")), required(text("to", "the value after")),
     text("reason", "why the repair was unambiguous"),
     of("confidence", T::number, "the resolver's score, 0 to 1")},
    {}};

const Struct kFixChain = {
    "fix-chain",
    "How a gotcha was (or was not) fixed in one engine or fork: issue, pull requests, the "
    "first fixed version.",
    {required(ref("engine", Kind::engine, "the engine or fork", "vllm")),
     list(obj("issues", kIssueCitation, "the issues reporting it")),
     list(obj("prs", kPrCitation, "pull requests, merged or not, with their state")),
     of("fixed_in", T::version, "the first version with the fix; absent: not fixed", "0.28.0"),
     one_of("resolution", values_of(fix_resolution::kAll),
            "what the fix did: `disabled` turns the feature off, which is not a fix; "
            "`documented`: the documentation now says how to avoid it, the code is unchanged "
            "(a docs-only fix)"),
     text("cause",
          "a gotcha with several causes has one chain per cause: a few words naming the "
          "cause this chain fixes (or not); `kb check` then advises per cause",
          "block hash collision"),
     of("affected", T::version_range,
        "with `cause`: the versions this cause affects; absent: the gotcha's `affects` range",
        "\">=0.8.0,<0.9.2\""),
     text("note", "anything the chain does not say")},
    {}};

const std::vector<std::string_view> kSignals = {"http-200", "health-endpoint", "cached-tokens",
                                                "hit-rate", "finish-reason",   "logs",
                                                "metrics",  "startup"};

const Struct kSignature = {
    "signature",
    "A line the gotcha prints in a log: `kb triage` and the search page name the gotcha "
    "from a log that has it. Give `literal` or `regex`.",
    {text("literal", "a substring of the line, matched as written (case-sensitive)",
          "\"Remote NIXL agent engine ID mismatch\""),
     text("regex", "or an ECMAScript regular expression searched in each line",
          "\"engine ID mismatch.*expected\""),
     ref("engine", Kind::engine, "the engine that prints it; absent: any", "nixl"),
     of("versions", T::version_range, "the versions of that engine that print it; absent: all",
        "\">=0.4.0\"")},
    {"literal", "regex"}};

const Struct kDetection = {
    "detection",
    "How the gotcha shows itself: which health signals say fine while it happens, and "
    "what catches it.",
    {of("silent", T::boolean, "every health signal says fine while it happens", "true"),
     list(one_of("lying_signals", kSignals, "signals that look fine meanwhile")),
     list(ref("oracles", Kind::oracle, "oracles that catch it", "cold-vs-warm-prefix-cache")),
     md("canary", "a check that catches it in production"),
     list(obj("signatures", kSignature, "log lines that name it"))},
    {}};

const Struct kImpact = {
    "impact",
    "What a performance or capacity gotcha degrades, and by how much.",
    {required(one_of("metric",
                     {"throughput", "ttft", "itl", "kv-capacity", "hit-rate", "bandwidth", "memory",
                      "accuracy", "availability", "cost"},
                     "what degrades")),
     text("change", "by how much, as the source says", "\"about -50%\""),
     text("note", "under which conditions")},
    {}};

const Struct kRelation = {"relation",
                          "How an engine derives from another.",
                          {required(one_of("type", values_of(relation_type::kAll), "the relation")),
                           required(ref("engine", Kind::engine, "the other engine", "vllm"))},
                          {}};

const Struct kPackage = {"package",
                         "A distribution package that is this engine.",
                         {required(text("name", "the package name", "vllm")),
                          one_of("ecosystem", values_of(package_ecosystem::kAll),
                                 "where it is published; default pypi")},
                         {}};

const Struct kImage = {
    "image",
    "A container image repository of this engine; the tag gives the version.",
    {required(text("image", "repository, registry optional", "vllm/vllm-openai")),
     list(ref("engines", Kind::engine, "other engines the image ships", "nixl"))},
    {}};

const Struct kEntrypoint = {
    "entrypoint",
    "How a process of this engine is started.",
    {text("command", "the words a command line starts with", "\"vllm serve\""),
     text("module", "a Python module run with `python -m`", "vllm.entrypoints.openai.api_server"),
     text("role",
          "the role of a service started this way, when it implies one: a value of "
          "settings/role",
          "router"),
     list(ref("engines", Kind::engine,
              "engines a process started this way runs besides this one, whose flags follow "
              "(a launcher: Dynamo's `dynamo.vllm` runs vLLM)",
              "vllm")),
     one_of("wraps", values_of(wraps_kind::kAll),
            "a launcher that starts what follows its own options: `command` (a program and its "
            "arguments: `srun`, `mpirun`) or `python` (a script or `-m MODULE`: `torchrun`); "
            "kb reads the command behind it"),
     list(text("value_options", "the launcher's options that take the next word as their value",
               "--ntasks")),
     of("serves", T::boolean,
        "false: a process started this way serves nothing itself but lends its node to a "
        "cluster another process serves from (`ray start`); a container that runs only such "
        "processes is no service, whatever its image; absent: true",
        "false"),
     of("implies", T::setting_map,
        "settings a service started this way has, unless it sets them; `command` may name a "
        "Python script (`disagg_proxy_demo.py`), matched by its file name after `python`",
        "{pd_proxy: vllm-disagg-proxy-demo}"),
     of("versions", T::version_range,
        "the versions of this entry point's engine for which `implies` holds; with the "
        "version unknown, the implied settings are unknown (a clause on them is possible)",
        "<1.0.0")},
    {"command", "module"}};

const Struct kShellFunction = {
    "shell-function",
    "A shell function this engine's launch scripts call from a helper file they source, and "
    "the variable it sets: kb cannot read the helper, so the record says what it does.",
    {required(text("name", "the function's name", "pick_worker_module")),
     required(text("sets", "the variable it sets", "WORKER_MODULE")),
     of("argument", T::integer, "to its N-th argument (1-based); absent: the first", "1")},
    {}};

const Struct kResourcePods = {
    "resource-pods",
    "Which pods of a platform resource take which role; the first entry that matches wins.",
    {required(text("path",
                   "dotted path from the document's root: the pods under it, or one container "
                   "when the mapping there has an `image` and no `containers` (AIBrix's KVCache "
                   "`spec.cache`)",
                   "spec.prefill")),
     text("role", "the role they take (a value of settings/role)", "prefill"),
     text("when", "only when this dotted path is present in the document", "spec.prefill"),
     text("role_from", "the list at `path`: the field of each item whose value is its pods' role",
          "name")},
    {}};

const Struct kPlatformResource = {
    "resource",
    "A Kubernetes resource of a platform whose pods run engines the manifest may not name "
    "(KServe's LLMInferenceService starts vLLM from a preset).",
    {required(text("kind", "the resource's kind", "LLMInferenceService")),
     text("group", "the API group its apiVersion starts with; absent: any", "serving.kserve.io"),
     list(ref("engines", Kind::engine,
              "what its pods run when their image and command name no engine", "vllm")),
     text("container", "the container that runs them; absent: every container", "main"),
     list(text("args_env", "environment variables whose value is more arguments of the engine",
               "VLLM_ADDITIONAL_ARGS")),
     list(text("model", "dotted paths to the served model; the first present wins",
               "spec.model.name")),
     list(obj("pods", kResourcePods, "roles by where a pod stands", "path")),
     list(text("pools",
               "dotted paths of the pools whose fields their pods share; a pod takes the "
               "longest it stands under",
               "spec.prefill")),
     list(text("pool_keys",
               "fields of a pool (dotted, from the pool) whose leaves are keys of this engine, "
               "which its controller turns into the engine's flags; a leaf no settings record "
               "spells is listed as not understood",
               "kvCacheOffloading"))},
    {}};

const Struct kChartValues = {
    "chart",
    "The values file of a Helm chart that runs engines: the items of a list in it (or one "
    "mapping) are services, and their fields are keys an engine record spells.",
    {required(text("values", "dotted path of the list whose items are services, or of a mapping",
                   "servingEngineSpec.modelSpec")),
     list(ref("engines", Kind::engine, "what each service runs when its image names none", "vllm")),
     text("name", "the item field naming the service", "name"),
     list(text("image", "item fields of the image's repository, then its tag", "repository")),
     list(text("model", "item fields of the served model; the first present wins", "modelURL")),
     list(text("args", "item fields holding a list of more engine arguments",
               "vllmConfig.extraArgs")),
     list(text("command",
               "item fields holding the command the service runs (a list); when one is set, "
               "it and the args are the whole command line, not arguments after the image's "
               "entry point",
               "command")),
     list(text("env", "item fields holding a Kubernetes env list", "env")),
     list(text("env_vars", "item fields holding a mapping of environment variables (NAME: value)",
               "runtime_env.env_vars")),
     list(text("engine_args",
               "item fields holding a mapping of the engine's own arguments by their long "
               "names, read as its --config file is",
               "engine_kwargs")),
     ref("keys_of", Kind::engine,
         "the item's fields (dotted, `vllmConfig.enablePrefixCaching`) are keys this engine "
         "spells in settings records",
         "vllm-production-stack"),
     list(text("settings",
               "item fields whose every field is an engine setting the chart renders into a "
               "flag or variable (with `keys_of`); a field no settings record spells is "
               "listed as not understood",
               "vllmConfig")),
     text("role", "the role of every such service (a value of settings/role)", "router"),
     text("inherit",
          "a mapping whose fields every item has unless it sets them (dotted path; `.` the "
          "file's top level), the lists of the engine's charts aside",
          ".")},
    {}};

const Struct kProbe = {
    "probe",
    "How a live server of this engine says what it is: a GET path answering JSON, where "
    "its version is and which fields tell it apart from other engines.",
    {required(of("path", T::path, "the path to GET, from the server's root", "/version")),
     text("version", "the JSON field holding the version (dotted path)", "version"),
     of("expect", T::scalar_map, "JSON fields (dotted paths) that must hold these values",
        "{model_type: sglang}")},
    {"version", "expect"}};

// The runner kinds come from the runner table, which `kb oracle run` reads too.
const std::vector<std::string_view>& runner_kinds() {
  static const std::vector<std::string> names = oracle::kind_names();
  static const std::vector<std::string_view> views(names.begin(), names.end());
  return views;
}

const Struct kRunner = {
    "runner",
    "How `kb oracle run` runs this oracle: a built-in procedure and its parameters.",
    {required(one_of("kind", runner_kinds(), "the procedure")),
     of("params", T::scalar_map, "the kind's parameters (see `kb oracle run --help`)",
        "{trials: 3}")},
    {}};

const Struct kFailure = {
    "failure",
    "One divergence an oracle run observed: where the outputs first differ.",
    {required(of("prompt", T::integer, "0-based index of the prompt in the prompt set", "3")),
     required(of("position", T::integer, "0-based index of the first diverging token", "17")),
     of("trial", T::integer, "1-based trial; absent: not recorded"),
     of("run", T::integer, "1-based warm run (cold-vs-warm); absent: not recorded"),
     one_of("compared", values_of(failure_compared::kAll), "what was compared; default tokens"),
     text("expected", "a short excerpt of the reference output at the divergence"),
     text("got", "the same excerpt of the output under test")},
    {}};

const Struct kRelease = {
    "release",
    "A known release, with the versions of the components it ships or pins.",
    {required(of("version", T::version, "the version", "0.26.0")),
     of("date", T::date, "the release date"),
     of("bundles", T::engine_versions, "component engines and their versions", "{nixl: 1.3.1}")},
    {}};

const Struct kFlagSpelling = {
    "flag-spelling",
    "A command-line flag. For a bool setting a bare flag is a switch meaning true; "
    "otherwise it takes the next argument (or `--flag=value`) as the value.",
    {required(text("flag", "the flag", "--enable-prefix-caching")),
     of("value", T::scalar, "a switch's fixed value", "false"),
     of("takes_value", T::boolean,
        "bool settings: true when the flag always takes the next word as its value "
        "(`--use_paged_context_fmha disable`), false when it never does (a word after it is "
        "something else, such as the model); absent: a bool word after it is its value",
        "true"),
     text("several",
          "the flag takes every word up to the next flag (`--connector kvbm nixl`): one word "
          "is its value, two or more make the setting this value (one meaning several at "
          "once), each word bringing its own value's engines and implications",
          "multi")},
    {}};

const Struct kEnvSpelling = {
    "env-spelling",
    "An environment variable; its value is normalised by the setting's type.",
    {required(text("name", "the variable", "VLLM_BATCH_INVARIANT")),
     of("value", T::scalar, "the value its presence means, whatever it is set to")},
    {}};

const Struct kKeySpelling = {
    "key-spelling",
    "A key of an engine's config file, server info or metrics labels.",
    {required(text("key", "the key", "enable_prefix_caching")),
     of("invert", T::boolean, "bool settings: the key's value is negated", "true"),
     of("value", T::scalar, "a fixed value its presence means")},
    {}};

const Struct kJsonSpelling = {
    "json-spelling",
    "A field inside a JSON-valued flag or config key.",
    {text("flag", "the flag whose value is JSON", "--kv-transfer-config"),
     text("key", "or the config key whose value is a mapping", "kv_transfer_config"),
     required(text("field",
                   "the field's dotted path inside it; `PATH[]` (flags): a list whose items are "
                   "whole values of the same flag, read as parts: an item's value of this "
                   "setting brings its engines and implications, its other fields are weaker "
                   "than the flag's own",
                   "kv_connector"))},
    {"flag", "key"}};

const Struct kSettingDefault = {
    "setting-default",
    "The engine's default; the first entry whose versions contain the engine's wins.",
    {of("versions", T::version_range, "the versions it holds for; absent: all", "\">=0.8.0\""),
     of("value", T::scalar, "the default value", "true"),
     text("derived",
          "instead of a value: what the engine works the value out from when it starts; a "
          "predicate on the setting is then unknown (possible) unless the deployment states it",
          "the KV and request memory pools"),
     list(text("roles",
               "the roles (values of settings/role) it holds for; absent: every service. A "
               "service of another role has no value, and a default that names its roles "
               "also runs its value's engines (a value's `engines`), as a value written out "
               "does",
               "[prefill, decode]"))},
    {"value", "derived"}};

const Struct kEngineSpelling = {
    "engine-spelling",
    "How one engine spells a setting, and its default.",
    {required(ref("engine", Kind::engine, "the engine", "vllm")),
     of("versions", T::version_range, "the versions these spellings hold for; absent: all"),
     list(obj("flags", kFlagSpelling, "command-line flags", "flag")),
     list(obj("env", kEnvSpelling, "environment variables", "name")),
     list(obj("json", kJsonSpelling, "fields inside JSON-valued flags")),
     list(obj("keys", kKeySpelling, "config-file, server-info and metrics-label keys", "key")),
     list(obj("defaults", kSettingDefault, "the default, per version range"))},
    {}};

const Struct kSettingValue = {
    "setting-value",
    "One allowed value of an enum setting.",
    {required(text("value", "the canonical value", "fp8")),
     list(text("synonyms",
               "other spellings, compared case-insensitively (`-` and `_` alike); with `*`, a "
               "pattern tried after every exact spelling",
               "fp8_e4m3")),
     text("description", "what it means"),
     list(ref("engines", Kind::engine, "engines a service with this value also runs", "lmcache")),
     of("implies", T::setting_map, "settings a service with this value also has",
        "{gpu_arch: sm90}"),
     of("runs_shipped_engines", T::boolean,
        "a service with this value runs the engines its image merely ships; default true, "
        "false for a router or cache server",
        "false"),
     list(text("in_names",
               "words that give a workload this value by its name, compared with the parts of a "
               "Deployment's, StatefulSet's or compose service's name split at `-`, `_` and `.`; "
               "the weakest fact, taken only where nothing else gives a value other than `both`",
               "decode")),
     list(text("routed_by",
               "keys of settings by which a router names its servers of this value (a port, "
               "`host:port` or a URL): a service of the same file whose `port` setting is one of "
               "them takes this value when nothing else gives one other than `both`",
               "prefill_servers"))},
    {}};

std::vector<Field> common(bool title_required, std::vector<Field> own) {
  std::vector<Field> out = {
      text("id", "must equal the path: gotchas/foo.yaml is gotchas/foo"),
      title_required ? required(text("title", "one line saying what it is"))
                     : text("title", "one line saying what it is"),
      list(text("aliases", "former ids (links to them still resolve) or other names")),
      list(obj("references", kCitation, "upstream sources")),
      md("notes", "anything else: figures, sources, dates")};
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

const Struct kGotcha = {
    "gotcha",
    "A claim: what goes wrong, why, what to do, and when a deployment is hit.",
    common(true, {required(one_of("severity", kSeverities,
                                  "blocker: wrong output health checks cannot see; major: crash, "
                                  "hang, perf cliff, feature silently lost; minor; info")),
                  required(one_of("status", kStatuses, "upstream state")),
                  text("kind", "free classification: correctness, config, performance, ...",
                       "correctness"),
                  text("family", "groups related gotchas", "disaggregation"),
                  of("created", T::date, "when the record was written"),
                  of("updated", T::date, "when it last changed in substance"),
                  of("as_of", T::date, "when status and fixes were last verified upstream"),
                  one_of("confidence",
                         {"reproduced-upstream", "maintainer-confirmed", "single-report",
                          "hypothesis", "third-party"},
                         "how well the claim is established"),
                  list(text("tags", "free lower-case words", "cache-key")),
                  list(obj("affects", kEngineRange, "engines it affects, optionally with versions",
                           "engine")),
                  of("applies_when", T::predicate, "when a deployment is hit (see kb check)"),
                  required(md("symptom", "what an operator sees")),
                  md("root_cause", "why it happens"),
                  md("workaround", "what to do until it is fixed"),
                  list(ref("related", Kind::gotcha, "related gotchas")),
                  list(ref("oracles", Kind::oracle, "oracles that decide whether it happens")),
                  list(obj("fixes", kFixChain, "the fix chain per engine or fork")),
                  obj("detection", kDetection, "which signals lie, what catches it"),
                  list(obj("impact", kImpact, "what degrades, by how much")),
                  list(obj("repairs", kRepair, "written by `kb repair --write`, never by hand"))}),
    {}};

const Struct kEngine = {
    "engine",
    "An engine, connector or library that gotchas affect and deployments run.",
    common(
        false,
        {required(text("name", "display name", "vLLM")),
         text("repo", "GitHub owner/name", "vllm-project/vllm"), of("url", T::url, "home page"),
         md("description", "what it is"),
         text("kind", "free classification: inference-engine, kv-connector, ...",
              "inference-engine"),
         list(obj("relations", kRelation, "plugin of, fork of, ...")),
         list(obj("packages", kPackage, "distribution packages that are this engine", "name")),
         list(obj("images", kImage, "container image repositories", "image")),
         list(obj("entrypoints", kEntrypoint, "how its processes are started")),
         list(obj("shell_functions", kShellFunction,
                  "functions its launch scripts call from a sourced helper, and what they set",
                  "name")),
         list(obj("resources", kPlatformResource,
                  "Kubernetes kinds whose pods run engines the manifest may not name", "kind")),
         list(obj(
             "charts", kChartValues,
             "values files (a Helm chart's, TensorRT-LLM's disagg_config) whose items run engines",
             "values")),
         list(obj("probe", kProbe, "how a live server of it says what it is")),
         list(obj("releases", kRelease, "known releases"))}),
    {}};

const Struct kOracle = {
    "oracle",
    "A test that decides whether a gotcha happens.",
    common(true, {md("method", "how to run it"), text("pass_criterion", "what passing means"),
                  obj("runner", kRunner, "how `kb oracle run` runs it; absent: by hand only")}),
    {}};

const Struct kResult = {
    "result",
    "One run of an oracle on a subject: the evidence.",
    common(
        false,
        {required(ref("oracle", Kind::oracle, "the oracle run", "monolithic-equivalence")),
         required(of("date", T::date, "when it ran")), obj("subject", kSubject, "what it ran on"),
         required(of("passed", T::integer, "test cases that passed")),
         required(of("failed", T::integer, "test cases that failed")),
         of("errors", T::integer, "test cases that errored (neither passed nor failed)"),
         of("skipped", T::integer, "test cases skipped"),
         list(ref("evidence_for", Kind::gotcha, "gotchas a failure here reproduces")),
         obj("source", kCitation, "where the figures come from"),
         list(obj("failures", kFailure, "the failed comparisons, at most `failed` of them")),
         of("incomplete", T::boolean, "the run was interrupted: the counts cover part of it",
            "true")}),
    {}};

const Struct kDerivation = {
    "derivation",
    "How the setting's value follows from the services of one deployment when no artifact "
    "states it.",
    {required(text("value", "the value the services take", "pd")),
     required(list(text("roles",
                        "the roles (values of settings/role) the deployment must have a service "
                        "of; each of those services takes the value",
                        "[prefill, decode]"))),
     list(text("shared",
               "setting keys the services must not disagree on (set on two of them with "
               "different values: not derived)",
               "[kv_connector]"))},
    {}};

const Struct kSetting = {
    "setting",
    "A configuration key predicates and deployments may use: its type, synonyms, and how "
    "each engine spells it and defaults it.",
    common(true,
           {text("key", "the canonical key; default: the slug with '-' as '_'", "prefix_caching"),
            required(one_of("type", values_of(setting_type::kAll),
                            "how values are normalised and compared")),
            one_of("scope", values_of(setting_scope::kAll), "what it describes; default service"),
            list(text("synonyms", "other names of the key", "enable_prefix_caching")),
            md("description", "what it means, why gotchas care"),
            list(obj("values", kSettingValue, "enum: the allowed values", "value")),
            list(obj("engines", kEngineSpelling, "how each engine spells it, and its default")),
            ref("file_of", Kind::engine,
                "the value is the path of a config file whose keys this engine spells "
                "(`LMCACHE_CONFIG_FILE`): given beside it, the file's keys are the service's",
                "lmcache"),
            list(obj("derive", kDerivation,
                     "how the value follows from the deployment's services when no artifact "
                     "states it"))}),
    {}};

const Struct kModel = {
    "model",
    "A model family: which model ids it matches and the traits gotchas test.",
    common(true, {required(list(text("match", "model ids it matches; `*` matches any characters",
                                     "\"Qwen/Qwen3.5-*\""))),
                  of("traits", T::setting_map, "model-scope settings and their values",
                     "{num_kv_heads: 2, moe: true}")}),
    {}};

}  // namespace

std::string_view to_string(ValueType t) {
  switch (t) {
    case T::text:
      return "text";
    case T::markdown:
      return "Markdown";
    case T::date:
      return "date";
    case T::integer:
      return "integer";
    case T::number:
      return "number";
    case T::boolean:
      return "boolean";
    case T::enumeration:
      return "one of";
    case T::reference:
      return "reference";
    case T::version:
      return "version";
    case T::version_range:
      return "version range";
    case T::url:
      return "URL";
    case T::path:
      return "path";
    case T::object:
      return "mapping";
    case T::predicate:
      return "predicate";
    case T::scalar_map:
      return "mapping of keys to values";
    case T::setting_map:
      return "mapping of settings to values";
    case T::engine_versions:
      return "mapping of engines to versions";
    case T::scalar:
      return "value";
  }
  return "value";
}

const Struct& record_struct(Kind k) {
  switch (k) {
    case Kind::gotcha:
      return kGotcha;
    case Kind::engine:
      return kEngine;
    case Kind::oracle:
      return kOracle;
    case Kind::result:
      return kResult;
    case Kind::setting:
      return kSetting;
    case Kind::model:
      return kModel;
  }
  return kGotcha;
}

const std::vector<const Struct*>& nested_structs() {
  static const std::vector<const Struct*> all = {
      &kCitation,       &kEngineRange,  &kFixChain,         &kDetection,
      &kImpact,         &kRepair,       &kRelation,         &kPackage,
      &kImage,          &kEntrypoint,   &kRelease,          &kProbe,
      &kIssueCitation,  &kPrCitation,   &kSettingValue,     &kEngineSpelling,
      &kFlagSpelling,   &kEnvSpelling,  &kJsonSpelling,     &kKeySpelling,
      &kSettingDefault, &kSubject,      &kSubjectEngine,    &kRunner,
      &kFailure,        &kResourcePods, &kPlatformResource, &kChartValues,
      &kDerivation,     &kSignature,    &kShellFunction};
  return all;
}

const Field* find_field(const Struct& s, std::string_view name) {
  auto it = std::find_if(s.fields.begin(), s.fields.end(),
                         [&](const Field& f) { return f.name == name; });
  return it == s.fields.end() ? nullptr : &*it;
}

std::vector<std::string> field_names(const Struct& s) {
  std::vector<std::string> out;
  for (const auto& f : s.fields) out.emplace_back(f.name);
  return out;
}

const std::vector<PredicateForm>& predicate_forms() {
  static const std::vector<PredicateForm> forms = {
      {"engine", "{engine: vllm} / {engine: vllm, versions: \">=0.26, <0.28\"}",
       "the service runs that engine (in that range)"},
      {"config", "{config: {KEY: VALUE, ...}}",
       "each KEY's effective value (set explicitly, else the engine's default for its "
       "version) equals VALUE, both normalised by the setting's type"},
      {"config", "{config: {KEY: {in: [A, B]}}} (also not_in, ne, gt, gte, lt, lte)",
       "a comparison; gt, gte, lt and lte compare numbers"},
      {"config_set", "{config_set: [KEY, ...]}", "each KEY is set explicitly, not by a default"},
      {"role", "{role: decode} / {role: [prefill, decode]}",
       "the service has one of these roles (values of settings/role)"},
      {"model", "{model: {TRAIT: VALUE}}", "like config, for settings of scope model"},
      {"hardware", "{hardware: {KEY: VALUE}}", "like config, for settings of scope hardware"},
      {"differs", "{differs: KEY} / {differs: [K1, K2]} / {differs: {engine: vllm}}",
       "some prefill service and some decode service differ in a KEY's effective value (or in "
       "that engine's version)"},
      {"compare", "{compare: [decode.tensor_parallel_size, \">\", num_kv_heads]}",
       "A OP B, where A and B are a KEY (this service), ROLE.KEY (any service of that role) "
       "or a literal, and OP one of == != < <= > >="},
      {"all", "{all: [P, ...]}", "every P holds"},
      {"any", "{any: [P, ...]}", "at least one P holds"},
      {"not", "{not: P}", "P does not hold"},
      {"any_service", "{any_service: {all: [{role: router}, {config: {kv_events: true}}]}}",
       "some service of the same serving graph (this one included) satisfies P: a clause over "
       "the whole deployment; `{not: {any_service: P}}` says no service does"},
  };
  return forms;
}

const std::vector<std::string_view>& config_operators() {
  static const std::vector<std::string_view> ops = {"eq", "ne",  "in", "not_in",
                                                    "gt", "gte", "lt", "lte"};
  return ops;
}

const std::vector<std::string_view>& compare_operators() {
  static const std::vector<std::string_view> ops = {"==", "!=", "<", "<=", ">", ">="};
  return ops;
}

const std::vector<std::string_view>& setting_types() {
  return find_field(kSetting, "type")->values;
}

}  // namespace kb::schema
