// `kb oracle run`: runs an oracle (or every oracle a gotcha names) against live
// OpenAI-compatible servers and writes the result records.

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "json.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "openai.h"
#include "oracle_output.h"
#include "oracle_plan.h"

namespace kb::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_sigint(int) {
  g_stop.store(true);
}

// SIGINT sets g_stop while a run is on; a second Ctrl-C kills the process as usual.
class SigintGuard {
 public:
  SigintGuard() {
    struct sigaction sa = {};
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_);
  }
  ~SigintGuard() { sigaction(SIGINT, &old_, nullptr); }
  SigintGuard(const SigintGuard&) = delete;
  SigintGuard& operator=(const SigintGuard&) = delete;

 private:
  struct sigaction old_ = {};
};

std::string extension(const std::string& format) {
  return format == "json" ? ".json" : format == "junit" ? ".xml" : ".yaml";
}

class OracleCommand {
 public:
  explicit OracleCommand(const OracleConfig& cfg) : cfg_(cfg) {}

  int run() {
    p_ = make_plan(cfg_);
    std::vector<OracleRun> runs;
    bool interrupted = false;
    {
      SigintGuard guard;
      g_stop = false;
      for (const auto& [record, spec] : p_.oracles) {
        if (g_stop) {
          std::cerr << "kb oracle run: " << record->id << " not run (interrupted)\n";
          continue;
        }
        runs.push_back(run_oracle(*record, spec));
      }
      interrupted = g_stop.load();
    }
    return emit(runs, interrupted);
  }

 private:
  OracleRun run_oracle(const Record& record, const oracle::RunnerSpec& spec) {
    OracleRun run;
    run.spec = spec;
    Progress progress(slug(record.id), ::isatty(STDERR_FILENO) != 0);
    oracle::RunOptions options;
    options.concurrency = cfg_.concurrency;
    options.stop = &g_stop;
    options.progress = [&](std::size_t done, std::size_t total, const oracle::Tally& t) {
      progress.update(done, total, t);
    };
    const auto make_sender = [this, &spec]() -> oracle::Sender {
      auto subject = std::make_shared<client::Http>(p_.subject.endpoint, p_.options);
      std::shared_ptr<client::Http> baseline;
      if (spec.needs_baseline())
        baseline = std::make_shared<client::Http>(p_.baseline.endpoint, p_.options);
      return [subject, baseline, sm = p_.subject.model,
              bm = p_.baseline.model](const oracle::Request& r) {
        if (r.target == oracle::Target::baseline) return client::generate(*baseline, r, bm);
        return client::generate(*subject, r, sm);
      };
    };
    run.report = oracle::run(spec, p_.prompts, make_sender, options);
    progress.finish();
    oracle::ResultContext ctx = p_.context;
    ctx.oracle = record.id;
    ctx.oracle_title = record.title;
    ctx.id = !p_.out_id.empty() ? p_.out_id : cfg_.id;
    run.result = oracle::result_spec(spec, run.report, ctx);
    auto problems = canonicalize(*p_.corpus, run.result);
    for (const auto& p : problems) std::cerr << "kb oracle run: " << p << "\n";
    run.yaml = result_record_yaml(run.result);
    std::cerr << "kb oracle run: " << record.id << ": " << counts_text(run.report.tally)
              << (run.report.incomplete ? " (interrupted)" : "") << "\n";
    return run;
  }

  // Writes or prints every run; the exit code says what was found.
  int emit(std::vector<OracleRun>& runs, bool interrupted) {
    for (auto& run : runs) {
      auto check = load_record_text(run.result.id + ".yaml", run.yaml);
      if (!check.record || count_severity(check.diagnostics, Severity::error) > 0) {
        for (const auto& d : check.diagnostics) std::cerr << format_diagnostic(d) << "\n";
        std::cerr << "kb oracle run: internal error: the result record would not load:\n"
                  << run.yaml;
        return kExitUsage;
      }
    }
    const auto before = EvidenceIndex::build(*p_.corpus);
    bool wrote = false;
    if (!cfg_.out.empty()) {
      for (auto& run : runs) {
        const std::filesystem::path path =
            p_.gotcha.empty()
                ? std::filesystem::path(cfg_.out)
                : std::filesystem::path(cfg_.out) / (slug(run.result.id) + extension(cfg_.format));
        std::vector<oracle::SuiteRun> one = {{&run.spec, &run.report, &run.result}};
        const std::string text = cfg_.format == "json"
                                     ? json::versioned(run_json(run)).dump(2) + "\n"
                                 : cfg_.format == "junit" ? oracle::junit_report(one)
                                                          : run.yaml;
        if (!write_new_file(path, text)) {
          std::cerr << "kb oracle run: " << path.string() << " already exists; the result follows\n"
                    << text;
          return kExitUsage;
        }
        run.file = path.generic_string();
        wrote = true;
      }
    } else if (cfg_.format == "json") {
      if (p_.gotcha.empty()) {
        std::cout << json::versioned(run_json(runs.front())).dump(2) << "\n";
      } else {
        nlohmann::json all = nlohmann::json::array();
        for (const auto& run : runs) all.push_back(run_json(run));
        std::cout << json::versioned({{"gotcha", p_.gotcha}, {"results", all}}).dump(2) << "\n";
      }
    } else if (cfg_.format == "junit") {
      std::vector<oracle::SuiteRun> all;
      for (const auto& run : runs) all.push_back({&run.spec, &run.report, &run.result});
      std::cout << oracle::junit_report(all);
    } else {
      for (std::size_t i = 0; i < runs.size(); ++i) {
        std::cout << (runs.size() > 1 ? "---\n" : "") << runs[i].yaml;
      }
    }
    if (wrote && cfg_.format == "yaml") report_written(runs, before);
    return exit_code(runs, interrupted);
  }

  // Each file written, then what the results did to the gotchas they are evidence for.
  void report_written(const std::vector<OracleRun>& runs, const EvidenceIndex& before) {
    auto updated = Corpus::reload(*p_.corpus);
    const auto after = EvidenceIndex::build(*updated);
    std::vector<std::string> gotchas;
    for (const auto& run : runs) {
      std::cout << "wrote " << run.file << ": " << counts_text(run.report.tally) << "\n";
      for (const auto& g : run.result.evidence_for) {
        if (std::find(gotchas.begin(), gotchas.end(), g) == gotchas.end()) gotchas.push_back(g);
      }
    }
    for (const auto& g : gotchas) {
      const auto& s = after.for_gotcha(g);
      std::cout << "  " << g << ": " << to_string(before.for_gotcha(g).state) << " -> "
                << to_string(s.state) << " (" << summary_line(s) << ")\n";
    }
  }

  const OracleConfig& cfg_;
  OraclePlan p_;
};

}  // namespace

void add_oracle(CLI::App& app, Action& run) {
  auto* oracle = app.add_subcommand("oracle", "Oracles: run them against live servers");
  oracle->require_subcommand(1);
  auto cfg = std::make_shared<OracleConfig>();
  auto* sub = oracle->add_subcommand(
      "run", "Run an oracle against OpenAI-compatible servers and write the result record");
  sub->add_option("oracle", cfg->oracle, "The oracle to run, e.g. cold-vs-warm-prefix-cache");
  sub->add_option("--for", cfg->for_gotcha,
                  "Run every oracle this gotcha names, each result evidence for it");
  sub->add_option("--subject", cfg->subject, "Base URL of the server under test")->required();
  sub->add_option("--baseline", cfg->baseline,
                  "Base URL of the reference server (monolithic, no prefix cache, no KV tier)");
  sub->add_option("--model", cfg->model, "Model to ask for (default: the subject's first)");
  sub->add_option("--baseline-model", cfg->baseline_model,
                  "Model name on the baseline (default: the same as --model)");
  sub->add_option("--prompts", cfg->prompts,
                  "JSON lines: {\"prompt\": \"...\"} or {\"messages\": [...]} per line "
                  "(default: the built-in set)");
  sub->add_option("--max-tokens", cfg->max_tokens, "Tokens to generate (default: the oracle's)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("--trials", cfg->trials, "Times to run the prompt set (default: the oracle's)")
      ->check(CLI::Range(1, 10000));
  sub->add_option("--param", cfg->params, "Override a runner parameter, NAME=VALUE (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--concurrency", cfg->concurrency, "Prompts in flight at once")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  sub->add_option("--timeout", cfg->timeout, "Seconds to wait for each answer")
      ->check(CLI::Range(0.001, 86400.0))
      ->capture_default_str();
  sub->add_option("--header", cfg->headers, "An HTTP header 'Name: value' (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--api-key", cfg->api_key,
                  "Sent as 'Authorization: Bearer KEY' (default: $OPENAI_API_KEY)");
  sub->add_option("--engine", cfg->engines,
                  "Engines under test besides those the probe finds, NAME[@VERSION],...")
      ->allow_extra_args(false);
  sub->add_option("--config", cfg->config,
                  "Configuration of the subject, KEY=VALUE[,KEY=VALUE] (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--evidence-for", cfg->evidence_for,
                  "A gotcha this result is evidence for (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--out", cfg->out,
                  "Write the result here (with --for: a directory) instead of stdout");
  sub->add_option("--id", cfg->id, "Result id (default: <oracle>-<subject>-<date>-<time>)");
  add_date_option(sub, "--date", cfg->date, "Date of the run, YYYY-MM-DD (default: today, UTC)");
  add_records_option(sub, cfg->records);
  add_format_option(sub, cfg->format, {"yaml", "json", "junit"});
  sub->callback([&run, cfg] {
    run = [cfg] {
      try {
        return OracleCommand(*cfg).run();
      } catch (const Error& e) {
        std::cerr << "kb oracle run: " << e.what() << "\n";
        return kExitUsage;
      }
    };
  });
}

}  // namespace kb::cli
