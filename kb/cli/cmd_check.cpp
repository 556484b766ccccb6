#include <fstream>
#include <iostream>
#include <sstream>

#include "check_json.h"
#include "commands.h"
#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/evidence.h"

namespace kb::cli {
namespace {

struct CheckConfig {
  std::string records = "records";
  std::string deployment;
  std::string format = "text";
  std::string fail_on = "blocker";
  std::string ignore;
  std::string today;
  bool allow_unknown = false;
  bool allow_invalid_records = false;
};

// Reads an input file of at most kMaxDeploymentBytes; a diagnostic when it cannot.
std::optional<std::string> read_input(const std::string& path, std::vector<Diagnostic>& diags) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags.push_back({Severity::error, "io.read", path, 0, 0, "cannot open the file", "", ""});
    return std::nullopt;
  }
  std::string text(kMaxDeploymentBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) {
    diags.push_back({Severity::error, "io.read", path, 0, 0, "cannot read the file", "", ""});
    return std::nullopt;
  }
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

void print_finding(std::ostream& out, const Finding& f, const std::string& label) {
  out << label << std::string(label.size() < 9 ? 9 - label.size() : 1, ' ') << f.id
      << (f.possible ? "  (possible)" : "") << "\n";
  out << "         " << f.title << "\n";
  out << "         status " << f.status << ", evidence " << f.evidence << "\n";
  if (!f.service.empty()) out << "         service: " << f.service << "\n";
  for (std::size_t i = 0; i < f.why.size(); ++i) {
    out << (i == 0 ? "         why: " : "              ") << f.why[i] << "\n";
  }
  for (std::size_t i = 0; i < f.locations.size(); ++i) {
    const Location& l = f.locations[i];
    out << (i == 0 ? "         at:  " : "              ") << l.file << ":" << l.pos.line << ":"
        << l.pos.column << "\n";
  }
  if (!f.ignore_reason.empty()) {
    out << "         ignored: " << f.ignore_reason
        << (f.ignore_expires.empty() ? "" : " (until " + f.ignore_expires + ")") << "\n";
  }
}

void print_text(const CheckReport& report) {
  for (const auto& d : report.diagnostics) std::cerr << format_diagnostic(d) << "\n";
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& f : report.findings) {
    if (auto s = parse_gotcha_severity(f.severity)) ++counts[static_cast<int>(*s)];
  }
  std::ostringstream summary;
  for (auto s : {GotchaSeverity::blocker, GotchaSeverity::major, GotchaSeverity::minor,
                 GotchaSeverity::info}) {
    std::size_t n = counts[static_cast<int>(s)];
    if (n) summary << (summary.tellp() > 0 ? ", " : "") << n << " " << to_string(s);
  }
  std::cout << report.deployment.file << ": " << report.findings.size()
            << (report.findings.size() == 1 ? " finding" : " findings")
            << (summary.tellp() > 0 ? " (" + summary.str() + ")" : "");
  if (!report.ignored.empty()) std::cout << ", " << report.ignored.size() << " ignored";
  std::cout << "\n";
  for (const auto& f : report.findings) {
    std::cout << "\n";
    print_finding(std::cout, f, f.severity);
  }
  for (const auto& f : report.ignored) {
    std::cout << "\n";
    print_finding(std::cout, f, "ignored");
  }
}

void print(const CheckReport& report, const std::string& format) {
  if (format == "json") {
    std::cout << json::findings_json(report).dump(2) << "\n";
  } else if (format == "sarif") {
    std::cout << json::sarif_json(report).dump(2) << "\n";
  } else {
    print_text(report);
  }
}

int run_check(const CheckConfig& cfg) {
  CheckReport report;
  report.deployment.file = cfg.deployment;
  auto& diags = report.diagnostics;
  Deployment deployment;
  if (auto text = read_input(cfg.deployment, diags)) {
    deployment = parse_deployment(*text, cfg.deployment, diags);
  }
  IgnoreList ignores;
  if (!cfg.ignore.empty()) {
    if (auto text = read_input(cfg.ignore, diags))
      ignores = parse_ignore_file(*text, cfg.ignore, diags);
  }
  if (count_severity(diags, Severity::error) > 0) {
    report.deployment = deployment;
    if (cfg.format == "text") {
      for (const auto& d : diags) std::cerr << format_diagnostic(d) << "\n";
    } else {
      print(report, cfg.format);
    }
    return kExitUsage;
  }
  auto corpus = Corpus::load(cfg.records);
  EvidenceIndex evidence = EvidenceIndex::build(*corpus);
  CheckIndex index = CheckIndex::build(*corpus, evidence);
  // The gate fails closed: a knowledge base that did not load whole, or holds no gotchas,
  // cannot say "0 findings".
  if (std::size_t errors = count_severity(corpus->diagnostics(), Severity::error)) {
    diags.push_back({cfg.allow_invalid_records ? Severity::warning : Severity::error,
                     "check.records-invalid", cfg.records, 0, 0,
                     "the knowledge base has " + std::to_string(errors) +
                         " lint errors; gotchas in broken files are missing",
                     "run `kb lint`; --allow-invalid-records checks against what loaded", ""});
  }
  if (index.size() == 0) {
    diags.push_back({Severity::error, "check.empty-knowledge-base", cfg.records, 0, 0,
                     "the knowledge base holds no gotchas", "point --records at the records/ tree",
                     ""});
  }
  CheckReport checked = index.run(deployment, {cfg.allow_unknown});
  index.apply_ignores(checked, ignores, cfg.today);
  diags.insert(diags.end(), checked.diagnostics.begin(), checked.diagnostics.end());
  checked.diagnostics = std::move(diags);
  print(checked, cfg.format);
  if (count_severity(checked.diagnostics, Severity::error) > 0) return kExitUsage;
  return fails(checked, *parse_gotcha_severity(cfg.fail_on)) ? kExitProblems : kExitOk;
}

}  // namespace

void add_check(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<CheckConfig>();
  auto* sub = app.add_subcommand("check", "Which gotchas hit this deployment");
  sub->add_option("deployment", cfg->deployment, "Deployment file (YAML or JSON)")->required();
  add_records_option(sub, cfg->records);
  add_format_option(sub, cfg->format, {"text", "json", "sarif"});
  sub->add_option("--fail-on", cfg->fail_on, "Exit 1 when a finding is at least this severe")
      ->check(CLI::IsMember({"blocker", "major", "minor", "info"}))
      ->capture_default_str();
  sub->add_option("--ignore", cfg->ignore, "Ignore file: ignore: [{id, reason, expires}]");
  sub->add_flag("--allow-unknown", cfg->allow_unknown,
                "Unknown engines and settings, and values that do not normalise, are warnings "
                "instead of errors (exit 2)");
  sub->add_flag("--allow-invalid-records", cfg->allow_invalid_records,
                "Check against what loaded when the knowledge base has lint errors, instead of "
                "failing (exit 2)");
  add_date_option(sub, "--today", cfg->today,
                  "Date ignore expiries are measured against (YYYY-MM-DD; default today, UTC)");
  sub->callback([&run, cfg] { run = [cfg] { return run_check(*cfg); }; });
}

}  // namespace kb::cli
