// `kb vocab WORD`: which setting, engine or model spells a flag, environment variable,
// config key, image, package or entry point — the vocabulary records hold, looked up.

#include <fnmatch.h>

#include <iostream>

#include "commands.h"
#include "json.h"
#include "kb/corpus.h"
#include "kb/resolver.h"
#include "kb/text.h"
#include "lint_options.h"

namespace kb::cli {
namespace {

struct Hit {
  std::string record;   ///< "settings/prefix-caching"
  std::string what;     ///< "flag", "environment variable", "image", ...
  std::string spelled;  ///< as the record writes it
  std::string detail;   ///< "of vllm", "key prefix_caching", "value nixl"
};

// Flags and keys compare with '-' and '_' the same and case aside; the rest case aside.
std::string folded(std::string_view s) {
  std::string out;
  for (char c : s) {
    out += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::vector<Hit> look_up(const Corpus& corpus, const std::string& word) {
  std::vector<Hit> hits;
  const std::string w = folded(word);
  auto same = [&](std::string_view s) { return !s.empty() && folded(s) == w; };
  for (const auto& r : corpus.records()) {
    if (r->kind == Kind::setting) {
      const SettingDef& def = *r->setting;
      if (same(def.key)) hits.push_back({r->id, "setting key", def.key, ""});
      for (const auto& syn : def.synonyms)
        if (same(syn)) hits.push_back({r->id, "setting synonym", syn, "key " + def.key.str()});
      for (const auto& e : def.engines) {
        const std::string of =
            "of " + e.engine.raw.str() + (e.versions.empty() ? "" : " " + e.versions.str());
        for (const auto& sp : e.flags)
          if (same(sp.name))
            hits.push_back({r->id, "flag", sp.name, of + ", key " + def.key.str()});
        for (const auto& sp : e.env)
          if (same(sp.name))
            hits.push_back({r->id, "environment variable", sp.name, of + ", key " + def.key.str()});
        for (const auto& sp : e.keys)
          if (same(sp.name))
            hits.push_back({r->id, "config key", sp.name, of + ", key " + def.key.str()});
        for (const auto& sp : e.json) {
          if (same(sp.name) || same(sp.field) || same(sp.name.str() + "." + sp.field.str()))
            hits.push_back({r->id, "JSON field", sp.name.str() + " " + sp.field.str(),
                            of + ", key " + def.key.str()});
        }
      }
      for (const auto& v : def.values) {
        if (same(v.value)) hits.push_back({r->id, "value", v.value, "of " + def.key.str()});
        for (const auto& syn : v.synonyms)
          if (same(syn))
            hits.push_back({r->id, "value synonym", syn, def.key.str() + " = " + v.value.str()});
      }
    } else if (r->kind == Kind::engine) {
      const EngineInfo& e = *r->engine;
      if (same(text::id_slug(r->id)) || same(e.name)) hits.push_back({r->id, "engine", e.name, ""});
      for (const auto& a : r->aliases)
        if (same(a)) hits.push_back({r->id, "engine alias", a, ""});
      for (const auto& p : e.packages)
        if (same(p.name)) hits.push_back({r->id, "package", p.name, p.ecosystem.str()});
      for (const auto& im : e.images) {
        const std::string repo = word.substr(0, word.find_first_of("@:", word.rfind('/') + 1));
        if (same(im.image) || (!repo.empty() && folded(repo).ends_with(folded(im.image))))
          hits.push_back({r->id, "image", im.image, ""});
      }
      for (const auto& ep : e.entrypoints) {
        if (same(ep.command) || same(ep.module))
          hits.push_back({r->id, "entry point", ep.command.empty() ? ep.module : ep.command,
                          ep.role.empty() ? "" : "role " + ep.role.str()});
      }
      for (const auto& f : e.shell_functions)
        if (same(f.name)) hits.push_back({r->id, "shell function", f.name, "sets " + f.sets.str()});
    } else if (r->kind == Kind::model) {
      for (const auto& glob : r->match) {
        if (::fnmatch(folded(glob).c_str(), w.c_str(), 0) == 0)
          hits.push_back({r->id, "model", glob, ""});
      }
    }
  }
  return hits;
}

}  // namespace

void add_vocab(CLI::App& app, Action& run) {
  auto cfg = std::make_shared<LintConfig>();
  auto word = std::make_shared<std::string>();
  auto* sub = app.add_subcommand(
      "vocab",
      "Which setting, engine or model spells WORD: a flag, environment variable, config "
      "key, JSON field, value, image, package, entry point or model id");
  sub->add_option("word", *word, "--enable-prefix-caching, VLLM_BATCH_INVARIANT, lmcache, ...");
  // A flag to look up is no option of kb's: `kb vocab --enable-prefix-caching`.
  sub->allow_extras();
  add_records_option(sub, cfg->records);
  add_format_option(sub, cfg->format, {"text", "json"});
  sub->callback([&run, cfg, word, sub] {
    std::vector<std::string> rest = sub->remaining();
    if (word->empty() && !rest.empty()) {
      *word = rest.front();
      rest.erase(rest.begin());
    }
    run = [cfg, word, rest] {
      if (word->empty() || !rest.empty()) {
        std::cerr << "kb vocab: give one word to look up, such as --enable-prefix-caching\n";
        return kExitUsage;
      }
      auto corpus = Corpus::load(cfg->records);
      std::string w = *word;
      // `--flag=value`: the flag.
      if (w.starts_with("-") && w.find('=') != std::string::npos) w.resize(w.find('='));
      const auto hits = look_up(*corpus, w);
      if (cfg->format == "json") {
        nlohmann::json a = nlohmann::json::array();
        for (const Hit& h : hits)
          a.push_back({{"record", h.record},
                       {"what", h.what},
                       {"spelled", h.spelled},
                       {"detail", h.detail}});
        std::cout << json::versioned({{"word", w}, {"hits", a}}, corpus->content_hash()).dump(2)
                  << "\n";
        return hits.empty() ? kExitProblems : kExitOk;
      }
      for (const Hit& h : hits) {
        std::cout << h.spelled << ": " << h.what << (h.detail.empty() ? "" : " (" + h.detail + ")")
                  << " in " << h.record << "\n";
      }
      if (hits.empty()) {
        std::cout << w << ": no record spells it";
        for (Kind k : {Kind::engine, Kind::setting}) {
          auto c = corpus->names().candidates(k, w, 1);
          if (!c.empty() && c.front().score >= 0.8) {
            std::cout << "; did you mean '" << c.front().matched << "' (" << c.front().id << ")?";
            break;
          }
        }
        std::cout << "\n  a spelling that matters belongs in a settings record's engines[] (see "
                     "records/README.md)\n";
        return kExitProblems;
      }
      return kExitOk;
    };
  });
}

}  // namespace kb::cli
