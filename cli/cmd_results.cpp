#include <iostream>

#include "commands.h"
#include "json.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/file_read.h"
#include "kb/results_import.h"

namespace kb::cli {
namespace {

struct ImportConfig {
  std::string report;
  std::string records = "records";
  std::string oracle;
  std::string subject;
  std::vector<std::string> config;
  std::vector<std::string> evidence_for;
  std::string id;
  std::string date;
  std::string title;
  std::string source;
  std::string notes;
  std::string report_format = "detect";
  std::string format = "text";
  bool dry_run = false;
  std::size_t max_report_bytes = ReportLimits{}.max_bytes;
};

// What the import did to one gotcha it is evidence for.
struct StateChange {
  std::string gotcha;
  Reproduction before;
  Reproduction after;
  std::string summary;
};

std::string counts_text(const TestCounts& c) {
  return std::to_string(c.passed) + " passed, " + std::to_string(c.failed) + " failed, " +
         std::to_string(c.errors) + (c.errors == 1 ? " error, " : " errors, ") +
         std::to_string(c.skipped) + " skipped";
}

int run_import(const ImportConfig& cfg) {
  const bool as_json = cfg.format == "json";
  ReportLimits limits;
  limits.max_bytes = cfg.max_report_bytes;
  FileRead read = read_file(cfg.report, named_input_policy(limits.max_bytes));
  if (read.failure == ReadFailure::too_large) {
    Diagnostic d = read_diagnostic(read, cfg.report, limits.max_bytes);
    d.hint = "split the report, or raise --max-report-bytes if it is genuine";
    std::cerr << format_diagnostic(d) << "\n"
              << "kb results import: '" << cfg.report << "' is too large; nothing written\n";
    return kExitUsage;
  }
  if (read.failure) {
    std::cerr << "kb results import: cannot read '" << cfg.report
              << "': " << read_failure_text(read, limits.max_bytes) << "\n";
    return kExitUsage;
  }
  ReportParse report =
      parse_report(read.bytes, cfg.report, parse_report_format(cfg.report_format).value(), limits);
  if (!as_json || !report.counts) {
    for (const auto& d : report.diagnostics) std::cerr << format_diagnostic(d) << "\n";
  }
  if (!report.counts) {
    std::cerr << "kb results import: '" << cfg.report << "' is not a usable "
              << (report.format == ReportFormat::junit ? "JUnit XML report" : "JSON summary")
              << "; nothing written\n";
    return kExitUsage;
  }

  ResultSpec spec;
  spec.id = cfg.id;
  spec.title = cfg.title;
  spec.oracle = cfg.oracle;
  spec.date = cfg.date.empty() ? today_date() : cfg.date;
  spec.subject.engines = parse_subject_spec(cfg.subject);
  for (const auto& c : cfg.config) {
    for (auto& entry : parse_config_spec(c)) spec.subject.config.push_back(std::move(entry));
  }
  spec.evidence_for = cfg.evidence_for;
  if (!cfg.source.empty()) spec.source = citation_from_url(cfg.source);
  spec.counts = *report.counts;
  spec.notes = cfg.notes;

  auto corpus = Corpus::load(cfg.records);
  auto problems = canonicalize(*corpus, spec);
  if (!problems.empty()) {
    for (const auto& p : problems) std::cerr << "kb results import: " << p << "\n";
    return kExitUsage;
  }
  const std::string yaml = result_record_yaml(spec);
  const std::string rel = spec.id + ".yaml";
  // The record must load clean before it is written: a result that lints dirty is no proof.
  auto check = load_record_text(rel, yaml);
  if (!check.record || count_severity(check.diagnostics, Severity::error) > 0) {
    for (const auto& d : check.diagnostics) std::cerr << format_diagnostic(d) << "\n";
    std::cerr << "kb results import: the record would not load; nothing written\n";
    return kExitUsage;
  }
  if (cfg.dry_run) {
    if (as_json) {
      std::cout << json::versioned({{"id", spec.id}, {"record", yaml}}).dump(2) << "\n";
    } else {
      std::cout << yaml;
    }
    return kExitOk;
  }

  const auto before = EvidenceIndex::build(*corpus);
  const std::filesystem::path path = std::filesystem::path(cfg.records) / rel;
  if (!write_new_file(path, yaml)) {
    std::cerr << "kb results import: " << path.string()
              << " already exists; pass --id to name this run\n";
    return kExitProblems;
  }
  auto updated = Corpus::reload(*corpus);
  const auto after = EvidenceIndex::build(*updated);
  std::vector<StateChange> changes;
  for (const auto& g : spec.evidence_for) {
    const auto& s = after.for_gotcha(g);
    changes.push_back({g, before.for_gotcha(g).state, s.state, summary_line(s)});
  }

  if (as_json) {
    nlohmann::json gotchas = nlohmann::json::array();
    for (const auto& c : changes) {
      gotchas.push_back({{"id", c.gotcha},
                         {"before", to_string(c.before)},
                         {"after", to_string(c.after)},
                         {"summary", c.summary}});
    }
    nlohmann::json diags = nlohmann::json::array();
    for (const auto& d : report.diagnostics) diags.push_back(json::diagnostic(d));
    const TestCounts& c = spec.counts;
    std::cout << json::versioned({{"id", spec.id},
                                  {"file", path.generic_string()},
                                  {"format", to_string(report.format)},
                                  {"passed", c.passed},
                                  {"failed", c.failed},
                                  {"errors", c.errors},
                                  {"skipped", c.skipped},
                                  {"gotchas", std::move(gotchas)},
                                  {"diagnostics", std::move(diags)}})
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  std::cout << "wrote " << path.generic_string() << ": " << counts_text(spec.counts) << "\n";
  for (const auto& c : changes) {
    std::cout << "  " << c.gotcha << ": " << to_string(c.before) << " -> " << to_string(c.after)
              << " (" << c.summary << ")\n";
  }
  return kExitOk;
}

}  // namespace

void add_results(CLI::App& app, Action& run) {
  auto* results = app.add_subcommand("results", "Oracle results: the evidence behind gotchas");
  results->require_subcommand(1);
  auto cfg = std::make_shared<ImportConfig>();
  auto* sub = results->add_subcommand(
      "import", "Turn a JUnit XML report or a JSON summary into a result record");
  sub->add_option("file", cfg->report, "The report: JUnit XML, or JSON counts / test list")
      ->required();
  sub->add_option("--oracle", cfg->oracle, "The oracle the tests implement")->required();
  sub->add_option("--subject", cfg->subject,
                  "Engines under test, comma-separated NAME or NAME@VERSION, e.g. "
                  "\"vllm@0.26.0,lmcache\"")
      ->required();
  sub->add_option("--config", cfg->config,
                  "Configuration of the subject, KEY=VALUE[,KEY=VALUE] (repeatable)");
  sub->add_option("--evidence-for", cfg->evidence_for,
                  "A gotcha this result is evidence for (repeatable)");
  sub->add_option("--id", cfg->id, "Result id (default: <oracle>-<subject>-<date>)");
  add_date_option(sub, "--date", cfg->date, "Date of the run, YYYY-MM-DD (default: today, UTC)");
  sub->add_option("--title", cfg->title, "A title for the result");
  sub->add_option("--source", cfg->source,
                  "Where the run is documented: a GitHub issue/PR/commit URL, owner/repo#N, or "
                  "any URL");
  sub->add_option("--notes", cfg->notes, "Notes to keep with the result");
  sub->add_option("--report-format", cfg->report_format, "How to read the report")
      ->check(CLI::IsMember({"detect", "junit", "xml", "json"}))
      ->capture_default_str();
  sub->add_flag("--dry-run", cfg->dry_run, "Print the record instead of writing it");
  sub->add_option("--max-report-bytes", cfg->max_report_bytes, "Refuse reports larger than this")
      ->capture_default_str();
  add_records_option(sub, cfg->records);
  add_format_option(sub, cfg->format, {"text", "json"});
  sub->callback([&run, cfg] { run = [cfg] { return run_import(*cfg); }; });
}

}  // namespace kb::cli
