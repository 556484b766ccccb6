#include "kb/results_import.h"
#include "kb/diagnostic_codes.h"
#include "kb/text.h"

#include <cctype>
#include <charconv>
#include <initializer_list>
#include <string>

#include "edit/results_internal.h"
#include "yaml/yaml_tree.h"

namespace kb {

namespace results_detail {

namespace {
constexpr std::size_t kMaxFailingNames = 1000;
}  // namespace

Diagnostic report_diag(Severity sev, std::string code, const std::string& file, Pos pos,
                       std::string message, std::string hint) {
  Diagnostic d;
  d.severity = sev;
  d.code = std::move(code);
  d.file = file;
  d.line = pos.line;
  d.column = pos.column;
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

void note_failing(TestCounts& c, std::string name) {
  if (c.failing.size() < kMaxFailingNames) c.failing.push_back(std::move(name));
}

void finish(ReportParse& out, const std::string& file) {
  const TestCounts& c = *out.counts;
  if (c.total() == 0) {
    out.diagnostics.push_back(report_diag(Severity::error, diag_code("results.empty"), file, Pos{},
                                          "the report holds no test results",
                                          "was the test run collected at all?"));
    out.counts.reset();
  } else if (c.passed + c.failed == 0) {
    out.diagnostics.push_back(report_diag(
        Severity::warning, diag_code("results.inconclusive"), file, Pos{},
        "no test case passed or failed (" + std::to_string(c.errors) + " errors, " +
            std::to_string(c.skipped) + " skipped): the result is neither evidence nor control"));
  }
  sort_diagnostics(out.diagnostics);
}

bool size_ok(std::string_view text, const std::string& file, const ReportLimits& limits,
             ReportParse& out) {
  if (text.size() <= limits.max_bytes) return true;
  out.diagnostics.push_back(report_diag(
      Severity::error, diag_code("limits.file-size"), file, Pos{},
      "the report is larger than the limit of " + std::to_string(limits.max_bytes) + " bytes",
      "split the report, or raise --max-report-bytes if it is genuine"));
  return false;
}

}  // namespace results_detail

namespace {

using results_detail::finish;
using results_detail::note_failing;
using results_detail::report_diag;

// ---- JSON summary (read with the YAML tree: JSON is YAML) ---------------------------

class JsonReader {
 public:
  JsonReader(const std::string& file, const ReportLimits& limits) : file_(file), limits_(limits) {}

  ReportParse read(std::string_view text) {
    ReportParse out;
    out.format = ReportFormat::json;
    if (!results_detail::size_ok(text, file_, limits_, out)) return out;
    yaml::Limits yaml_limits;
    yaml_limits.max_bytes = limits_.max_bytes;
    yaml_limits.max_depth = limits_.max_depth;
    yaml::Node root;
    if (!yaml::parse(text, file_, yaml_limits, root, out.diagnostics)) return out;
    TestCounts counts;
    bool ok = false;
    if (root.is_seq()) {
      ok = read_cases(root, counts, out.diagnostics);
    } else if (root.is_map()) {
      ok = read_map(root, counts, out.diagnostics);
    } else {
      out.diagnostics.push_back(
          shape(root, "expected an object or a list, found " + std::string(yaml::type_name(root))));
    }
    if (ok) {
      out.counts = std::move(counts);
      finish(out, file_);
    }
    sort_diagnostics(out.diagnostics);
    return out;
  }

 private:
  Diagnostic shape(const yaml::Node& n, std::string message) const {
    return report_diag(Severity::error, diag_code("results.bad-shape"), file_, n.pos,
                       std::move(message),
                       "expected {\"passed\": N, \"failed\": M, \"errors\": E, \"skipped\": S} "
                       "or [{\"name\": ..., \"outcome\": \"passed\"}, ...]");
  }

  // The count a map gives for one outcome under any of its spellings; -1 when absent.
  std::int64_t number(const yaml::Node& map, std::initializer_list<const char*> keys,
                      std::vector<Diagnostic>& diags, bool& ok) const {
    for (const char* key : keys) {
      const yaml::Node* n = map.find(key);
      if (n == nullptr) continue;
      std::int64_t value = -1;
      if (n->is_scalar()) {
        auto [end, ec] = std::from_chars(n->value.data(), n->value.data() + n->value.size(), value);
        if (ec != std::errc() || end != n->value.data() + n->value.size()) value = -1;
      }
      if (value < 0) {
        diags.push_back(report_diag(Severity::error, diag_code("results.bad-count"), file_, n->pos,
                                    std::string("'") + key + "' must be a whole number >= 0"));
        ok = false;
      }
      return value;
    }
    return -1;
  }

  bool read_map(const yaml::Node& root, TestCounts& c, std::vector<Diagnostic>& diags) {
    const yaml::Node* summary = root.find("summary");
    const yaml::Node& counts = summary != nullptr && summary->is_map() ? *summary : root;
    bool ok = true;
    const std::int64_t passed = number(counts, {"passed", "pass"}, diags, ok);
    const std::int64_t failed = number(counts, {"failed", "failures", "fail"}, diags, ok);
    const std::int64_t errors = number(counts, {"errors", "error"}, diags, ok);
    const std::int64_t skipped = number(counts, {"skipped", "skip"}, diags, ok);
    std::int64_t total = number(counts, {"total"}, diags, ok);
    const yaml::Node* tests = root.find("tests");
    if (total < 0 && tests != nullptr && tests->is_scalar())
      total = number(root, {"tests"}, diags, ok);
    if (!ok) return false;
    const bool has_counts = passed >= 0 || failed >= 0;
    if (tests != nullptr && tests->is_seq()) {
      if (!read_cases(*tests, c, diags)) return false;
      if (has_counts) compare(counts, passed, failed, errors, skipped, c, diags);
      return true;
    }
    if (!has_counts) {
      diags.push_back(shape(root, "no 'passed' or 'failed' count and no 'tests' list"));
      return false;
    }
    c.passed = std::max<std::int64_t>(passed, 0);
    c.failed = std::max<std::int64_t>(failed, 0);
    c.errors = std::max<std::int64_t>(errors, 0);
    c.skipped = std::max<std::int64_t>(skipped, 0);
    if (total >= 0 && total != c.total()) {
      diags.push_back(
          report_diag(Severity::warning, diag_code("results.count-mismatch"), file_, counts.pos,
                      "total is " + std::to_string(total) + " but the counts add up to " +
                          std::to_string(c.total()) + "; using the counts"));
    }
    return true;
  }

  void compare(const yaml::Node& at, std::int64_t passed, std::int64_t failed, std::int64_t errors,
               std::int64_t skipped, const TestCounts& c, std::vector<Diagnostic>& diags) const {
    auto differs = [](std::int64_t said, std::int64_t counted) {
      return said >= 0 && said != counted;
    };
    if (differs(passed, c.passed) || differs(failed, c.failed) || differs(errors, c.errors) ||
        differs(skipped, c.skipped)) {
      diags.push_back(report_diag(
          Severity::warning, diag_code("results.count-mismatch"), file_, at.pos,
          "the counts disagree with the 'tests' list (" + std::to_string(c.passed) + " passed, " +
              std::to_string(c.failed) + " failed, " + std::to_string(c.errors) + " errors, " +
              std::to_string(c.skipped) + " skipped); using the list"));
    }
  }

  bool read_cases(const yaml::Node& list, TestCounts& c, std::vector<Diagnostic>& diags) {
    bool ok = true;
    for (const auto& item : list.items) {
      const yaml::Node* outcome = item.is_map() ? item.find("outcome") : nullptr;
      if (outcome == nullptr && item.is_map()) outcome = item.find("status");
      if (outcome == nullptr || !outcome->is_scalar()) {
        diags.push_back(shape(item, "a test case needs an 'outcome'"));
        ok = false;
        continue;
      }
      std::string name;
      for (const char* key : {"name", "nodeid", "id"}) {
        const yaml::Node* n = item.find(key);
        if (n != nullptr && n->is_scalar()) {
          name = n->value;
          break;
        }
      }
      const std::string o = text::lower(outcome->value);
      if (o == "passed" || o == "pass" || o == "ok" || o == "success") {
        ++c.passed;
      } else if (o == "failed" || o == "fail" || o == "failure") {
        ++c.failed;
        note_failing(c, name);
      } else if (o == "error" || o == "errored" || o == "errors") {
        ++c.errors;
        note_failing(c, name);
      } else if (o == "skipped" || o == "skip") {
        ++c.skipped;
      } else {
        diags.push_back(report_diag(Severity::error, diag_code("results.unknown-outcome"), file_,
                                    outcome->pos, "unknown outcome '" + outcome->value + "'",
                                    "use passed, failed, error or skipped"));
        ok = false;
      }
    }
    return ok;
  }

  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  const ReportLimits& limits_;
};

}  // namespace

std::string_view to_string(ReportFormat f) {
  switch (f) {
    case ReportFormat::junit:
      return "junit";
    case ReportFormat::json:
      return "json";
    case ReportFormat::detect:
      break;
  }
  return "detect";
}

std::optional<ReportFormat> parse_report_format(std::string_view s) {
  if (s == "junit" || s == "xml") return ReportFormat::junit;
  if (s == "json") return ReportFormat::json;
  if (s == "detect" || s == "auto") return ReportFormat::detect;
  return std::nullopt;
}

ReportParse parse_json_summary(std::string_view text, const std::string& file,
                               const ReportLimits& limits) {
  return JsonReader(file, limits).read(text);
}

ReportParse parse_report(std::string_view text, const std::string& file, ReportFormat format,
                         const ReportLimits& limits) {
  if (format == ReportFormat::detect) {
    std::string_view rest = text;
    if (rest.starts_with(text::kUtf8Bom)) rest.remove_prefix(text::kUtf8Bom.size());
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) {
      rest.remove_prefix(1);
    }
    format = !rest.empty() && rest.front() == '<' ? ReportFormat::junit : ReportFormat::json;
  }
  return format == ReportFormat::junit ? parse_junit(text, file, limits)
                                       : parse_json_summary(text, file, limits);
}

}  // namespace kb
