#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "commands.h"
#include "json.h"
#include "kb/lint.h"
#include "lint_options.h"

namespace kb::cli {
namespace {

namespace fs = std::filesystem;

struct LintCli {
  LintConfig cfg;
  std::vector<std::string> files;
  std::string stdin_path;
  std::string explain;  ///< a diagnostic code to document instead of linting
};

// `file` as a path inside the records directory ("gotchas/x.yaml"), or nullopt.
std::optional<std::string> inside(const fs::path& records, const std::string& file) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(records, ec);
  const fs::path abs = fs::weakly_canonical(fs::absolute(file, ec), ec);
  if (ec) return std::nullopt;
  const fs::path rel = abs.lexically_relative(root);
  if (rel.empty() || rel.native().rfind("..", 0) == 0 || rel.is_absolute()) return std::nullopt;
  return rel.generic_string();
}

std::optional<std::string> read_bytes(std::istream& in, std::size_t limit) {
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return std::nullopt;
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// `snapshot`: the content hash of the corpus linted, as the API's `snapshot`.
void print(const LintConfig& cfg, std::size_t records, const std::vector<Diagnostic>& diags,
           std::string_view snapshot) {
  if (cfg.format == "json") {
    std::cout << json::versioned(json::lint_report(records, diags), snapshot).dump(2) << "\n";
    return;
  }
  for (const auto& d : diags) std::cout << format_diagnostic(d) << "\n";
  std::cout << records << " records, " << count_severity(diags, Severity::error) << " errors, "
            << count_severity(diags, Severity::warning) << " warnings\n";
}

// Lints the named files (or stdin) in the context of the tree: the tree's records with
// these files' contents in place of (or beside) their own, reporting only what concerns
// the named files.
int lint_files(const LintCli& cli) {
  const LintOptions options = cli.cfg.lint_options();
  auto base = Corpus::load(cli.cfg.records, options.load);
  std::vector<FileResult> files;
  for (const auto& f : base->files()) files.push_back(*f);
  std::vector<std::string> named;
  for (const std::string& file : cli.files) {
    std::optional<std::string> rel;
    std::optional<std::string> bytes;
    if (file == "-") {
      if (cli.stdin_path.empty()) {
        std::cerr << "kb lint: '-' reads a record from stdin: say which with --stdin-path "
                     "gotchas/NAME.yaml\n";
        return kExitUsage;
      }
      rel = cli.stdin_path;
      bytes = read_bytes(std::cin, options.load.max_file_bytes);
    } else {
      rel = inside(cli.cfg.records, file);
      if (!rel) {
        std::cerr << "kb lint: '" << file << "' is not inside the records directory '"
                  << cli.cfg.records << "' (the path decides a record's id)\n";
        return kExitUsage;
      }
      std::ifstream in(file, std::ios::binary);
      if (!in) {
        std::cerr << "kb lint: cannot read '" << file << "'\n";
        return kExitUsage;
      }
      bytes = read_bytes(in, options.load.max_file_bytes);
    }
    if (!bytes) {
      std::cerr << "kb lint: cannot read '" << file << "'\n";
      return kExitUsage;
    }
    FileResult fresh = load_record_text(*rel, *bytes, options.load);
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const FileResult& f) { return f.file == *rel; });
    if (it == files.end())
      files.push_back(std::move(fresh));
    else
      *it = std::move(fresh);
    named.push_back(*rel);
  }
  std::sort(files.begin(), files.end(),
            [](const FileResult& a, const FileResult& b) { return a.file < b.file; });
  Linted linted = lint_corpus(Corpus::from_files(cli.cfg.records, std::move(files)), options);
  std::vector<Diagnostic> mine;
  for (const auto& d : linted.diagnostics) {
    if (std::find(named.begin(), named.end(), d.file) != named.end()) mine.push_back(d);
  }
  print(cli.cfg, named.size(), mine, linted.corpus->content_hash());
  return count_severity(mine, Severity::error) > 0 ? kExitProblems : kExitOk;
}

}  // namespace

void add_lint(CLI::App& app, Action& run) {
  auto cli = std::make_shared<LintCli>();
  auto* sub =
      app.add_subcommand("lint", "Validate every record and every reference; writes nothing");
  add_lint_options(sub, cli->cfg);
  add_format_option(sub, cli->cfg.format, {"text", "json"});
  sub->add_option("files", cli->files,
                  "Only these record files (in the context of the tree); - reads stdin");
  sub->add_option("--explain", cli->explain,
                  "Print what a diagnostic code means instead of linting (as `kb explain CODE`)");
  sub->add_option("--stdin-path", cli->stdin_path,
                  "Where the record read from stdin stands in the tree, e.g. gotchas/x.yaml");
  sub->callback([&run, cli] {
    run = [cli] {
      if (!cli->explain.empty()) return explain(cli->explain);
      if (!cli->files.empty()) return lint_files(*cli);
      Linted linted = lint_tree(cli->cfg.records, cli->cfg.lint_options());
      print(cli->cfg, linted.corpus->records().size(), linted.diagnostics,
            linted.corpus->content_hash());
      return count_severity(linted.diagnostics, Severity::error) > 0 ? kExitProblems : kExitOk;
    };
  });
}

}  // namespace kb::cli
