#include <filesystem>
#include <iostream>
#include <set>

#include "commands.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/file_read.h"
#include "kb/import_text.h"

namespace kb::cli {
namespace {

struct ImportTextConfig {
  std::vector<std::string> files;
  std::string out = "records";
  bool force = false;
};

// A seed file becomes one record, so it is held to a record file's size limit. Throws
// kb::Error(io) when it cannot be read whole.
std::string read_input(const std::string& file) {
  const std::size_t limit = LoadOptions{}.max_file_bytes;
  FileRead read = read_file(file, named_input_policy(limit));
  if (read.failure) {
    throw Error(Errc::io,
                "import-text: cannot read " + file + ": " + read_failure_text(read, limit));
  }
  return std::move(read.bytes);
}

// The YAML must load with only the missing required fields reported, and, once those
// are filled in, give the same text back; anything else is a writer bug.
void verify(const Record& r, const std::string& relative, const std::string& yaml_text) {
  auto fail = [&](const std::string& why) {
    throw Error(Errc::internal, "the YAML written for " + r.id + " " + why);
  };
  for (const auto& d : load_record_text(relative, yaml_text).diagnostics) {
    if (d.code != diag_code("schema.missing-field")) fail("does not load: " + format_diagnostic(d));
  }
  Record completed = r;
  if (completed.title.empty()) completed.title = "title";
  if (!completed.severity) completed.severity = GotchaSeverity::info;
  if (!completed.status) completed.status = GotchaStatus::open;
  auto loaded = load_record_text(relative, format_record_yaml(completed));
  if (!loaded.record || format_seed_text(*loaded.record) != format_seed_text(r)) {
    fail("does not read back exactly");
  }
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : ", ") + v[i];
  return out;
}

int import_text(const ImportTextConfig& cfg) {
  std::vector<Record> records;
  bool problems = false;
  for (const auto& file : cfg.files) {
    TextImport t = parse_seed_text(read_input(file), file);
    for (const auto& d : t.diagnostics) std::cerr << format_diagnostic(d) << "\n";
    if (!t.record) {
      problems = true;
      continue;
    }
    records.push_back(std::move(*t.record));
  }

  std::set<std::string> ids;
  for (const auto& r : records) {
    if (!ids.insert(r.id).second) {
      std::cerr << "kb import-text: " << r.id << " is given twice; nothing written\n";
      problems = true;
    }
  }
  if (problems) return kExitProblems;

  struct Output {
    std::filesystem::path path;
    std::string yaml;
    std::optional<std::string> replacing;  // the file --force replaces, as it is now
  };
  std::vector<Output> outputs;
  for (const auto& r : records) {
    std::string relative = record_relative_path(r.id).generic_string();
    std::string yaml_text = format_record_yaml(r);
    verify(r, relative, yaml_text);
    auto path = std::filesystem::path(cfg.out) / relative;
    const std::size_t limit = LoadOptions{}.max_file_bytes;
    FileRead there = read_file(path, record_file_policy(limit));
    const bool exists = there.failure != ReadFailure::missing;
    std::optional<std::string> replacing;
    if (!there.failure) replacing = std::move(there.bytes);
    if (exists && !replacing) {
      std::cerr << "kb import-text: " << path.string() << " " << read_failure_text(there, limit)
                << "; refusing to replace it\n";
      problems = true;
    } else if (exists && !cfg.force) {
      std::cerr << "kb import-text: " << path.string()
                << " already exists; pass --force to overwrite it\n";
      problems = true;
    }
    outputs.push_back({path, std::move(yaml_text), std::move(replacing)});
  }
  if (problems) return kExitProblems;

  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& [path, yaml_text, replacing] = outputs[i];
    const WriteOutcome done = write_record_file(path, yaml_text, replacing);
    if (done == WriteOutcome::exists) {
      std::cerr << "kb import-text: " << path.string()
                << " appeared while importing; pass --force to overwrite it\n";
      return kExitProblems;
    }
    if (done == WriteOutcome::changed) {
      std::cerr << "kb import-text: " << path.string()
                << " was saved while importing; it is left as saved, run again to replace it\n";
      return kExitProblems;
    }
    std::cout << "wrote " << path.string() << " (" << records[i].id << ")\n";
    auto missing = missing_required_fields(records[i]);
    if (!missing.empty()) {
      std::cout << "note: " << path.string() << ": complete the required field"
                << (missing.size() > 1 ? "s " : " ") << join(missing) << ", then run `kb lint`\n";
    }
  }
  return kExitOk;
}

}  // namespace

void add_import_text(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<ImportTextConfig>();
  auto* sub = app.add_subcommand(
      "import-text", "Turn records in the seed plain-text layout into new YAML record files");
  sub->add_option("files", cfg->files, "Files in the seed layout (id, Symptom, Root cause, ...)")
      ->required();
  sub->add_option("--out,--records", cfg->out,
                  "Records directory to write gotchas/<slug>.yaml into")
      ->capture_default_str();
  sub->add_flag("--force", cfg->force, "Overwrite record files that already exist");
  sub->callback([&run, cfg] { run = [cfg] { return import_text(*cfg); }; });
}

}  // namespace kb::cli
