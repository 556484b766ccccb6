#include <iostream>

#include "commands.h"
#include "json.h"
#include "kb/import_text.h"
#include "kb/text.h"
#include "lint_options.h"

namespace kb::cli {
namespace {

// A record named by full id, former id, or a bare slug unique across namespaces.
const Record* find_record(const Corpus& corpus, const std::string& id) {
  if (const Record* r = corpus.find_any(id)) return r;
  const Record* found = nullptr;
  for (Kind k : {Kind::gotcha, Kind::engine, Kind::oracle, Kind::result}) {
    if (auto t = corpus.target(k, id)) {
      if (found) return nullptr;
      found = corpus.find(*t);
    }
  }
  return found;
}

std::string plain_text(const Record& r) {
  if (r.kind == Kind::gotcha) return format_seed_text(r);
  std::string out = "id\n" + r.id;
  auto section = [&](const char* name, const std::string& v) {
    if (!v.empty()) out += std::string("\n") + name + "\n" + v;
  };
  section("Title", r.title);
  section("Name", r.engine->name);
  section("Repo", r.engine->repo);
  section("Method", r.method);
  section("Pass criterion", r.pass_criterion);
  section("Oracle", r.result->oracle.raw);
  section("Date", r.result->date);
  if (r.kind == Kind::result) {
    std::string outcome = std::to_string(r.result->passed) + " passed, " +
                          std::to_string(r.result->failed) + " failed";
    if (r.result->errors > 0)
      outcome +=
          ", " + std::to_string(r.result->errors) + (r.result->errors == 1 ? " error" : " errors");
    if (r.result->skipped > 0) outcome += ", " + std::to_string(r.result->skipped) + " skipped";
    if (r.result->incomplete) outcome += " (incomplete: the run was interrupted)";
    section("Outcome", outcome);
    section("Model", r.result->subject.model);
    std::string failures;
    for (const auto& f : r.result->failures) {
      failures +=
          (failures.empty() ? "" : "\n") + std::string("prompt ") + std::to_string(f.prompt);
      if (f.trial > 0) failures += ", trial " + std::to_string(f.trial);
      if (f.run > 0) failures += ", warm run " + std::to_string(f.run);
      failures +=
          ": first divergence at " + std::string(f.compared == "text" ? "character " : "token ") +
          std::to_string(f.position) + "\n  expected: " + f.expected + "\n  got:      " + f.got;
    }
    section("Failures", failures);
  }
  if (r.runner) {
    std::string runner = r.runner->kind;
    for (const auto& [k, v] : r.runner->params) runner += "\n" + k + ": " + v;
    section("Runner", runner);
  }
  section("notes", r.notes);
  return out;
}

}  // namespace

void add_show(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<LintConfig>();
  auto id = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("show", "Print one record, resolved");
  sub->add_option("id", *id, "Record id, e.g. gotchas/foo")->required();
  add_lint_options(sub, *cfg);
  add_format_option(sub, cfg->format, {"text", "json", "yaml"});
  sub->callback([&run, cfg, id] {
    run = [cfg, id] {
      Linted linted = lint_tree(cfg->records, cfg->lint_options());
      const Corpus& corpus = *linted.corpus;
      const Record* r = find_record(corpus, *id);
      if (!r) {
        std::cerr << "kb show: no record '" << *id << "'";
        auto slash = id->find('/');
        auto kind = slash == std::string::npos ? std::nullopt : parse_kind(id->substr(0, slash));
        auto cands = corpus.names().candidates(kind.value_or(Kind::gotcha), *id, 1);
        if (!cands.empty()) std::cerr << "; did you mean '" << cands.front().id << "'?";
        std::cerr << "\n";
        return kExitProblems;
      }
      if (cfg->format == "json") {
        std::cout << json::versioned(json::record(corpus, *r, linted.evidence),
                                     corpus.content_hash())
                         .dump(2)
                  << "\n";
      } else if (cfg->format == "yaml") {
        std::string_view src = r->source_text;
        if (src.starts_with(kb::text::kUtf8Bom)) src.remove_prefix(kb::text::kUtf8Bom.size());
        std::cout << src;
      } else {
        std::cout << plain_text(*r);
      }
      return kExitOk;
    };
  });
}

}  // namespace kb::cli
