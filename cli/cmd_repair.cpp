#include <cstdio>
#include <iostream>

#include "commands.h"
#include "json.h"
#include "kb/corpus.h"
#include "kb/evidence.h"
#include "kb/repair.h"
#include "repair_json.h"

namespace kb::cli {
namespace {

struct RepairConfig {
  std::string records = "records";
  bool write = false;
  std::string format = "text";
  RepairPolicy policy;
  std::string today;
};

std::string score(double s) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

void print_text(const RepairPlan& plan, bool write) {
  for (const auto& r : plan.repairs) {
    std::cout << r.file << ":" << r.line << ":" << r.column << ": " << r.field << ": " << r.from
              << " -> " << r.to << " (" << score(r.confidence) << ", "
              << (r.applied ? "applied"
                  : write   ? "not written"
                            : "would apply")
              << ")\n"
              << "    " << r.reason << "\n";
  }
  for (const auto& u : plan.unresolved) {
    std::cout << u.file << ":" << u.line << ":" << u.column << ": " << u.field << ": " << u.value
              << " unresolved (" << u.rule << ")\n"
              << "    " << u.reason << "\n";
    if (!u.candidates.empty()) {
      std::cout << "    candidates:";
      for (std::size_t i = 0; i < u.candidates.size(); ++i) {
        // A value's candidates are spellings of one setting: name the spelling.
        const Candidate& c = u.candidates[i];
        std::cout << (i ? ", " : " ") << (u.kind == RepairKind::value ? c.matched : c.id) << " "
                  << score(c.score);
      }
      std::cout << "\n";
    }
  }
  std::size_t applied = 0;
  for (const auto& r : plan.repairs) applied += r.applied ? 1 : 0;
  std::cout << plan.repairs.size() << (plan.repairs.size() == 1 ? " repair" : " repairs");
  if (write) {
    std::cout << " (" << applied << " applied)";
  } else if (!plan.repairs.empty()) {
    std::cout << " (run with --write to apply)";
  }
  std::cout << ", " << plan.unresolved.size() << " unresolved\n";
}

int run_repair(const RepairConfig& cfg) {
  auto corpus = Corpus::load(cfg.records);
  RepairPlan plan = plan_repairs(*corpus, cfg.policy);
  ApplyResult result;
  if (cfg.write && !plan.repairs.empty()) {
    result = apply_repairs(*corpus, plan, cfg.today.empty() ? today_date() : cfg.today);
  }
  for (const auto& d : result.refused) std::cerr << format_diagnostic(d) << "\n";
  if (cfg.format == "json") {
    std::cout << json::versioned(json::repair_report(plan), corpus->content_hash()).dump(2) << "\n";
  } else {
    print_text(plan, cfg.write);
  }
  return plan.unresolved.empty() && result.refused.empty() ? kExitOk : kExitProblems;
}

}  // namespace

void add_repair(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<RepairConfig>();
  auto* sub = app.add_subcommand("repair",
                                 "Propose repairs of typo'd references and predicate values; "
                                 "--write applies the confident ones in place");
  add_records_option(sub, cfg->records);
  sub->add_flag("--write", cfg->write, "Apply the repairs listed, editing the files in place");
  add_format_option(sub, cfg->format, {"text", "json"});
  sub->add_option("--min-confidence", cfg->policy.min_confidence,
                  "Repair only when the best candidate scores at least this")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sub->add_option("--min-margin", cfg->policy.min_margin,
                  "... and leads the runner-up by at least this")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  sub->add_option("--min-length", cfg->policy.min_length, "Never repair shorter values")
      ->capture_default_str();
  add_date_option(sub, "--today", cfg->today,
                  "Date written to the repairs: log (default today, UTC)");
  sub->callback([&run, cfg] { run = [cfg] { return run_repair(*cfg); }; });
}

}  // namespace kb::cli
