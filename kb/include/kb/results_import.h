#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

class Corpus;

/// What a test report says, counted per test case.
struct TestCounts {
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::int64_t errors = 0;
  std::int64_t skipped = 0;
  std::vector<std::string> failing;  ///< names of failed or errored cases, in report order
  /// Test cases in the report.
  std::int64_t total() const { return passed + failed + errors + skipped; }
};

/// The formats `kb results import` reads.
enum class ReportFormat {
  detect,  ///< JUnit when the text starts with `<`, else JSON
  junit,   ///< JUnit XML: <testsuites>/<testsuite>/<testcase> with failure/error/skipped
  json,    ///< {"passed": N, "failed": M, ...}, {"summary": {...}}, or [{name, outcome}]
};

/// "detect", "junit", "json".
std::string_view to_string(ReportFormat f);
/// Parses "junit", "xml", "json" or "detect".
std::optional<ReportFormat> parse_report_format(std::string_view s);

/// The outcome of reading one report.
struct ReportParse {
  std::optional<TestCounts> counts;            ///< empty when the report was unusable
  ReportFormat format = ReportFormat::detect;  ///< the format it was read as
  std::vector<Diagnostic> diagnostics;  ///< codes `results.*`, `limits.*`, `yaml.*` (JSON syntax)
};

/// Bounds on a report, so hostile input is reported (`limits.*`), not obeyed.
struct ReportLimits {
  std::size_t max_bytes = 32u << 20;  ///< larger reports are refused (limits.file-size)
  int max_depth = 64;                 ///< XML elements / JSON collections nested (limits.depth)
};

/// Counts the test cases of a JUnit XML report and cross-checks the suites' totals.
ReportParse parse_junit(std::string_view text, const std::string& file,
                        const ReportLimits& limits = {});
/// Reads a JSON summary: counts, a pytest-json-report `summary`, or a list of
/// `{name, outcome}` (also under `tests`).
ReportParse parse_json_summary(std::string_view text, const std::string& file,
                               const ReportLimits& limits = {});
/// Reads a report in `format`, detecting it from the first character when asked.
ReportParse parse_report(std::string_view text, const std::string& file,
                         ReportFormat format = ReportFormat::detect,
                         const ReportLimits& limits = {});

/// A result record about to be written.
struct ResultSpec {
  std::string id;  ///< "results/x"; empty: default_result_id()
  std::string title;
  std::string oracle;  ///< oracle reference
  std::string date;    ///< YYYY-MM-DD
  Subject subject;     ///< engines (RefValue::versions holds the exact version), config, model
  std::vector<std::string> evidence_for;  ///< gotcha references
  std::optional<Citation> source;
  TestCounts counts;
  std::string notes;
  std::vector<Failure> failures;  ///< divergences observed, as `kb oracle run` records them
  bool incomplete = false;        ///< the run was stopped before it finished
};

/// Parses a subject spec: comma-separated engines, each `NAME` or `NAME@VERSION`
/// ("vllm@0.26.0,lmcache"). Throws Error{invalid_argument} naming the bad part.
std::vector<RefValue> parse_subject_spec(std::string_view spec);
/// Parses `KEY=VALUE[,KEY=VALUE...]`. Throws Error{invalid_argument} naming the bad part.
std::vector<ConfigEntry> parse_config_spec(std::string_view spec);
/// A citation for a source URL: GitHub issue, pull request and commit URLs (and the
/// `owner/repo#N` shorthand) become typed references, anything else `{type: url}`.
Citation citation_from_url(std::string_view url);

/// "results/<oracle>-<engines and versions>-<date>", lower-case, `[a-z0-9-]` only.
std::string default_result_id(const ResultSpec& spec);
/// Rewrites the oracle, engines and evidence_for references to the ids they resolve to
/// in `corpus` (engines as their bare slug) and normalises `id`; returns one message per
/// reference that does not resolve or id that is not a valid result id.
std::vector<std::string> canonicalize(const Corpus& corpus, ResultSpec& spec);
/// The YAML text of the result record (id must be set).
std::string result_record_yaml(const ResultSpec& spec);

/// Writes `text` to `path` atomically (temporary file, then link into place), creating
/// parent directories; returns false, writing nothing, when `path` already exists.
/// Throws Error{io} when it cannot write.
bool write_new_file(const std::filesystem::path& path, std::string_view text);

}  // namespace kb
