// Config files a service names: `LMCACHE_CONFIG_FILE=$SCRIPT_DIR/configs/prefiller.yaml`,
// TensorRT-LLM's `--extra_llm_api_options`, Dynamo's `--extra-engine-args`. A settings
// record whose value is such a path says so (`file_of: ENGINE`); when the file is among
// the inputs, its keys are read as that engine's and join the service that named it,
// instead of the file being taken for a deployment of its own.

#include "deploy/config_files.h"

#include "deploy/command.h"

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

}  // namespace

std::vector<bool> join_config_files(const std::vector<DeployInput>& inputs,
                                    const std::vector<std::size_t>& candidates,
                                    std::vector<std::optional<Facts>>& read, const Context& ctx,
                                    std::vector<Diagnostic>& diags) {
  std::vector<bool> taken(inputs.size(), false);
  struct Use {
    std::size_t facts;  // index of the input whose service named the file
    ConfigRef ref;
  };
  std::vector<std::vector<Use>> uses(inputs.size());
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
      if (best_len == 0 || tie) {
        read[f]->unread.push_back(
            {ref.file, ref.pos, ref.via + " " + ref.path,
             tie ? "several inputs have this file name; give only the one it names"
                 : "the config file is not among the inputs, so its settings are not known"});
        continue;
      }
      uses[best].push_back({f, ref});
    }
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
