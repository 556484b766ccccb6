// Resolving a deployment against the knowledge base before it is checked: engine names to
// engine ids, keys to canonical settings keys, values normalised by the setting's type,
// and what facts imply -- a connector's engine, a model's traits. Whatever cannot be
// resolved is an error (the gate fails closed) unless the caller allows unknowns.

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "check/check_resolve.h"
#include "core/text_util.h"
#include "deploy/settings_reader.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "schema/setting_values.h"

namespace kb {
namespace {

std::string slug(std::string_view id) {
  return std::string(text::id_slug(id));
}

class Resolver {
 public:
  Resolver(const Corpus& corpus, const Vocabulary& vocab, const std::string& file, bool allow,
           std::vector<Diagnostic>& diags)
      : corpus_(corpus), vocab_(vocab), file_(file), allow_(allow), diags_(diags) {}

  void engines(std::vector<DeployedEngine>& list) {
    for (DeployedEngine& e : list) {
      auto id = corpus_.target(Kind::engine, e.name);
      if (id) {
        e.id = *id;
        continue;
      }
      auto candidates = corpus_.names().candidates(Kind::engine, e.name, 1);
      std::string hint = candidates.empty()
                             ? "no engine record has this name: add one under records/engines/, "
                               "or pass --allow-unknown to check without it"
                             : "did you mean '" + slug(candidates[0].id) + "'?";
      report(diag_code("check.unknown-engine"), e.file, e.pos,
             "engine '" + e.name + "' is not in the knowledge base", std::move(hint));
    }
  }

  void settings(std::vector<Setting>& list) {
    std::vector<Setting> out;
    for (Setting& s : list) {
      if (s.raw_key.empty()) s.raw_key = s.key;
      if (s.raw_value.empty()) s.raw_value = s.value;
      const Record* rec = vocab_.setting(s.key);
      if (!rec) {
        auto candidates = corpus_.names().candidates(Kind::setting, s.key, 1);
        std::string hint =
            candidates.empty()
                ? "no settings record declares this key: add one under records/settings/, or "
                  "pass --allow-unknown to check without it"
                : "did you mean '" + key_of(candidates[0].id) + "'?";
        report(diag_code("check.unknown-setting"), s.file, s.pos,
               "setting '" + s.key + "' is not in the knowledge base", std::move(hint));
        continue;
      }
      const SettingDef& def = rec->setting;
      if (def.scope == setting_scope::kSymptom) {
        report(diag_code("check.unknown-setting"), s.file, s.pos,
               "'" + s.key + "' names the words search takes for a symptom (" + rec->id +
                   "), not a setting a deployment has",
               "remove it; a deployment states its engines, flags and configuration");
        continue;
      }
      if (s.runtime) {
        // Set when the service starts: known to be set, with a value nobody can read here.
        s.key = def.key;
        s.setting = rec->id;
        auto dup =
            std::find_if(out.begin(), out.end(), [&](const Setting& x) { return x.key == s.key; });
        if (dup == out.end()) out.push_back(std::move(s));
        continue;
      }
      // A role, too, is one of its record's values: which roles there are is data.
      auto normalized = normalize_value(def, s.value);
      std::optional<std::string> value = std::move(normalized.value);
      std::string why = std::move(normalized.error.message);
      if (!value) {
        report(diag_code("check.bad-value"), s.file, s.pos, def.key + ": " + why,
               "write a " + def.type + " value; see " + rec->id);
        continue;
      }
      s.key = def.key;
      s.value = *value;
      s.setting = rec->id;
      // A fact a reader found says how it was spelled in `via`; only a changed value is news.
      // Once per place: services reading one node (a YAML alias, a shared mapping) say it
      // once.
      if (s.raw_value != s.value || (s.raw_key != s.key && s.via.empty())) {
        std::string message =
            s.raw_key + ": " + s.raw_value + " is read as " + s.key + ": " + s.value;
        if (noted_
                .insert(s.file + ":" + std::to_string(s.pos.line) + ":" +
                        std::to_string(s.pos.column) + ":" + message)
                .second) {
          diags_.push_back({Severity::note, diag_code("check.normalized"), file_of(s.file),
                            s.pos.line, s.pos.column, std::move(message), "", ""});
        }
      }
      auto dup =
          std::find_if(out.begin(), out.end(), [&](const Setting& x) { return x.key == s.key; });
      if (dup != out.end()) {
        if (dup->value != s.value) {
          report(diag_code("check.conflicting-setting"), s.file, s.pos,
                 s.key + " is set twice with different values (" + dup->raw_key + ": " +
                     dup->raw_value + " and " + s.raw_key + ": " + s.raw_value + ")",
                 "set it once", /*always_error=*/true);
        }
        continue;
      }
      out.push_back(std::move(s));
    }
    list = std::move(out);
  }

  // Engines and settings a service has because of another fact, and its model's traits.
  void implications(Service& svc) {
    for (std::size_t i = 0; i < svc.config.size(); ++i) {
      const Setting s = svc.config[i];
      const Record* rec = s.setting.empty() ? nullptr : corpus_.find(s.setting);
      if (!rec || rec->setting->type != setting_type::kEnum) continue;
      for (const SettingValue& v : rec->setting->values) {
        if (v.value != s.value) continue;
        for (const RefValue& e : v.engines) {
          auto id = corpus_.target(Kind::engine, e.raw);
          if (!id) continue;
          if (has_engine(svc, *id)) {
            for (DeployedEngine& x : svc.engines) {
              if (x.id == *id) x.needs_enabling = false;  // the setting enables the plugin
            }
            continue;
          }
          DeployedEngine de;
          de.name = slug(*id);
          de.id = *id;
          de.pos = s.pos;
          de.file = s.file;
          de.via = s.key + " = " + s.value;
          svc.engines.push_back(std::move(de));
        }
        for (const KeyValue& kv : v.implies)
          derive(svc, kv, s.file, s.pos, s.key + " = " + s.value);
      }
    }
    {
      auto models = svc.model.empty() ? std::vector<const Record*>{} : vocab_.models_for(svc.model);
      if (!models.empty()) {
        svc.model_record = models.front()->id;
        for (const KeyValue& kv : models.front()->traits) {
          derive(svc, kv, svc.file, svc.model_pos,
                 "model " + svc.model + " (" + models.front()->id + ")");
        }
      } else if (const Setting* served = svc.find("served_model_name");
                 served && !served->runtime && !served->value.empty()) {
        // Weights no record matches (`/data/ckpt`): the name the server answers to, when a
        // model record matches it, says which model it is.
        // Copies: derive() adds settings, which moves the one `served` points at.
        const std::string name = served->value;
        const std::string file = served->file.empty() ? svc.file : served->file;
        const Pos pos = served->pos;
        models = vocab_.models_for(name);
        if (!models.empty()) {
          if (svc.model.empty()) {
            svc.model = name;
            svc.model_pos = pos;
          }
          svc.model_record = models.front()->id;
          for (const KeyValue& kv : models.front()->traits) {
            derive(svc, kv, file, pos,
                   "served model name " + name + " (" + models.front()->id + ")");
          }
        }
      }
    }
    if (const Setting* role = svc.find(service_role::kKey)) svc.role = role->value;
    default_engines(svc);
    // A plugin the image ships that no setting enabled does not run; a setting that could
    // enable it but is set at run time leaves it running (unknown is not "off").
    for (DeployedEngine& e : svc.engines) {
      if (e.needs_enabling && could_enable_at_run_time(svc, e.id)) e.needs_enabling = false;
    }
    std::erase_if(svc.engines, [](const DeployedEngine& e) { return e.needs_enabling; });
  }

  // A service that serves no model of its own (a router, a cache server: a role that runs
  // no shipped engine) and names none works for the model of its serving graph: when
  // every service of the graph that serves one names the same model a record knows, it
  // takes that model and its traits (an LMCache server beside Qwen3 workers holds no
  // multimodal KV). Otherwise its model stays unknown.
  void graph_models(std::vector<Service>& services) {
    std::map<std::string, std::vector<Service*>> graphs;
    for (Service& s : services) graphs[s.group].push_back(&s);
    for (auto& graph : graphs) {
      const Service* named = nullptr;
      bool one = true;
      for (const Service* s : graph.second) {
        if (!deploy::runs_shipped(vocab_, s->role)) continue;
        if (s->model_record.empty() || (named && named->model_record != s->model_record)) {
          one = false;
          break;
        }
        if (!named) named = s;
      }
      if (!one || !named) continue;
      const Record* model = corpus_.find(named->model_record);
      if (!model) continue;
      for (Service* s : graph.second) {
        if (!s->model.empty() || deploy::runs_shipped(vocab_, s->role)) continue;
        s->model = named->model;
        s->model_pos = named->file == s->file ? named->model_pos : s->pos;
        s->model_record = named->model_record;
        const std::string via = "model " + named->model + " of '" + named->name +
                                "', its serving graph's (" + std::string(model->id) + ")";
        for (const KeyValue& kv : model->traits) derive(*s, kv, named->file, named->model_pos, via);
      }
    }
  }

 private:
  // Engines a default brings: a default that names the roles it holds for (SGLang's
  // transfer backend, mooncake, on a prefill or decode server) runs its value's engines
  // there, as the value written out would. A setting the service states is its own.
  void default_engines(Service& svc) {
    std::vector<DeployedEngine> added;
    for (const DeployedEngine& e : svc.engines) {
      if (e.id.empty() || e.needs_enabling) continue;
      std::optional<Version> version;
      if (!e.version.empty()) version = Version::parse(e.version);
      for (const Record* rec : vocab_.role_defaults()) {
        if (svc.find(rec->setting->key)) continue;
        const DefaultValue d = vocab_.default_for(*rec, e.id, version, svc.role);
        if (!d.value || !d.from || d.from->roles.empty()) continue;
        for (const SettingValue& v : rec->setting->values) {
          if (v.value != *d.value) continue;
          for (const RefValue& ref : v.engines) {
            auto id = corpus_.target(Kind::engine, ref.raw);
            if (!id) continue;
            const std::string via = rec->setting->key.str() + " = " + *d.value +
                                    " (the default of " + slug(e.id) + " on a " + svc.role +
                                    " server)";
            bool have = false;
            for (DeployedEngine& x : svc.engines) {
              if (x.id != *id) continue;
              have = true;
              if (x.needs_enabling) {
                x.needs_enabling = false;  // the default enables the plugin the image ships
                x.via += "; enabled by " + via;
              }
            }
            for (const DeployedEngine& x : added) have = have || x.id == *id;
            if (have) continue;
            DeployedEngine de;
            de.name = slug(*id);
            de.id = *id;
            de.pos = e.pos;
            de.file = e.file;
            de.via = via;
            added.push_back(std::move(de));
          }
        }
      }
    }
    for (DeployedEngine& de : added) svc.engines.push_back(std::move(de));
  }

  // Whether a setting set at run time has a value that would run engine `id`.
  bool could_enable_at_run_time(const Service& svc, const std::string& id) const {
    for (const Setting& s : svc.config) {
      const Record* rec = s.runtime && !s.setting.empty() ? corpus_.find(s.setting) : nullptr;
      if (!rec) continue;
      for (const SettingValue& v : rec->setting->values) {
        for (const RefValue& e : v.engines) {
          if (corpus_.target(Kind::engine, e.raw) == id) return true;
        }
      }
    }
    return false;
  }

  std::string key_of(const std::string& setting_id) const {
    if (const Record* r = corpus_.find(setting_id)) return r->setting->key;
    return slug(setting_id);
  }

  const std::string& file_of(const std::string& f) const { return f.empty() ? file_ : f; }

  static bool has_engine(const Service& svc, const std::string& id) {
    return std::any_of(svc.engines.begin(), svc.engines.end(),
                       [&](const DeployedEngine& e) { return e.id == id; });
  }

  void derive(Service& svc, const KeyValue& kv, const std::string& file, Pos pos,
              const std::string& via) {
    const Record* rec = vocab_.setting(kv.key.raw);
    if (!rec) return;
    if (svc.find(rec->setting->key)) return;
    auto value = normalize_value(rec->setting, kv.value).value;
    if (!value) return;
    Setting s{rec->setting->key, *value, pos};
    s.file = file;
    s.via = via;
    s.raw_key = kv.key.raw;
    s.raw_value = kv.value;
    s.setting = rec->id;
    s.derived = true;
    svc.config.push_back(std::move(s));
  }

  void report(const char* code, const std::string& file, Pos pos, std::string message,
              std::string hint, bool always_error = false) {
    diags_.push_back({allow_ && !always_error ? Severity::warning : Severity::error, code,
                      file_of(file), pos.line, pos.column, std::move(message), std::move(hint),
                      ""});
  }

  const Corpus& corpus_;
  const Vocabulary& vocab_;
  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  bool allow_;
  std::vector<Diagnostic>& diags_;
  std::set<std::string> noted_;  ///< check.normalized notes given: file:line:column:message
};

bool has_role(const std::vector<Service*>& group, std::string_view role) {
  return std::any_of(group.begin(), group.end(), [&](const Service* s) { return s->role == role; });
}

// Which serving graph each service belongs to. Services of one input file are one graph;
// graphs that are half of a P/D pair (prefill without decode, or decode without prefill)
// are joined with the other halves given beside them that serve the same model (or whose
// model is unknown), and a file of helpers only (cache servers, routers) joins the one
// graph that serves, if there is one. Two whole P/D deployments checked together stay apart. Only
// graphs still waiting for their other half are compared, and no graph's services are rescanned.
void group_services(std::vector<Service>& services, const std::string& default_file) {
  struct Graph {
    std::vector<Service*> members;
    std::set<std::string> models;
    bool prefill = false, decode = false;
    bool half() const { return prefill != decode; }
    void add(Service* s) {
      members.push_back(s);
      if (!s->model.empty()) models.insert(s->model);
      prefill = prefill || s->role == service_role::kPrefill;
      decode = decode || s->role == service_role::kDecode;
    }
  };
  std::map<std::string, std::size_t> file_index;
  std::vector<Graph> files;
  for (Service& s : services) {
    const std::string& f = s.file.empty() ? default_file : s.file;
    auto [it, fresh] = file_index.emplace(f, files.size());
    if (fresh) files.emplace_back();
    files[it->second].add(&s);
  }
  std::vector<Graph> joined;
  std::vector<std::size_t> open_halves;  // joined graphs still waiting for their other half
  for (Graph& g : files) {
    bool placed = false;
    if (g.half()) {
      for (std::size_t j : open_halves) {
        Graph& h = joined[j];
        const bool same_model =
            g.models.empty() || h.models.empty() ||
            std::any_of(g.models.begin(), g.models.end(),
                        [&](const std::string& m) { return h.models.count(m) > 0; });
        if (!same_model) continue;
        for (Service* s : g.members) h.add(s);
        placed = true;
        break;
      }
      std::erase_if(open_halves, [&](std::size_t j) { return !joined[j].half(); });
    }
    if (placed) continue;
    joined.push_back(std::move(g));
    if (joined.back().half()) open_halves.push_back(joined.size() - 1);
  }
  // A file of helpers only (an LMCache server, a router, no prefill, decode or monolithic
  // server) serves the servers given beside it: joined to them when they are one graph.
  auto serves = [](const Graph& g) {
    return std::any_of(g.members.begin(), g.members.end(), [](const Service* s) {
      return s->role == service_role::kPrefill || s->role == service_role::kDecode ||
             s->role == service_role::kBoth;
    });
  };
  const auto serving = std::count_if(joined.begin(), joined.end(), serves);
  if (serving == 1 && joined.size() > 1) {
    auto main = std::find_if(joined.begin(), joined.end(), serves);
    std::vector<Graph> kept;
    Graph whole = std::move(*main);
    for (auto it = joined.begin(); it != joined.end(); ++it) {
      if (it == main) continue;
      for (Service* s : it->members) whole.add(s);
    }
    kept.push_back(std::move(whole));
    joined = std::move(kept);
  }
  if (joined.size() < 2) return;  // one graph: nothing to tell apart
  for (std::size_t j = 0; j < joined.size(); ++j) {
    for (Service* s : joined[j].members) s->group = std::to_string(j + 1);
  }
}

// Settings records' `derive:` rules, per serving graph: each service of the rule's roles
// takes the value when the graph has a service of every one of them and they do not
// disagree on the shared keys. A value a service states itself wins.
void derive_settings(std::vector<Service>& services, const Vocabulary& vocab) {
  std::map<std::string, std::vector<Service*>> graphs;
  for (Service& s : services) graphs[s.group].push_back(&s);
  for (const Record* rec : vocab.derived()) {
    const SettingDef& def = *rec->setting;
    for (const Derivation& dv : def.derive) {
      auto value = normalize_value(def, dv.value).value;
      if (!value || dv.roles.empty()) continue;
      for (const auto& graph : graphs) {
        std::vector<Service*> sides;
        for (Service* s : graph.second) {
          if (std::find(dv.roles.begin(), dv.roles.end(), s->role) != dv.roles.end())
            sides.push_back(s);
        }
        const bool every_role = std::all_of(dv.roles.begin(), dv.roles.end(),
                                            [&](const auto& r) { return has_role(sides, r); });
        if (!every_role) continue;
        bool agree = true;
        std::vector<std::string> shared;  // the keys some side sets, all to one value
        for (const std::string& key : dv.shared) {
          std::optional<std::string> seen;
          for (const Service* s : sides) {
            const Setting* st = s->find(key);
            if (!st || st->runtime) continue;
            if (seen && *seen != st->value) agree = false;
            seen = st->value;
          }
          if (seen) shared.push_back(key + " " + *seen);
        }
        if (!agree) continue;
        std::string via = "derived: ";
        for (std::size_t i = 0; i < dv.roles.size(); ++i) {
          via += (i ? " and " : "") + std::string(dv.roles[i]) + " ";
          for (const Service* s : sides) {
            if (s->role == dv.roles[i]) {
              via += "'" + s->name + "'";
              break;
            }
          }
        }
        if (!shared.empty()) {
          via += " (sharing";
          for (std::size_t i = 0; i < shared.size(); ++i) via += (i ? ", " : " ") + shared[i];
          via += ")";
        }
        via += " (" + std::string(rec->id) + ")";
        for (Service* s : sides) {
          if (s->find(def.key)) continue;
          Setting st{def.key, *value, {}};
          st.file = s->file;
          st.via = via;
          st.raw_key = def.key;
          st.raw_value = dv.value;
          st.setting = rec->id;
          st.derived = true;
          s->config.push_back(std::move(st));
        }
      }
    }
  }
}

}  // namespace

void resolve_deployment(Deployment& d, const Corpus& corpus, const Vocabulary& vocab,
                        bool allow_unknown, std::vector<Diagnostic>& diags) {
  Resolver r(corpus, vocab, d.file, allow_unknown, diags);
  r.engines(d.engines);
  r.settings(d.config);
  for (Service& s : d.services) {
    r.engines(s.engines);
    r.settings(s.config);
  }
  std::vector<Service> services = d.effective_services();
  for (Service& s : services) {
    // Unresolved engines stay listed (for --print-deployment) but take no slot.
    r.implications(s);
  }
  group_services(services, d.file);
  r.graph_models(services);
  derive_settings(services, vocab);
  d.services = std::move(services);
}

}  // namespace kb
