#include "oracle_output.h"

#include <iostream>

#include "commands.h"

namespace kb::cli {

using nlohmann::json;

namespace {

constexpr int kBarWidth = 30;
constexpr int kExitInterrupted = 130;

}  // namespace

void Progress::update(std::size_t finished, std::size_t total, const oracle::Tally& t) {
  std::lock_guard<std::mutex> lock(mu_);
  if (total == 0) return;
  if (tty_) {
    const int filled = static_cast<int>(kBarWidth * finished / total);
    std::cerr << "\r" << label_ << " [" << std::string(filled, '#')
              << std::string(kBarWidth - filled, '.') << "] " << finished << "/" << total << "  "
              << t.failed << " failed, " << t.errors << (t.errors == 1 ? " error " : " errors ")
              << std::flush;
    drawn_ = true;
    return;
  }
  const std::size_t step = std::max<std::size_t>(1, total / 10);
  if (finished % step != 0 && finished != total) return;
  std::cerr << "kb oracle run: " << label_ << ": " << finished << "/" << total << " done ("
            << counts_text(t) << ")\n";
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) std::cerr << "\n";
  drawn_ = false;
}

std::string counts_text(const oracle::Tally& t) {
  return std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed, " +
         std::to_string(t.errors) + (t.errors == 1 ? " error" : " errors") +
         (t.skipped > 0 ? ", " + std::to_string(t.skipped) + " not run" : std::string());
}

json run_json(const OracleRun& run) {
  const ResultSpec& r = run.result;
  json engines = json::array();
  for (const auto& e : r.subject.engines) {
    json item = {{"engine", e.raw}};
    if (!e.versions.empty()) item["version"] = e.versions;
    engines.push_back(std::move(item));
  }
  json config = json::object();
  for (const auto& [k, v] : r.subject.config) config[k] = v;
  json subject = {{"engines", std::move(engines)}, {"config", std::move(config)}};
  if (!r.subject.model.empty()) subject["model"] = r.subject.model;
  json failures = json::array();
  for (const auto& f : r.failures) {
    json item = {{"prompt", f.prompt},     {"trial", f.trial},       {"position", f.position},
                 {"compared", f.compared}, {"expected", f.expected}, {"got", f.got}};
    if (f.run > 0) item["run"] = f.run;
    failures.push_back(std::move(item));
  }
  json tests = json::array();
  for (const auto& o : run.report.outcomes) {
    json item = {{"name", oracle::case_name(o, run.spec.trials)},
                 {"prompt", o.prompt},
                 {"trial", o.trial},
                 {"outcome", std::string(oracle::to_string(o.verdict))}};
    if (!o.message.empty()) item["message"] = o.message;
    if (o.verdict == oracle::Verdict::failed) item["position"] = o.failure.position;
    tests.push_back(std::move(item));
  }
  json j = {{"id", r.id},
            {"oracle", r.oracle},
            {"date", r.date},
            {"title", r.title},
            {"runner", run.spec.describe()},
            {"subject", std::move(subject)},
            {"passed", r.counts.passed},
            {"failed", r.counts.failed},
            {"errors", r.counts.errors},
            {"skipped", r.counts.skipped},
            {"incomplete", r.incomplete},
            {"evidence_for", r.evidence_for},
            {"failures", std::move(failures)},
            {"tests", std::move(tests)},
            {"record", run.yaml}};
  if (!run.file.empty()) j["file"] = run.file;
  return j;
}

int exit_code(const std::vector<OracleRun>& runs, bool interrupted) {
  if (interrupted) return kExitInterrupted;
  bool failed = false;
  bool errors = false;
  for (const auto& r : runs) {
    failed = failed || r.report.tally.failed > 0;
    errors = errors || r.report.tally.errors > 0;
  }
  return failed ? kExitProblems : errors ? kExitUsage : kExitOk;
}

}  // namespace kb::cli
