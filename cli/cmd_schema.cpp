#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/schema.h"
#include "schema_json.h"

namespace kb::cli {
namespace {

constexpr std::string_view kBegin = "<!-- BEGIN GENERATED: kb schema --format markdown -->";

struct SchemaConfig {
  std::string format = "markdown";
  std::string ns;
  std::string out;
  std::string update;
  std::string records = "records";
};

int run_schema(const SchemaConfig& cfg) {
  std::optional<Kind> kind;
  if (!cfg.ns.empty()) {
    kind = parse_kind(cfg.ns);
    if (!kind) {
      std::cerr << "kb schema: unknown namespace '" << cfg.ns
                << "' (gotchas, engines, oracles, results, settings, models)\n";
      return kExitUsage;
    }
  }
  if (!cfg.update.empty()) {
    return update_generated(cfg.update, kBegin, schema::markdown_reference(), "kb schema");
  }
  if (cfg.format == "markdown") {
    std::cout << (kind ? schema::markdown_namespace(*kind) : schema::markdown_reference());
    return kExitOk;
  }
  if (!cfg.out.empty()) {
    // Files an editor reads side by side: the record schemas refer to the vocabulary of
    // the knowledge base, so a typo'd setting key or engine is flagged as you type.
    auto corpus = Corpus::load(cfg.records);
    write_all(cfg.out + "/" + json::kVocabularyFile,
              json::vocabulary_schema(*corpus).dump(2) + "\n");
    for (Kind k : kAllKinds) {
      if (kind && k != *kind) continue;
      write_all(cfg.out + "/" + json::schema_file_name(k),
                json::json_schema(k, true).dump(2) + "\n");
    }
    return kExitOk;
  }
  if (kind) {
    std::cout << json::json_schema(*kind).dump(2) << "\n";
  } else {
    nlohmann::json all = nlohmann::json::object();
    for (Kind k : kAllKinds) all[std::string(kind_namespace(k))] = json::json_schema(k);
    std::cout << all.dump(2) << "\n";
  }
  return kExitOk;
}

}  // namespace

void add_schema(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<SchemaConfig>();
  auto* sub =
      app.add_subcommand("schema", "Print the record schema: a field reference or JSON Schemas");
  add_format_option(sub, cfg->format, {"markdown", "json-schema"});
  sub->add_option("namespace", cfg->ns,
                  "Only this namespace: gotchas, engines, oracles, results, settings, models");
  sub->add_option("--out", cfg->out,
                  "json-schema: write NAMESPACE.schema.json files into DIR, with "
                  "vocabulary.schema.json: the names of the records (--records) they may use");
  add_records_option(sub, cfg->records);
  sub->add_option("--update", cfg->update,
                  "Rewrite the generated field reference between the markers of this Markdown "
                  "file (records/README.md)");
  sub->callback([&run, cfg] { run = [cfg] { return run_schema(*cfg); }; });
}

}  // namespace kb::cli
