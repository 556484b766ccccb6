#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <vector>

#include "commands.h"
#include "json.h"
#include "kb/diagnostic_codes.h"
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
  if (rel.empty() || rel.native().starts_with("..") || rel.is_absolute()) return std::nullopt;
  return rel.generic_string();
}

std::optional<std::string> read_bytes(std::istream& in, std::size_t limit) {
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return std::nullopt;
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

// A diagnostic's file as a path from the working directory (records/gotchas/x.yaml),
// which is where CI annotations and code scanning look for it.
std::string from_cwd(const LintConfig& cfg, const std::string& file) {
  if (file.empty()) return cfg.records;
  const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : fs::path(cfg.records) / file;
  std::error_code ec;
  const fs::path rel =
      fs::absolute(p, ec).lexically_normal().lexically_relative(fs::current_path(ec));
  return (ec || rel.empty() ? p.lexically_normal() : rel).generic_string();
}

// A GitHub Actions workflow command's value, escaped as the runner expects.
std::string gh_escape(std::string_view s, bool property) {
  std::string out;
  for (char c : s) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else if (property && c == ':')
      out += "%3A";
    else if (property && c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

// `--format github`: one ::error / ::warning / ::notice annotation per diagnostic.
void print_github(const LintConfig& cfg, const std::vector<Diagnostic>& diags) {
  for (const auto& d : diags) {
    const char* level = d.severity == Severity::error     ? "error"
                        : d.severity == Severity::warning ? "warning"
                                                          : "notice";
    std::cout << "::" << level << " file=" << gh_escape(from_cwd(cfg, d.file), true);
    if (d.line > 0) std::cout << ",line=" << d.line;
    if (d.column > 0) std::cout << ",col=" << d.column;
    std::cout << ",title=" << gh_escape(d.code, true)
              << "::" << gh_escape(d.message + (d.hint.empty() ? "" : " (" + d.hint + ")"), false)
              << "\n";
  }
}

// `--format sarif`: SARIF 2.1.0, one rule per code found, locations from the working
// directory under %SRCROOT%.
nlohmann::json lint_sarif(const LintConfig& cfg, const std::vector<Diagnostic>& diags,
                          std::string_view snapshot) {
  nlohmann::json rules = nlohmann::json::array();
  std::map<std::string, std::size_t> index;
  nlohmann::json results = nlohmann::json::array();
  for (const auto& d : diags) {
    auto [it, added] = index.try_emplace(d.code, rules.size());
    if (added) {
      const CodeInfo* info = find_code(d.code);
      nlohmann::json rule = {{"id", d.code}, {"name", d.code}};
      if (info) {
        rule["shortDescription"] = {{"text", std::string(info->meaning)}};
        rule["help"] = {{"text", std::string(info->fix)}};
      }
      rules.push_back(std::move(rule));
    }
    const char* level = d.severity == Severity::error     ? "error"
                        : d.severity == Severity::warning ? "warning"
                                                          : "note";
    nlohmann::json region = nlohmann::json::object();
    if (d.line > 0) region["startLine"] = d.line;
    if (d.column > 0) region["startColumn"] = d.column;
    nlohmann::json physical = {
        {"artifactLocation", {{"uri", from_cwd(cfg, d.file)}, {"uriBaseId", "%SRCROOT%"}}}};
    if (!region.empty()) physical["region"] = region;
    nlohmann::json r = {
        {"ruleId", d.code},
        {"ruleIndex", it->second},
        {"level", level},
        {"message", {{"text", d.message + (d.hint.empty() ? "" : " (hint: " + d.hint + ")")}}},
        {"locations", nlohmann::json::array({{{"physicalLocation", physical}}})}};
    results.push_back(std::move(r));
  }
  nlohmann::json run = {
      {"tool",
       {{"driver", {{"name", "kb lint"}, {"version", KB_VERSION}, {"rules", std::move(rules)}}}}},
      {"automationDetails", {{"id", "kb-lint/" + from_cwd(cfg, "") + "/"}}},
      {"results", std::move(results)}};
  if (!snapshot.empty()) run["properties"] = {{"snapshot", std::string(snapshot)}};
  return {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
          {"version", "2.1.0"},
          {"runs", nlohmann::json::array({std::move(run)})}};
}

// `snapshot`: the content hash of the corpus linted, as the API's `snapshot`.
void print(const LintConfig& cfg, std::size_t records, const std::vector<Diagnostic>& diags,
           std::string_view snapshot) {
  if (cfg.format == "json") {
    std::cout << json::versioned(json::lint_report(records, diags), snapshot).dump(2) << "\n";
    return;
  }
  if (cfg.format == "sarif") {
    std::cout << lint_sarif(cfg, diags, snapshot).dump(2) << "\n";
    return;
  }
  if (cfg.format == "github") {
    print_github(cfg, diags);
    return;
  }
  for (const auto& d : diags) std::cout << format_diagnostic(d) << "\n";
  std::cout << records << " records, " << count_severity(diags, Severity::error) << " errors, "
            << count_severity(diags, Severity::warning) << " warnings\n";
}

// One positional of `kb lint`: stdin, a record file, or a directory of the tree.
struct Target {
  std::string arg;  ///< as written
  std::string rel;  ///< inside the records directory: "gotchas/x.yaml", "gotchas", "."
  bool stdin_ = false;
  bool directory = false;
};

// Resolves the positionals, or says on stderr why one cannot be linted.
std::optional<std::vector<Target>> targets(const LintCli& cli) {
  std::vector<Target> out;
  for (const std::string& file : cli.files) {
    Target t{file, "", false, false};
    if (file == "-") {
      if (cli.stdin_path.empty()) {
        std::cerr << "kb lint: '-' reads a record from stdin: say which with --stdin-path "
                     "gotchas/NAME.yaml\n";
        return std::nullopt;
      }
      t.rel = cli.stdin_path;
      t.stdin_ = true;
      out.push_back(std::move(t));
      continue;
    }
    std::error_code ec;
    const fs::file_status st = fs::status(file, ec);
    if (!fs::exists(st)) {
      std::cerr << "kb lint: '" << file << "': no such file or directory\n";
      return std::nullopt;
    }
    t.directory = fs::is_directory(st);
    std::optional<std::string> rel = inside(cli.cfg.records, file);
    if (!rel && t.directory) {
      std::cerr << "kb lint: '" << file << "' is a directory outside the records directory '"
                << cli.cfg.records << "'\n  hint: to lint that tree, run `kb lint --records "
                << file << "`\n";
      return std::nullopt;
    }
    if (!rel) {
      std::cerr << "kb lint: '" << file << "' is not inside the records directory '"
                << cli.cfg.records << "' (the path decides a record's id)\n";
      return std::nullopt;
    }
    t.rel = *rel;
    out.push_back(std::move(t));
  }
  return out;
}

// Whether `file` (relative to the records directory) lies under directory `dir` ("." is
// the whole tree).
bool under(std::string_view file, std::string_view dir) {
  return dir == "." ||
         (file.size() > dir.size() && file.starts_with(dir) && file[dir.size()] == '/');
}

// Lints the named files, directories (the record files the tree loader loads under them)
// or stdin in the context of the tree: the tree's records with these files' contents in
// place of (or beside) their own, reporting only what concerns the named files.
int lint_files(const LintCli& cli, const std::vector<Target>& targets) {
  const LintOptions options = cli.cfg.lint_options();
  auto base = Corpus::load(cli.cfg.records, options.load);
  std::vector<FileResult> files;
  for (const auto& f : base->files()) files.push_back(*f);
  std::vector<std::string> named;
  for (const Target& t : targets) {
    if (t.directory) {
      for (const auto& f : base->files()) {
        if (under(f->file, t.rel)) named.push_back(f->file);
      }
      continue;
    }
    std::optional<std::string> bytes;
    if (t.stdin_) {
      bytes = read_bytes(std::cin, options.load.max_file_bytes);
    } else if (std::ifstream in(t.arg, std::ios::binary); in) {
      bytes = read_bytes(in, options.load.max_file_bytes);
    }
    if (!bytes) {
      std::cerr << "kb lint: cannot read '" << t.arg << "'\n";
      return kExitUsage;
    }
    FileResult fresh = load_record_text(t.rel, *bytes, options.load);
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const FileResult& f) { return f.file == t.rel; });
    if (it == files.end())
      files.push_back(std::move(fresh));
    else
      *it = std::move(fresh);
    named.push_back(t.rel);
  }
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  std::sort(files.begin(), files.end(),
            [](const FileResult& a, const FileResult& b) { return a.file < b.file; });
  Linted linted = lint_corpus(Corpus::from_files(cli.cfg.records, std::move(files)), options);
  std::vector<Diagnostic> mine;
  for (const auto& d : linted.diagnostics) {
    if (std::binary_search(named.begin(), named.end(), d.file)) mine.push_back(d);
  }
  print(cli.cfg, named.size(), mine, linted.corpus->content_hash());
  return count_severity(mine, Severity::error) > 0 ? kExitProblems : kExitOk;
}

int lint_all(const LintCli& cli) {
  Linted linted = lint_tree(cli.cfg.records, cli.cfg.lint_options());
  print(cli.cfg, linted.corpus->records().size(), linted.diagnostics,
        linted.corpus->content_hash());
  return count_severity(linted.diagnostics, Severity::error) > 0 ? kExitProblems : kExitOk;
}

int lint(const LintCli& cli) {
  if (cli.files.empty()) return lint_all(cli);
  auto list = targets(cli);
  if (!list) return kExitUsage;
  // The records directory itself names every file: that is `kb lint`, tree-wide
  // diagnostics included, unless stdin stands in for one of them.
  const bool whole = std::any_of(list->begin(), list->end(),
                                 [](const Target& t) { return t.directory && t.rel == "."; });
  const bool from_stdin =
      std::any_of(list->begin(), list->end(), [](const Target& t) { return t.stdin_; });
  if (whole && !from_stdin) return lint_all(cli);
  return lint_files(cli, *list);
}

}  // namespace

void add_lint(CLI::App& app, Action& run) {
  auto cli = std::make_shared<LintCli>();
  auto* sub =
      app.add_subcommand("lint", "Validate every record and every reference; writes nothing");
  add_lint_options(sub, cli->cfg);
  add_format_option(sub, cli->cfg.format, {"text", "json", "sarif", "github"});
  sub->add_option(
      "files", cli->files,
      "Only these record files, or the record files under these directories of the tree "
      "(in the context of the tree); - reads stdin");
  sub->add_option("--explain", cli->explain,
                  "Print what a diagnostic code means instead of linting (as `kb explain CODE`)");
  sub->add_option("--stdin-path", cli->stdin_path,
                  "Where the record read from stdin stands in the tree, e.g. gotchas/x.yaml");
  sub->callback([&run, cli] {
    run = [cli] {
      if (!cli->explain.empty()) return explain(cli->explain);
      return lint(*cli);
    };
  });
}

}  // namespace kb::cli
