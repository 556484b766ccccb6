#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "kb/diagnostic.h"

namespace kb {

/// What can trigger a diagnostic code; decides where its example lives in tests/data/.
enum class CodeScope {
  record,      ///< one record file on its own (syntax, limits, schema): tests/data/invalid/
  tree,        ///< a record among the others (ids, references, vocabulary, evidence): same
  deployment,  ///< what `kb check` and `POST /api/v1/check` read: tests/data/deployments/ etc.
  input,       ///< another input: a test report, a prompts file, a plain-text import, a repair
};

/// "record", "tree", "deployment" or "input".
std::string_view to_string(CodeScope s);

/// One registered diagnostic code and its documentation.
struct CodeInfo {
  std::string_view code;     ///< "schema.unknown-field"
  Severity severity;         ///< the usual severity; some emitters downgrade or upgrade it
  CodeScope scope;           ///< what can trigger it
  std::string_view meaning;  ///< one line: what is wrong
  std::string_view fix;      ///< one line: how it is usually fixed
};

namespace code_table {

using enum Severity;
using enum CodeScope;

// Sorted by code. Every code kb emits is here, and only here: emitting code names it
// through diag_code(), which does not compile for a code missing from this table.
inline constexpr CodeInfo kCodes[] = {
    {"check.bad-value", error, deployment, "a setting's value does not normalise to its type",
     "write a value of the setting's type (see `kb show settings/KEY`)"},
    {"check.conflicting-setting", error, deployment,
     "one setting is given two different values (e.g. a flag and its synonym)",
     "keep one spelling of the setting"},
    {"check.diagnostics-truncated", note, deployment,
     "a checked deployment had more diagnostics than an answer lists; the rest are counted",
     "fix the ones listed, or run `kb check` locally for all of them"},
    {"check.empty-deployment", error, deployment, "the deployment names no engine at all",
     "list the engines under `engines:`"},
    {"check.empty-knowledge-base", error, deployment,
     "the knowledge base holds no gotcha, so no check can fail",
     "point --records or --db at the real knowledge base"},
    {"check.endpoint-invalid", error, input, "an --endpoint value is not a server URL",
     "write http://host:port or ROLE=http://host:port"},
    {"check.endpoint-unreachable", error, input, "a server named by --endpoint does not answer",
     "check the URL and that the server is up"},
    {"check.ignore-bad-date", error, deployment, "an ignore entry's `expires` is not YYYY-MM-DD",
     "write e.g. expires: 2026-12-31"},
    {"check.ignore-expired", warning, deployment,
     "an ignore entry has expired, so the gotcha counts again", "renew or remove the entry"},
    {"check.ignore-missing-id", error, deployment, "an ignore entry names no gotcha",
     "write `id: GOTCHA`"},
    {"check.ignore-missing-reason", error, deployment, "an ignore entry gives no reason",
     "say why the gotcha does not apply in `reason:`"},
    {"check.ignore-unused", warning, deployment,
     "an ignore entry names a gotcha that does not hit the deployment",
     "remove the entry, or fix the id"},
    {"check.missing-engine", error, deployment, "an engine entry has no engine name",
     "write `engine: NAME`"},
    {"check.nested-config", error, deployment,
     "a config value is a collection where a setting takes one value",
     "write one scalar per setting"},
    {"check.normalized", note, deployment,
     "a synonym or spelling was normalised to the setting's key and canonical value",
     "nothing to fix; write the canonical form to silence it"},
    {"check.numeric-version", error, deployment,
     "a version is a JSON number, which loses digits (0.10 reads as 0.1)",
     "quote the version as a string"},
    {"check.records-invalid", error, deployment,
     "the knowledge base did not load whole, so the check would fail open",
     "run `kb lint` and fix the broken records"},
    {"check.type", error, deployment, "a deployment field has the wrong YAML/JSON type",
     "see the deployment shape in README.md"},
    {"check.unknown-engine", error, deployment, "the deployment names an engine kb does not know",
     "use an engine id or alias (did-you-mean is in the hint), or --allow-unknown"},
    {"check.unknown-field", error, deployment, "a deployment field kb does not know",
     "check the spelling against the deployment shape"},
    {"check.unknown-setting", error, deployment, "a configuration key no setting record declares",
     "use a declared key or synonym, or add a record under records/settings/"},
    {"deploy.bad-config-file", error, deployment,
     "a config file a service names (a setting's `file_of`) is not a mapping of keys",
     "give the engine's config file in YAML or JSON"},
    {"deploy.bad-image", error, deployment, "a container image reference does not parse",
     "write REGISTRY/NAME:TAG or NAME@sha256:DIGEST"},
    {"deploy.bad-json", error, deployment,
     "a JSON-valued flag (e.g. --kv-transfer-config) does not parse", "fix the JSON"},
    {"deploy.config-file-by-content", note, deployment,
     "a config file no path names is joined to the one service it fits, by its keys",
     "name the file in the service's command or environment as it is given"},
    {"deploy.no-engine", error, deployment, "no engine was found in any of the inputs",
     "pass the manifest, script or image that starts the engine"},
    {"deploy.not-compose", error, deployment, "a compose file has no `services:` mapping",
     "pass the right --input-kind"},
    {"deploy.not-endpoint", error, deployment,
     "an input read as an endpoint document is not one JSON object with kb_endpoint",
     "write it with `kb check --endpoint URL --save-endpoint FILE`"},
    {"deploy.skipped", warning, deployment, "an input was skipped as not a deployment artifact",
     "name its kind with --input-kind"},
    {"deploy.unidentified-endpoint", error, deployment,
     "a running server answered none of the engine records' probe routes",
     "add a `probe:` route to its engine record, or pass --allow-unknown"},
    {"deploy.unidentified-engine", warning, deployment,
     "a command or image looks like an engine kb cannot identify",
     "declare the image or package on the engine record"},
    {"deploy.unknown-kind", error, deployment,
     "an input's kind cannot be told from its name or content", "pass --input-kind"},
    {"detection.bad-regex", error, tree,
     "a log signature's regex is not a valid ECMAScript regular expression",
     "fix the pattern, or give the text as `literal` (matched as written)"},
    {"encoding.nul", error, record, "the file contains a NUL byte", "save it as UTF-8 text"},
    {"encoding.utf8", error, record, "the file is not valid UTF-8", "save it as UTF-8"},
    {"evidence.fixed-but-failing", warning, tree,
     "a gotcha says fixed but a linked result fails on a fixed version",
     "add a passing result on a fixed version, or reopen the gotcha"},
    {"evidence.stale", warning, tree,
     "a record's newest verification is older than --stale-after days",
     "re-run the oracle and link the result"},
    {"evidence.unreproduced-claim", warning, tree,
     "the text claims a result the linked results do not show",
     "link the results or soften the claim"},
    {"file.link-outside", error, deployment,
     "a link in a directory `kb check` reads leads out of that directory, so it is not followed",
     "copy the file into the directory, or name it on the command line"},
    {"file.not-regular", error, input,
     "a `*.yaml` path is a link, FIFO or device, not a regular file", "replace it with a file"},
    {"file.path", error, record,
     "the file's path does not make a record id (namespace folder and slug name)",
     "put it under records/NAMESPACE/ with a lower-case name such as my-gotcha.yaml"},
    {"fixes.missing", warning, tree, "a fixed gotcha has no fix chain",
     "add fixes: [{engine, fixed_in, resolution: fixed}]"},
    {"fixes.range-mismatch", error, tree,
     "a version range that says who is affected (an `affects` entry, an `engine` clause of "
     "`applies_when`, or a cause's own `affected`) includes the first fixed version of the fix "
     "chain; the message names the field",
     "end the range before the fix, e.g. \"<0.9.0\"; a gotcha with a second, unfixed cause "
     "gives each cause its own chain (`cause`, `affected`)"},
    {"fixes.resolution", error, tree,
     "a fix chain gives fixed_in with a resolution that is not fixed, disabled, warned or "
     "documented",
     "set resolution: fixed, disabled, warned or documented"},
    {"fixes.status-mismatch", error, tree,
     "status fixed, but no fix chain gives a first fixed version",
     "write status: mitigated, or give fixed_in"},
    {"fixes.status-open", warning, tree,
     "status open, stale or unknown, but every fix chain is fixed", "write status: fixed"},
    {"id.alias-collision", error, tree, "an alias also names another record",
     "an alias names one record only: remove or rename it"},
    {"id.duplicate", error, tree, "two files define the same record id (`.yaml` and `.yml`)",
     "keep one file per id"},
    {"import.bad-id", error, input, "a plain-text record's id is not a valid gotcha id",
     "write a lower-case slug such as my-gotcha"},
    {"import.duplicate-section", error, input, "a plain-text record repeats a section",
     "merge the two sections"},
    {"import.empty", error, input, "the plain-text file is empty", "pass the right file"},
    {"import.empty-section", warning, input, "a plain-text section has no text",
     "write its text or drop it"},
    {"import.missing-id", error, input, "a plain-text record has no `id` section first",
     "start the record with its id section"},
    {"import.missing-section", error, input, "a required plain-text section is missing",
     "add the section (the hint names it)"},
    {"import.multiple-records", error, input, "the plain-text file holds several records",
     "one record per file"},
    {"import.not-utf8", error, input, "the plain-text file is not UTF-8", "save it as UTF-8"},
    {"import.nul", error, input, "the plain-text file contains a NUL byte", "save it as text"},
    {"import.unknown-section", error, input, "a plain-text section kb does not know",
     "check the section name (did-you-mean is in the hint)"},
    {"io.read", error, input, "a file or directory could not be read",
     "check the path and permissions"},
    {"limits.check-answer", error, deployment,
     "a single check's answer would pass its budget (1 MiB plus 16 bytes per byte of body, at "
     "most 16 MiB): HTTP 413",
     "check the deployment in parts"},
    {"limits.check-facts", error, deployment,
     "a single check names more engines, settings and services than its budget (1,000 plus one "
     "per 8 bytes of body, at most 20,000): HTTP 413",
     "check the deployment in parts"},
    {"limits.check-time", error, deployment,
     "a single check ran past its time limit (10 s) or its client left: HTTP 503",
     "send a smaller deployment, or run `kb check` locally"},
    {"limits.depth", error, record, "collections nest deeper than the limit (64)",
     "flatten the structure"},
    {"limits.directory", error, deployment,
     "a directory `kb check` reads holds more than 10,000 files or 64 MiB",
     "check the deployment's own folder, or name its files"},
    {"limits.endpoint-answer", error, input,
     "a server named by --endpoint answered past a budget: a body over 4 MiB, over 9 MiB on the "
     "wire, JSON nested deeper than 64, or not within the deadline",
     "check that the URL is the server's; raise --endpoint-timeout for a slow one"},
    {"limits.expansion", error, record,
     "the input expands (YAML aliases, shell or Kubernetes variables, copied environments) to "
     "more text than its budget (16x its size, at least 1 MiB; 4 KiB for a record)",
     "remove the self-doubling alias or variable"},
    {"limits.file-size", error, record, "the file is larger than the limit (4 MiB for a record)",
     "split long text, or raise --max-file-bytes"},
    {"limits.nodes", error, record,
     "the document expands (aliases included) to more nodes than the limit (200,000)",
     "remove the alias expansion"},
    {"predicate.bad-operator", error, tree,
     "an ordering operator (gt, lt, ...) on a setting that is not a number or version",
     "use eq, ne, in or not_in"},
    {"predicate.bad-value", error, tree, "a predicate value is not of its setting's type",
     "write a value the setting declares (see `kb show settings/KEY`)"},
    {"predicate.invalid", error, record, "a predicate does not have a known shape",
     "see the predicate forms in records/README.md"},
    {"predicate.never-matches", error, tree,
     "a predicate value can never match (e.g. a pattern compared as text)",
     "values match exactly; use config_set to test that a setting is set"},
    {"predicate.unknown-operator", error, record, "a predicate uses an operator kb does not know",
     "use one of the operators in records/README.md"},
    {"predicate.unreachable", warning, tree,
     "a predicate tests a setting that no artifact kb reads can set (no engine spelling, "
     "default, derivation, implying value or model trait)",
     "add the engine's spelling or a `derive:` rule to the settings record"},
    {"prompts.bad-shape", error, input,
     "a prompts line is not {\"prompt\": ...} or {\"messages\": [...]}", "fix the line's shape"},
    {"prompts.empty", error, input, "the prompts file holds no prompt",
     "add one JSON line per prompt"},
    {"prompts.syntax", error, input, "a prompts line is not valid JSON",
     "one JSON object per line"},
    {"prompts.too-many", error, input, "the prompts file holds more prompts than the limit",
     "split the file"},
    {"prompts.unknown-field", error, input, "a prompts line has a field kb does not know",
     "keep prompt or messages"},
    {"ref.ambiguous", error, tree, "a reference names several records", "write the full id"},
    {"ref.dangling", error, tree, "a reference names no record",
     "fix the id (did-you-mean is in the hint; `kb repair --write` applies a sure one)"},
    {"ref.wrong-namespace", error, tree,
     "a reference names a record of another namespace than its field takes",
     "reference a record of the field's namespace"},
    {"repair.not-in-place", error, input,
     "a repair cannot be applied by editing the scalar in place", "edit the file by hand"},
    {"repair.stale", error, input, "the file changed while it was being repaired; nothing written",
     "run kb repair again"},
    {"repair.unsound", error, input,
     "the edited file would not re-read as intended; nothing written", "edit the file by hand"},
    {"results.bad-count", error, input, "a test report's count is not a non-negative integer",
     "fix the report"},
    {"results.bad-shape", error, input, "a test report is neither JUnit XML nor a JSON summary",
     "pass a JUnit XML report or a JSON summary"},
    {"results.count-mismatch", error, input, "a test report's totals disagree with its test cases",
     "fix the report"},
    {"results.empty", error, input, "the test report is empty", "pass the right file"},
    {"results.inconclusive", error, input, "the test report ran no comparison",
     "run the oracle before importing"},
    {"results.malformed", error, input, "the JUnit XML does not parse", "fix the XML"},
    {"results.unknown-outcome", error, input,
     "a test case's outcome is not pass, fail, error or skip", "fix the report"},
    {"runner.bad-param", error, record, "an oracle runner's parameter has a bad value",
     "see the runner's parameters in records/README.md"},
    {"runner.unknown-param", error, record, "an oracle runner has no parameter of that name",
     "check the spelling (did-you-mean is in the hint)"},
    {"schema.date", error, record, "a date is not YYYY-MM-DD", "write e.g. 2026-05-01"},
    {"schema.empty-value", error, record, "a field is present but empty",
     "fill it in or remove it"},
    {"schema.enum", error, record, "a value is not one of the field's allowed values",
     "use one of the values the message lists"},
    {"schema.id-mismatch", error, record, "an `id:` field disagrees with the file name",
     "the file name is the id: rename the file or drop the field"},
    {"schema.inconsistent", error, record, "fields of one record contradict each other",
     "make the counts and lists agree"},
    {"schema.invalid-key", error, record, "a mapping key is not a valid name for its field",
     "use a lower-case key such as kv_transfer"},
    {"schema.missing-field", error, record, "a required field is missing",
     "add the field (see the namespace's fields in records/README.md)"},
    {"schema.type", error, record, "a value has the wrong type (a list where a text goes, ...)",
     "write the type records/README.md gives the field"},
    {"schema.unknown-field", error, record, "a field the namespace does not have",
     "check the spelling (did-you-mean is in the hint)"},
    {"schema.url", error, record, "a URL is not an absolute http(s) URL", "write https://..."},
    {"setting.bad-default", error, tree,
     "a default gives both a value and what the engine derives it from",
     "keep `value` for a fixed default, `derived` for one the engine works out when it starts"},
    {"setting.bad-invert", error, tree, "invert is given on a spelling of a non-bool setting",
     "invert is for bool settings"},
    {"setting.bad-key", error, tree, "a setting's key is not lower-case letters, digits and '_'",
     "e.g. prefix_caching"},
    {"setting.bad-takes-value", error, tree,
     "takes_value is given on a spelling of a non-bool setting",
     "drop it: flags of other types always take the next word as their value"},
    {"setting.bad-value", error, tree,
     "a setting's value (a default, a spelling's value, an entry point's role) is not of its "
     "type",
     "write a value of the setting's type"},
    {"setting.duplicate-value", error, tree, "an enum setting lists a value twice",
     "values compare case- and '-'/'_'-insensitively: keep one"},
    {"setting.in-names-collision", error, tree,
     "a word of a value's in_names is also in another value's in_names",
     "a workload name with that word would take two values: keep the word in one value"},
    {"setting.key-collision", error, tree, "a key or synonym also names another setting",
     "every key and synonym names one setting only"},
    {"setting.missing-role", error, tree,
     "roles are used, but no settings record declares them, or the `role` record lacks a "
     "role kb check has mechanisms for (prefill, decode, both)",
     "keep records/settings/role.yaml with at least the values prefill, decode and both"},
    {"setting.no-values", error, tree, "an enum setting lists no values", "values: [a, b]"},
    {"setting.symptom-shape", error, tree,
     "a symptom setting is not an enum of single search words, or says how engines spell it",
     "scope: symptom takes type: enum and values whose value and synonyms are one word each "
     "(no engines, derive or file_of)"},
    {"setting.values-not-enum", error, tree, "a setting that is not an enum lists values",
     "type: enum, or drop values"},
    {"setting.wrong-scope", error, tree,
     "a setting is tested or given where its scope does not belong",
     "test service settings under config:, engine settings under their scope"},
    {"version.invalid", error, record, "a version or version range does not parse",
     "see the version grammar in records/README.md"},
    {"yaml.duplicate-key", error, record, "a mapping has the same key twice", "keep one"},
    {"yaml.empty", error, record, "the file holds no YAML document",
     "a record is a mapping such as `title: ...`"},
    {"yaml.multiple-documents", error, record, "the file holds more than one YAML document",
     "one record per file: remove the `---` separator"},
    {"yaml.not-mapping", error, record, "the document is not a mapping",
     "a record is a mapping such as `title: ...`"},
    {"yaml.syntax", error, record, "the YAML does not parse",
     "fix the syntax at the position given"},
    {"yaml.tab", error, record, "a tab character in indentation", "indent with spaces"},
    {"yaml.unterminated-string", error, record, "a quoted string is never closed",
     "close the quote"},
};

consteval bool registered(std::string_view code) {
  for (const CodeInfo& c : kCodes) {
    if (c.code == code) return true;
  }
  return false;
}

// Not constexpr: reaching it in a constant evaluation is the compile error.
inline void unregistered_diagnostic_code() {}

}  // namespace code_table

/// Every registered code, sorted by code.
constexpr std::span<const CodeInfo> diagnostic_codes() {
  return code_table::kCodes;
}

/// The registered code `code`, or nullptr.
const CodeInfo* find_code(std::string_view code);

/// `code` itself, checked at compile time: a code missing from the registry does not
/// compile. Emitting code writes `diag_code("ref.dangling")`, never a bare literal.
consteval const char* diag_code(const char* code) {
  if (!code_table::registered(code)) code_table::unregistered_diagnostic_code();
  return code;
}

/// The registered code `word` is plausibly a misspelling of, for a did-you-mean hint.
std::optional<std::string> suggest_code(std::string_view word);

/// The documentation of one code, as `kb explain CODE` prints it.
std::string explain_code(const CodeInfo& info);

/// The Markdown table of every code, as README.md's generated section holds it.
std::string codes_markdown();

}  // namespace kb
