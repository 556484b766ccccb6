// `kb new NAMESPACE SLUG`: a record file to fill in, with every required field present
// and left empty, so that `kb lint` names each one until it is written.

#include <iostream>

#include "commands.h"
#include "kb/atomic_write.h"
#include "kb/dates.h"
#include "kb/model.h"
#include "kb/schema.h"
#include "kb/text.h"

namespace kb::cli {
namespace {

// One line of comment: the field's doc, its allowed values or its example.
std::string comment_of(const schema::Field& f) {
  std::string c(f.doc);
  if (!f.values.empty()) {
    c += " (";
    for (std::size_t i = 0; i < f.values.size(); ++i)
      c += (i ? " | " : "") + std::string(f.values[i]);
    c += ")";
  } else if (!f.example.empty() && f.type != schema::ValueType::markdown) {
    c += " (e.g. " + std::string(f.example) + ")";
  }
  return c;
}

std::string scaffold(Kind kind, const std::string& slug, const std::string& today) {
  const std::string ns(kind_namespace(kind));
  std::string out = "# yaml-language-server: $schema=../../schemas/" + ns + ".schema.json\n";
  out +=
      "# Fill in every empty field (kb lint names each one until it is written), then\n"
      "# add the optional ones records/README.md lists.\n";
  out += "id: " + ns + "/" + slug + "\n";
  for (const schema::Field& f : schema::record_struct(kind).fields) {
    const std::string name(f.name);
    if (name == "id") continue;
    if (f.type == schema::ValueType::date &&
        (name == "created" || name == "updated" || name == "date")) {
      out += name + ": " + today + "\n";
      continue;
    }
    if (!f.required) continue;
    const std::string c = comment_of(f);
    if (f.type == schema::ValueType::markdown) {
      out += name + ":  # " + c + "\n";
    } else {
      out += name + ":" + (f.list ? "  # a list: " : "  # ") + c + "\n";
    }
  }
  return out;
}

}  // namespace

void add_new(CLI::App& app, Action& run) {
  struct Config {
    std::string ns;
    std::string slug;
    std::string records = "records";
    bool force = false;
  };
  auto cfg = std::make_shared<Config>();
  auto* sub = app.add_subcommand(
      "new",
      "Write a record file to fill in: records/NAMESPACE/SLUG.yaml with every required "
      "field, empty until written (kb lint names each)");
  std::vector<std::string> kinds;
  for (Kind k : kAllKinds) {
    kinds.emplace_back(kind_name(k));
    kinds.emplace_back(kind_namespace(k));
  }
  sub->add_option("namespace", cfg->ns, "gotcha, setting, engine, model, oracle or result")
      ->required()
      ->check(CLI::IsMember(kinds));
  sub->add_option("slug", cfg->slug, "The record's name: lower case, digits and '-'")->required();
  add_records_option(sub, cfg->records);
  sub->add_flag("--force", cfg->force, "Replace a record file that exists");
  sub->callback([&run, cfg] {
    run = [cfg] {
      const auto kind = parse_kind(cfg->ns);
      if (!kind) return kExitUsage;
      if (!text::valid_slug(cfg->slug)) {
        std::cerr << "kb new: '" << cfg->slug
                  << "' is not a record name: use lower case letters, digits and '-'\n";
        return kExitUsage;
      }
      const std::filesystem::path path = std::filesystem::path(cfg->records) /
                                         std::string(kind_namespace(*kind)) / (cfg->slug + ".yaml");
      const std::string text = scaffold(*kind, cfg->slug, today_date());
      if (!write_atomic(path, text, cfg->force ? IfExists::replace : IfExists::keep)) {
        std::cerr << "kb new: " << path.string()
                  << " exists; edit it, or pass --force to start it again\n";
        return kExitUsage;
      }
      std::cout << "wrote " << path.string() << "; fill it in, then: kb lint " << path.string()
                << "\n";
      return kExitOk;
    };
  });
}

}  // namespace kb::cli
