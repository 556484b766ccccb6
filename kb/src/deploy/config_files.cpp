// Config files a service names: `LMCACHE_CONFIG_FILE=$SCRIPT_DIR/configs/prefiller.yaml`,
// TensorRT-LLM's `--extra_llm_api_options`, Dynamo's `--extra-engine-args`. A settings
// record whose value is such a path says so (`file_of: ENGINE`); when the file is among
// the inputs, its keys are read as that engine's and join the service that named it,
// instead of the file being taken for a deployment of its own.

#include "deploy/config_files.h"

#include "deploy/command.h"

#include <algorithm>

#include "corpus/vocab.h"
#include "deploy/settings_reader.h"
#include "deploy/yaml_docs.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/text.h"
#include "schema/setting_values.h"

namespace kb::deploy {
namespace {

std::vector<std::string_view> path_parts(std::string_view p) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= p.size()) {
    auto slash = p.find('/', start);
    auto end = slash == std::string_view::npos ? p.size() : slash;
    if (end > start) out.push_back(p.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return out;
}

// The part of a path as written that names the file whatever the variables hold:
// `$SCRIPT_DIR/configs/x.yaml` -> [configs, x.yaml].
std::vector<std::string_view> literal_tail(std::string_view written) {
  std::vector<std::string_view> parts = path_parts(written);
  std::size_t from = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string_view c = parts[i];
    if (c == "." || c == ".." || c.find_first_of("$`{}*?\"'") != std::string_view::npos)
      from = i + 1;
  }
  return {parts.begin() + static_cast<std::ptrdiff_t>(from), parts.end()};
}

// How many trailing parts of `tail` the input's path ends with; 0 when not its file name.
std::size_t suffix_match(const std::vector<std::string_view>& tail, std::string_view input) {
  const std::vector<std::string_view> parts = path_parts(input);
  std::size_t n = 0;
  while (n < tail.size() && n < parts.size() &&
         tail[tail.size() - 1 - n] == parts[parts.size() - 1 - n])
    ++n;
  return n;
}

// Every scalar under a mapping, with its dotted path, as keys a record may spell.
void leaves(const yaml::Node& n, const std::string& path, const std::string& file,
            std::string_view text, const std::string& via, std::vector<KeyFact>& out,
            std::vector<Unread>& unread) {
  if (n.is_map()) {
    for (const auto& [k, v] : n.entries) {
      if (!k.is_scalar()) continue;
      leaves(v, path.empty() ? k.value : path + "." + k.value, file, text, via, out, unread);
    }
  } else if (n.is_scalar()) {
    out.push_back({path, n.value, file, n.pos, scalar_end(n, text), via + " " + path});
  } else if (!n.is_null()) {
    unread.push_back({file, n.pos, via + " " + path, "not a single value"});
  }
}

// Whether `svc` runs `engine`: named by its image, command or packages, or brought by a
// setting's value (`kv_connector: LMCacheConnectorV1` runs LMCache).
bool runs_engine(const Service& svc, const std::string& engine, const Context& ctx) {
  for (const DeployedEngine& e : svc.engines) {
    if (e.id == engine) return true;
  }
  for (const Setting& s : svc.config) {
    const Record* rec = s.runtime ? nullptr : ctx.vocab.setting(s.key);
    if (!rec) continue;
    auto value = normalize_value(rec->setting, s.value).value;
    if (!value) continue;
    for (const SettingValue& v : rec->setting->values) {
      if (v.value != *value) continue;
      for (const RefValue& r : v.engines) {
        if (ctx.corpus.target(Kind::engine, r.raw) == engine) return true;
      }
    }
  }
  return false;
}

struct Use {
  std::size_t facts;  // index of the input whose service named the file
  ConfigRef ref;
};

// A named config file no input's path matches: its path is set at run time
// (`LMCACHE_CONFIG_FILE=$(ls /etc/lmcache-config/*.yaml)`) or names a file not given.
struct Pending {
  std::size_t facts;
  ConfigRef ref;
  bool literal;  // the path names a file (`mooncake.json`), not only variables
  bool joined = false;
  bool ambiguous = false;
};

// What an input that no path names says of itself, read as a config file: the engine
// whose config keys it holds (most of its keys, and more than any other engine's), and
// the role its keys give (`nixl_role: receiver`).
struct ConfigGuess {
  std::string engine;
  std::string role;
  std::size_t keys = 0;  // how many of its keys that engine spells
};

std::optional<ConfigGuess> guess_config(const DeployInput& in,
                                        const std::vector<std::string>& engines,
                                        const Context& ctx) {
  std::vector<yaml::Node> docs;
  std::vector<Diagnostic> ignored;
  if (!parse_documents(in.text, in.file, docs, ignored) || docs.size() != 1 ||
      !docs.front().is_map()) {
    return std::nullopt;
  }
  std::vector<KeyFact> keys;
  std::vector<Unread> unread;
  leaves(docs.front(), "", in.file, in.text, "config file", keys, unread);
  std::vector<ConfigGuess> by_engine;
  for (const std::string& engine : engines) by_engine.push_back({engine, "", 0});
  const Record* role_def = ctx.vocab.setting(service_role::kKey);
  for (const KeyFact& k : keys) {
    for (ConfigGuess& g : by_engine) {
      const SpellingRef* hit = nullptr;
      for (const auto* refs : {ctx.vocab.key(k.key), ctx.vocab.flag("--" + k.key)}) {
        if (!refs || hit) continue;
        for (const SpellingRef& r : *refs) {
          if (ctx.corpus.target(Kind::engine, r.engine->engine.raw) == g.engine) hit = &r;
        }
      }
      if (!hit) continue;
      ++g.keys;
      if (role_def && hit->setting == role_def) {
        g.role = role_value(ctx.vocab, k.value);
      }
    }
  }
  std::sort(by_engine.begin(), by_engine.end(),
            [](const ConfigGuess& a, const ConfigGuess& b) { return a.keys > b.keys; });
  if (by_engine.empty() || by_engine.front().keys == 0) return std::nullopt;
  if (by_engine.size() > 1 && by_engine[1].keys == by_engine.front().keys) return std::nullopt;
  return by_engine.front();
}

// Joins inputs no path names to the pending names they can only be: an input whose keys
// are one engine's config keys goes to the services whose config file of that engine is
// set at run time or names a file not given, when it is the only such input that fits
// the service (same engine; the same role when both say one). Two inputs that fit one
// service join neither: kb does not choose between them.
void by_content(const std::vector<DeployInput>& inputs, const std::vector<std::size_t>& candidates,
                std::vector<Pending>& pending, std::vector<std::optional<Facts>>& read,
                const Context& ctx, std::vector<std::vector<Use>>& uses,
                std::vector<Diagnostic>& diags) {
  if (pending.empty()) return;
  std::vector<std::string> engines;
  for (const Pending& p : pending) {
    if (std::find(engines.begin(), engines.end(), p.ref.engine) == engines.end())
      engines.push_back(p.ref.engine);
  }
  std::vector<std::pair<std::size_t, ConfigGuess>> guesses;
  for (std::size_t c : candidates) {
    if (!uses[c].empty()) continue;
    ctx.budget->reading(inputs[c].file);
    if (auto g = guess_config(inputs[c], engines, ctx)) guesses.emplace_back(c, std::move(*g));
  }
  std::vector<std::vector<std::size_t>> joined_to(inputs.size());
  for (std::size_t i = 0; i < pending.size(); ++i) {
    Pending& p = pending[i];
    const Service* svc = p.ref.service < read[p.facts]->services.size()
                             ? &read[p.facts]->services[p.ref.service]
                             : nullptr;
    if (!svc) continue;
    const std::string role = stated_role(ctx.vocab, *svc);
    std::vector<std::size_t> fits;
    for (const auto& [c, g] : guesses) {
      if (g.engine != p.ref.engine) continue;
      if (!g.role.empty() && !role.empty() && role != service_role::kBoth && role != g.role)
        continue;
      fits.push_back(c);
    }
    if (fits.size() > 1) p.ambiguous = true;
    if (fits.size() != 1) continue;
    p.joined = true;
    uses[fits.front()].push_back({p.facts, p.ref});
    joined_to[fits.front()].push_back(i);
  }
  for (std::size_t c = 0; c < inputs.size(); ++c) {
    if (joined_to[c].empty()) continue;
    const Pending& first = pending[joined_to[c].front()];
    std::string services;
    for (std::size_t i : joined_to[c]) {
      const Pending& p = pending[i];
      const std::string& name = read[p.facts]->services[p.ref.service].name;
      if (services.find("'" + name + "'") != std::string::npos) continue;
      services += (services.empty() ? "'" : ", '") + name + "'";
    }
    const std::string engine(text::id_slug(first.ref.engine));
    const std::string why = first.literal
                                ? "names " + first.ref.path + ", which is not among the inputs"
                                : "is set at run time (" + first.ref.path + ")";
    diags.push_back(diag(first.literal ? Severity::warning : Severity::note,
                         diag_code("deploy.config-file-by-content"), inputs[c].file, {},
                         "read as the " + engine + " config file of " + services + ": " +
                             first.ref.via + " there " + why + ", and this file's keys are " +
                             engine + "'s",
                         first.literal ? "give the file under the name the service uses, or "
                                         "leave it out if it is not that service's"
                                       : ""));
  }
}

}  // namespace

std::vector<bool> join_config_files(const std::vector<DeployInput>& inputs,
                                    const std::vector<std::size_t>& candidates,
                                    std::vector<std::optional<Facts>>& read, const Context& ctx,
                                    std::vector<Diagnostic>& diags) {
  std::vector<bool> taken(inputs.size(), false);
  std::vector<std::vector<Use>> uses(inputs.size());
  std::vector<Pending> pending;
  for (std::size_t f = 0; f < read.size(); ++f) {
    if (!read[f]) continue;
    for (const ConfigRef& ref : read[f]->config_refs) {
      const auto tail = literal_tail(ref.path);
      std::size_t best = 0, best_len = 0;
      bool tie = false;
      for (std::size_t c : candidates) {
        const std::size_t len = tail.empty() ? 0 : suffix_match(tail, inputs[c].file);
        if (len == 0) continue;
        if (len > best_len) {
          best = c;
          best_len = len;
          tie = false;
        } else if (len == best_len) {
          tie = true;
        }
      }
      if (tie) {
        read[f]->unread.push_back({ref.file, ref.pos, ref.via + " " + ref.path,
                                   "several inputs have this file name; give only the one it "
                                   "names"});
        continue;
      }
      if (best_len == 0) {
        pending.push_back({f, ref, !tail.empty()});
        continue;
      }
      uses[best].push_back({f, ref});
    }
  }
  by_content(inputs, candidates, pending, read, ctx, uses, diags);
  for (const Pending& p : pending) {
    if (p.joined) continue;
    read[p.facts]->unread.push_back(
        {p.ref.file, p.ref.pos, p.ref.via + " " + p.ref.path,
         p.ambiguous ? "several inputs hold this engine's config keys and the path does not say "
                       "which one; give only the one it names"
                     : "the config file is not among the inputs, so its settings are not known"});
  }
  for (std::size_t c : candidates) {
    if (uses[c].empty()) continue;
    const DeployInput& in = inputs[c];
    ctx.budget->reading(in.file);
    std::vector<yaml::Node> docs;
    std::vector<Diagnostic> parse_diags;
    taken[c] = true;
    if (!parse_documents(in.text, in.file, docs, parse_diags) || docs.empty() ||
        !docs.front().is_map()) {
      diags.insert(diags.end(), parse_diags.begin(), parse_diags.end());
      if (count_severity(parse_diags, Severity::error) == 0) {
        diags.push_back(
            diag(Severity::error, diag_code("deploy.bad-config-file"), in.file, {},
                 "a config file named by " + uses[c].front().ref.via + " is not a mapping of keys",
                 "give the engine's config file in YAML or JSON"));
      }
      continue;
    }
    for (const Use& use : uses[c]) {
      Facts& owner = *read[use.facts];
      if (use.ref.service >= owner.services.size()) continue;
      Service& svc = owner.services[use.ref.service];
      std::vector<KeyFact> keys;
      leaves(docs.front(), "", in.file, in.text, "config file", keys, owner.unread);
      // Each service that names the file gets a copy of its keys: charged, so that many
      // services naming one large file cannot multiply memory.
      std::size_t cost = 0;
      for (const KeyFact& k : keys) {
        cost +=
            Budget::kFactOverhead + k.key.size() + k.value.size() + k.file.size() + k.via.size();
      }
      if (!ctx.budget->spend(cost, use.ref.pos, "the keys of config file " + in.file)) break;
      if (!runs_engine(svc, use.ref.engine, ctx)) {
        // `LMCACHE_CONFIG_FILE` beside a vLLM without an LMCache connector, `--config` of a
        // service that is not vLLM: the file configures nothing this service runs.
        owner.unread.push_back({use.ref.file, use.ref.pos, use.ref.via + " " + use.ref.path,
                                "names a config file of " +
                                    std::string(text::id_slug(use.ref.engine)) +
                                    ", which this service does not run"});
        continue;
      }
      SettingsReader settings(ctx, owner, svc, use.ref.engine);
      settings.config_file(keys, use.ref.engine);
      settings.finish();
    }
  }
  return taken;
}

}  // namespace kb::deploy
