// `kb triage FILE|-`: which gotchas a log names, through their `detection.signatures`.

#include <fstream>
#include <iostream>
#include <sstream>

#include "check_json.h"
#include "commands.h"
#include "json.h"
#include "kb/atomic_write.h"
#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/store.h"
#include "kb/triage.h"

namespace kb::cli {
namespace {

struct TriageConfig {
  std::string records = "records";
  std::string db;
  std::string input;
  std::string format = "text";
  std::string output;
  std::string base_url;
  std::size_t lines = 5;
};

// Streams `in` into the triage in pieces: memory is one piece, whatever the log's size.
bool stream(std::istream& in, Triage& triage) {
  std::string chunk(64 * 1024, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const std::streamsize got = in.gcount();
    if (got > 0) triage.feed(std::string_view(chunk.data(), static_cast<std::size_t>(got)));
  }
  return !in.bad();
}

void print_text(std::ostream& out, const TriageReport& r, const std::string& input,
                const std::string& base_url) {
  if (r.matches.empty()) {
    out << input << ": no known gotcha's signature in " << r.lines
        << (r.lines == 1 ? " line" : " lines") << " (" << r.signatures << " signatures tried)\n";
    return;
  }
  for (const TriageMatch& m : r.matches) {
    out << m.severity << std::string(m.severity.size() < 9 ? 9 - m.severity.size() : 1, ' ') << m.id
        << "\n";
    out << "         " << m.title << "\n";
    out << "         status " << m.status << "; " << m.count
        << (m.count == 1 ? " matching line" : " matching lines") << "\n";
    for (std::size_t i = 0; i < m.signatures.size(); ++i) {
      out << (i == 0 ? "         signature: " : "                    ") << m.signatures[i]
          << (m.engines[i].empty() ? "" : " (" + m.engines[i] + ")") << "\n";
    }
    for (const TriageLine& l : m.lines) {
      out << "         " << input << ":" << l.line << ": " << l.text << "\n";
    }
    if (m.count > m.lines.size()) {
      out << "         ... and " << (m.count - m.lines.size()) << " more\n";
    }
    if (!m.workaround.empty()) out << "         do:  " << m.workaround << "\n";
    if (!base_url.empty())
      out << "         see: " << json::gotcha_url(base_url, m.id, false) << "\n";
  }
  out << r.matches.size() << (r.matches.size() == 1 ? " gotcha" : " gotchas") << " named in "
      << r.lines << (r.lines == 1 ? " line" : " lines") << " of " << input << "\n";
}

int run_triage(const TriageConfig& cfg) {
  std::shared_ptr<const Corpus> corpus;
  const std::string db = cfg.db.empty() ? installed_index(cfg.records) : cfg.db;
  if (db.empty()) {
    corpus = Corpus::load(cfg.records);
  } else {
    Store store = Store::open_readonly(db);
    corpus = Corpus::from_store(store, db);
  }
  if (std::size_t errors = count_severity(corpus->diagnostics(), Severity::error)) {
    std::cerr << "kb triage: warning: the knowledge base has " << errors
              << " lint errors; signatures in broken files are missing (run `kb lint`)\n";
  }
  TriageOptions options;
  options.lines_per_gotcha = cfg.lines;
  Triage triage(*corpus, options);
  if (cfg.input == "-") {
    if (!stream(std::cin, triage)) {
      std::cerr << "kb triage: cannot read standard input\n";
      return kExitUsage;
    }
  } else {
    std::ifstream in(cfg.input, std::ios::binary);
    if (!in) {
      std::cerr << "kb triage: cannot open '" << cfg.input << "'\n";
      return kExitUsage;
    }
    if (!stream(in, triage)) {
      std::cerr << "kb triage: cannot read '" << cfg.input << "'\n";
      return kExitUsage;
    }
  }
  const TriageReport report = triage.finish();
  const std::string shown = cfg.input == "-" ? "stdin" : cfg.input;
  std::ostringstream out;
  if (cfg.format == "json") {
    out << json::versioned(json::triage_json(report, cfg.base_url), corpus->content_hash()).dump(2)
        << "\n";
  } else {
    print_text(out, report, shown, cfg.base_url);
  }
  if (cfg.output.empty()) {
    std::cout << out.str();
  } else {
    write_atomic(cfg.output, out.str(), IfExists::replace);
  }
  return report.matches.empty() ? kExitOk : kExitProblems;
}

}  // namespace

void add_triage(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<TriageConfig>();
  auto* sub = app.add_subcommand(
      "triage",
      "Name the gotchas a log shows: the lines that match their detection.signatures. "
      "Exit 1 when one matches");
  sub->add_option("log", cfg->input, "The log file, or - for standard input (streamed)")
      ->required();
  add_records_option(sub, cfg->records);
  sub->add_option("--db", cfg->db, "Use a prebuilt index (kb build) instead of --records")
      ->excludes(sub->get_option("--records"));
  add_format_option(sub, cfg->format, {"text", "json"});
  sub->add_option("--lines", cfg->lines, "Matching lines shown per gotcha (all are counted)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--base-url", cfg->base_url,
                  "Link each gotcha to its page on this server, e.g. http://127.0.0.1:8080");
  sub->add_option("-o,--output", cfg->output,
                  "Write the answer to FILE (whole, or not at all) instead of standard output");
  sub->callback([&run, cfg] { run = [cfg] { return run_triage(*cfg); }; });
}

}  // namespace kb::cli
