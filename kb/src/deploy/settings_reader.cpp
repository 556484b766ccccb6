#include "deploy/settings_reader.h"

#include <set>

#include <algorithm>
#include <cctype>

#include "core/text_util.h"
#include "deploy/settings_reader_internal.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/version.h"
#include "yaml/yaml_tree.h"

namespace kb::deploy {

using namespace settings_detail;

namespace {

std::string where(Pos p) {
  return p.line > 0 ? " (line " + std::to_string(p.line) + ")" : "";
}

}  // namespace

SettingsReader::SettingsReader(const Context& ctx, Facts& out, Service& svc,
                               std::string entry_engine)
    : ctx_(ctx),
      out_(out),
      svc_(svc),
      entry_engine_(std::move(entry_engine)),
      service_index_(out.services.size()) {}

bool SettingsReader::engine_in_service(const SpellingRef& ref) const {
  auto id = ctx_.corpus.target(Kind::engine, ref.engine->engine.raw);
  if (!id) return false;
  for (const DeployedEngine& e : svc_.engines) {
    if (e.id != *id) continue;
    if (ref.engine->versions.empty() || e.version.empty()) return true;
    auto v = Version::parse(e.version);
    auto range = VersionRange::parse(ref.engine->versions);
    return !v || !range || range->contains(*v);
  }
  return false;
}

const SpellingRef* SettingsReader::choose(const std::vector<SpellingRef>* refs, bool borrow) const {
  if (!refs || refs->empty()) return nullptr;
  const SpellingRef* mine = nullptr;
  const SpellingRef* entry = nullptr;
  if (!only_engine_.empty()) {
    // A config file of this engine (whether the service runs it was decided before).
    for (const SpellingRef& r : *refs) {
      if (ctx_.corpus.target(Kind::engine, r.engine->engine.raw) == only_engine_) return &r;
    }
    return nullptr;
  }
  for (const SpellingRef& r : *refs) {
    if (!engine_in_service(r)) continue;
    if (!mine) mine = &r;
    if (!entry && ctx_.corpus.target(Kind::engine, r.engine->engine.raw) == entry_engine_)
      entry = &r;
  }
  if (entry) return entry;
  if (mine) return mine;
  if (!borrow) return nullptr;
  // Spelled only by engines this service does not run: usable when every spelling means
  // the same setting.
  const bool one = std::all_of(refs->begin(), refs->end(), [&](const SpellingRef& r) {
    return r.setting == refs->front().setting;
  });
  return one ? &refs->front() : nullptr;
}

void SettingsReader::unread(const std::string& file, Pos pos, std::string text, std::string why) {
  out_.unread.push_back({file, pos, std::move(text), std::move(why)});
}

void SettingsReader::set(const SpellingRef& ref, const std::string& raw_value,
                         const std::string& via, const std::string& file, Pos pos, Pos end,
                         int rank, bool runtime) {
  const SettingDef& def = ref.setting->setting;
  runtime = runtime || set_at_run_time(raw_value);
  std::string value = ref.spelling->has_value ? ref.spelling->value.str() : raw_value;
  if (ref.spelling->invert && def.type == setting_type::kBool && !runtime) {
    if (auto norm = normalize_value(def, value).value) value = *norm == "true" ? "false" : "true";
  }
  if (!def.file_of.raw.empty() && !raw_value.empty()) {
    // A config file of an engine: joined to this service when it is among the inputs.
    if (auto engine = ctx_.corpus.target(Kind::engine, def.file_of.raw)) {
      out_.config_refs.push_back({service_index_, raw_value, *engine, file, pos, via});
    }
  }
  if (def.key == "model") {
    if (runtime) return;
    svc_.model = value;
    svc_.model_pos = pos;
    return;
  }
  Candidate c;
  Setting& s = c.setting;
  s.key = def.key;
  s.value = runtime ? std::string() : value;
  s.raw_key = ref.spelling->name + (ref.spelling->field.empty() ? "" : "." + ref.spelling->field);
  s.raw_value =
      runtime ? raw_value : (ref.spelling->has_value && raw_value.empty() ? value : raw_value);
  s.via = via;
  s.file = file;
  s.pos = pos;
  s.end = end;
  s.runtime = runtime;
  c.rank = rank;
  c.order = order_++;
  if (auto norm = normalize_value(def, value).value; norm && !runtime) {
    c.has_norm = true;
    c.norm = *norm;
  }
  auto it = by_key_.find(def.key);
  if (it == by_key_.end()) {
    by_key_.emplace(def.key, std::move(c));
    return;
  }
  Candidate& old = it->second;
  const bool differ = !c.has_norm || !old.has_norm || c.norm != old.norm;
  auto shown = [](const Setting& x) {
    return x.via + (x.runtime             ? " (set at run time)"
                    : x.raw_value.empty() ? ""
                                          : " = " + x.raw_value);
  };
  if (rank <= old.rank) {
    if (differ) {
      unread(old.setting.file, old.setting.pos, shown(old.setting),
             "overridden by " + shown(s) + where(s.pos));
    }
    c.order = old.order;
    old = std::move(c);
  } else if (differ) {
    unread(s.file, s.pos, shown(s), "overridden by " + shown(old.setting) + where(old.setting.pos));
  }
}

void SettingsReader::role_fact(const char* spelled, const std::string& role, Pos pos, Pos end,
                               const std::string& file, const std::string& via, int rank) {
  const Record* rec = ctx_.vocab.setting(service_role::kKey);
  if (!rec) return;
  Spelling spelling;
  spelling.name = spelled;
  EngineSpelling engine;
  SpellingRef ref{rec, &engine, &spelling};
  set(ref, role, via, file, pos, end, rank);
}

void SettingsReader::entrypoint_role(const std::string& role, const Word& at,
                                     const std::string& file, const std::string& via) {
  role_fact("entrypoint", role, at.pos, at.end, file, via, kEntryFlag);
  // A load generator's `--backend vllm` names the API it sends to, not trtllm-serve's
  // runtime: a command that runs no engine but its own takes no other engine's flags.
  borrow_flags_ = runs_shipped(ctx_.vocab, role_value(ctx_.vocab, role));
}

void SettingsReader::entrypoint_implies(const Vec<KeyValue>& implies, const Str& versions,
                                        const Word& at, const std::string& file,
                                        const std::string& via) {
  // Implied for some versions of the entry point's engine only (Dynamo's dynamo.vllm
  // chose NIXL before 1.0.0): out of them, nothing; with the version unknown, unknown.
  bool unknown = false;
  if (!text::trim(versions).empty()) {
    auto range = VersionRange::parse(versions);
    std::optional<Version> v;
    for (const DeployedEngine& e : svc_.engines) {
      if (e.id == entry_engine_ && !e.version.empty()) v = Version::parse(e.version);
    }
    if (range && v && !range->contains(*v)) return;
    unknown = !range || !v;
  }
  const std::string said =
      via + (unknown ? " (for " + versions.str() + "; the version is unknown)" : std::string());
  for (const KeyValue& kv : implies) {
    const Record* rec = ctx_.vocab.setting(kv.key.raw);
    if (!rec) continue;
    Spelling spelling;
    spelling.name = "entrypoint";
    EngineSpelling engine;
    SpellingRef ref{rec, &engine, &spelling};
    set(ref, kv.value.str(), said, file, at.pos, at.end, kImplied, unknown);
    if (!unknown) continue;
    // Unknown, but one of two: the implied value, or what the service has without it (the
    // default of an engine it runs, when the engines agree on one).
    auto it = by_key_.find(rec->setting->key);
    if (it == by_key_.end() || it->second.setting.via != said) continue;
    std::vector<std::string> values;
    if (auto v = normalize_value(rec->setting, kv.value.str()).value) values.push_back(*v);
    std::optional<std::string> otherwise;
    bool known = true;
    for (const DeployedEngine& e : svc_.engines) {
      if (e.id == entry_engine_) continue;
      std::optional<Version> ev;
      if (!e.version.empty()) ev = Version::parse(e.version);
      const DefaultValue d = ctx_.vocab.default_for(*rec, e.id, ev, svc_.role);
      if (d.uncertain || d.derived || (d.value && otherwise && *otherwise != *d.value))
        known = false;
      if (d.value) otherwise = d.value;
    }
    if (!known || !otherwise || values.empty()) continue;
    if (*otherwise != values.front()) values.push_back(*otherwise);
    it->second.setting.one_of = std::move(values);
  }
}

void SettingsReader::platform_role(const Word& role, const std::string& file,
                                   const std::string& via) {
  role_fact("platform", role.text, role.pos, role.end, file, via, kKey);
}

void SettingsReader::name_role(const Word& name, const std::string& file) {
  const Record* rec = ctx_.vocab.setting(service_role::kKey);
  if (!rec) return;
  // The words of the name: `ms-pd-llm-d-modelservice-decode` → ms, pd, ..., decode; a
  // CamelCase name by its capitals: `VllmDecodeWorker` → vllm, decode, worker,
  // `TRTLLMPrefillWorker` → trtllm, prefill, worker.
  std::vector<std::string> words;
  std::string cur;
  const std::string& t = name.text;
  auto upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  auto lower = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char ch = t[i];
    if (ch == '-' || ch == '_' || ch == '.' || ch == '/') {
      if (!cur.empty()) words.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    const bool starts =
        upper(ch) && i > 0 &&
        (lower(t[i - 1]) || (upper(t[i - 1]) && i + 1 < t.size() && lower(t[i + 1])));
    if (starts && !cur.empty()) {
      words.push_back(std::move(cur));
      cur.clear();
    }
    cur += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  if (!cur.empty()) words.push_back(std::move(cur));
  const SettingValue* said = nullptr;
  for (const SettingValue& v : rec->setting->values) {
    const bool named = std::any_of(v.in_names.begin(), v.in_names.end(), [&](const std::string& n) {
      return std::find(words.begin(), words.end(), text::lower(n)) != words.end();
    });
    if (!named) continue;
    if (said && said != &v) return;  // `prefill-decode`: the name says nothing clear
    said = &v;
  }
  if (!said) return;
  const std::string role = said->value.str();
  const std::string via = "name " + name.text;
  if (auto it = by_key_.find(std::string(service_role::kKey)); it != by_key_.end()) {
    Candidate& old = it->second;
    if (!old.has_norm || old.norm == role) return;
    if (old.norm != service_role::kBoth) {
      // What the service says is stronger than its name.
      return;
    }
    unread(old.setting.file, old.setting.pos, old.setting.via + " = " + old.setting.raw_value,
           "a connector mode, not the service's place: its " + via + where(name.pos) + " says " +
               role);
    by_key_.erase(it);
  }
  role_fact("name", role, name.pos, name.end, file, via, kImplied + 1);
}

void SettingsReader::args(const std::vector<Word>& args, const std::string& file,
                          bool positional_model) {
  bool model_done = !positional_model;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Word& w = args[i];
    const std::string& t = w.text;
    if (t == "--") {
      for (std::size_t j = i + 1; j < args.size(); ++j) {
        unread(file, args[j].pos, args[j].text, "an argument kb does not read");
      }
      return;
    }
    if (!looks_like_flag(t)) {
      if (!model_done && set_at_run_time(t)) {
        model_done = true;  // `vllm serve $2`: the model is chosen when the script runs
        unread(file, w.pos, t, "the model is set at run time");
      } else if (!model_done) {
        svc_.model = t;
        svc_.model_pos = w.pos;
        model_done = true;
      } else {
        unread(file, w.pos, t, "an argument kb does not read");
      }
      continue;
    }
    const auto eq = t.find('=');
    const std::string name = t.substr(0, eq);
    const bool has_inline = eq != std::string::npos;
    Word value_word{has_inline ? t.substr(eq + 1) : std::string(), w.pos, w.end};
    auto next_value = [&]() -> const Word* {
      if (has_inline) return &value_word;
      if (i + 1 < args.size() && !looks_like_flag(args[i + 1].text)) return &args[++i];
      return nullptr;
    };
    // A flag one engine takes as JSON and another as a plain flag (`--kv-events-config`:
    // vLLM's fields, SGLang's switch) is read as the engine of this service spells it.
    const auto* json = ctx_.vocab.json(name);
    const auto mine = [&](const SpellingRef& r) { return engine_in_service(r); };
    const SpellingRef* plain = choose(ctx_.vocab.flag(name), borrow_flags_);
    const bool json_here = json && std::any_of(json->begin(), json->end(), mine);
    const bool plain_here = plain && engine_in_service(*plain);
    // A router, cache server or client takes no other engine's JSON either.
    if (json && !json->empty() && (json_here || (!plain_here && borrow_flags_))) {
      if (const Word* v = next_value()) {
        json_flag(*json, Word{name, w.pos, w.end}, *v, file);
      } else {
        unread(file, w.pos, t, "no value follows the flag");
      }
      // Its fields may be settings and its presence one more (SGLang's events are on
      // whenever --kv-events-config is given).
      if (plain_here && plain->spelling->has_value) {
        auto engine = ctx_.corpus.target(Kind::engine, plain->engine->engine.raw);
        set(*plain, "", name, file, w.pos, w.end,
            engine && *engine == entry_engine_ ? kEntryFlag : kFlag);
      }
      continue;
    }
    if (const SpellingRef* ref = choose(ctx_.vocab.flag(name), borrow_flags_)) {
      const SettingDef& def = ref->setting->setting;
      auto engine = ctx_.corpus.target(Kind::engine, ref->engine->engine.raw);
      const int rank = engine && *engine == entry_engine_ ? kEntryFlag : kFlag;
      if (!ref->spelling->several.empty() && !has_inline) {
        // Every word up to the next flag: one is the value; several are the setting's
        // value for several at once, each bringing its own engines (`--connector kvbm nixl`).
        std::vector<const Word*> words;
        while (i + 1 < args.size() && !looks_like_flag(args[i + 1].text))
          words.push_back(&args[++i]);
        if (words.empty()) {
          unread(file, w.pos, t, "no value follows the flag");
        } else if (words.size() == 1) {
          set(*ref, words[0]->text, name, file, w.pos, words[0]->end.line ? words[0]->end : w.end,
              rank);
        } else {
          const Pos end = words.back()->end.line ? words.back()->end : w.end;
          set(*ref, ref->spelling->several.str(), name, file, w.pos, end, rank);
          for (const Word* part : words)
            part_value(*ref, part->text, name, file, part->pos, part->end);
        }
        continue;
      }
      const bool is_bool = !ref->spelling->has_value && def.type == setting_type::kBool;
      const bool word_follows =
          !has_inline && i + 1 < args.size() && !looks_like_flag(args[i + 1].text);
      if (is_bool && word_follows && ref->spelling->takes_value == true &&
          !normalize_value(def, args[i + 1].text).value && !set_at_run_time(args[i + 1].text)) {
        // The flag always takes a value, and this one is no bool: say so, never read it as
        // the model.
        const Word& v = args[++i];
        unread(file, v.pos, name + " " + v.text, "not a value of " + def.key);
      } else if (is_bool && word_follows &&
                 (ref->spelling->takes_value == true ||
                  (!ref->spelling->takes_value.has_value() &&
                   normalize_value(def, args[i + 1].text).value))) {
        // `--use_paged_context_fmha disable`: a bool flag given its value as the next word
        // (parsers that take one); read as the value, never as the model.
        const Word& v = args[++i];
        set(*ref, v.text, name, file, w.pos, v.end.line ? v.end : w.end, rank);
      } else if (ref->spelling->has_value || def.type == setting_type::kBool) {
        // A switch whose flag takes a value it does not mean (`--kv-events-config JSON`
        // for SGLang: given at all, events are on): the value is passed over.
        if (ref->spelling->has_value && ref->spelling->takes_value == true && word_follows) ++i;
        set(*ref,
            has_inline ? value_word.text : std::string(ref->spelling->has_value ? "" : "true"),
            name, file, w.pos, w.end, rank);
      } else if (const Word* v = next_value()) {
        set(*ref, v->text, name, file, w.pos, v->end.line ? v->end : w.end, rank);
      } else {
        unread(file, w.pos, t, "no value follows the flag");
      }
      continue;
    }
    std::string text = name;
    if (const Word* v = next_value()) text += (has_inline ? "=" : " ") + shown_value(name, v->text);
    unread(file, w.pos, text, "no settings record spells this flag");
  }
}

void SettingsReader::env(const std::vector<EnvVar>& env) {
  for (const EnvVar& e : env) {
    const std::string via =
        "env " + e.name + (e.source == "env" || e.source.empty() ? "" : " (" + e.source + ")");
    if (const SpellingRef* ref = choose(ctx_.vocab.env(e.name))) {
      if (ref->spelling->has_value && !e.runtime && switched_off(e.value)) continue;
      set(*ref, e.value, via, e.file, e.pos, e.end, kEnv, e.runtime);
    } else {
      unread(e.file, e.pos, via, "no settings record spells this variable");
    }
  }
}

void SettingsReader::keys(const std::vector<KeyFact>& keys) {
  for (const KeyFact& k : keys) {
    const SpellingRef* ref = choose(ctx_.vocab.key(k.key));
    if (!ref) continue;  // labels and fields no record spells are not configuration
    const SettingDef& def = ref->setting->setting;
    if (ref->spelling->has_value && switched_off(k.value)) continue;
    if (!ref->spelling->has_value && !normalize_value(def, k.value).value) {
      unread(k.file, k.pos, k.via + ": " + k.value, "not a value of " + def.key);
      continue;
    }
    set(*ref, k.value, k.via, k.file, k.pos, k.end, kKey);
  }
}

void SettingsReader::config_file(const std::vector<KeyFact>& keys, const std::string& engine) {
  for (Setting& s : svc_.config) {
    Candidate c;
    c.rank = -1;
    c.order = order_++;
    const Record* rec = ctx_.vocab.setting(s.key);
    if (auto norm =
            rec && !s.runtime ? normalize_value(rec->setting, s.value).value : std::nullopt) {
      c.has_norm = true;
      c.norm = *norm;
    }
    const std::string key = s.key;
    c.setting = std::move(s);
    by_key_.emplace(key, std::move(c));
  }
  svc_.config.clear();
  only_engine_ = engine;
  for (const KeyFact& k : keys) {
    // A key the engine spells as a config key, else its flag's long form (vLLM's
    // `--config` file: `enable-prefix-caching: true`), else a field of a JSON-valued flag
    // (`kv-transfer-config: {kv_role: ...}`).
    const SpellingRef* ref = choose(ctx_.vocab.key(k.key));
    if (!ref) ref = choose(ctx_.vocab.flag("--" + k.key));
    // Here, not in the block below that fills it: `ref` may point into it.
    std::vector<SpellingRef> same;
    if (!ref) {
      if (const auto dot = k.key.find('.'); dot != std::string::npos) {
        if (const auto* json = ctx_.vocab.json("--" + k.key.substr(0, dot))) {
          for (const SpellingRef& r : *json) {
            if (r.spelling->field == k.key.substr(dot + 1)) same.push_back(r);
          }
          ref = choose(&same);
        }
      }
    }
    if (!ref) {
      unread(k.file, k.pos, k.via + ": " + k.value, "no settings record spells this key");
      continue;
    }
    const SettingDef& def = ref->setting->setting;
    if (def.key == "model" && !svc_.model.empty()) continue;  // the command line's wins
    if (ref->spelling->has_value && switched_off(k.value)) continue;
    if (!ref->spelling->has_value && !normalize_value(def, k.value).value) {
      unread(k.file, k.pos, k.via + ": " + k.value, "not a value of " + def.key);
      continue;
    }
    set(*ref, k.value, k.via, k.file, k.pos, k.end, kFile);
  }
  only_engine_.clear();
}

void SettingsReader::chart_keys(const std::vector<KeyFact>& keys, const std::string& engine,
                                const std::vector<std::string>& settings_in) {
  only_engine_ = engine;
  for (const KeyFact& k : keys) {
    const SpellingRef* ref = choose(ctx_.vocab.key(k.key));
    if (!ref) {
      // Fields no record spells (replicaCount, pvcStorage) are not settings, except under
      // a path the chart renders into the engine's flags (vllmConfig.dtype).
      for (const std::string& prefix : settings_in) {
        if (k.key.starts_with(prefix)) {
          unread(k.file, k.pos, k.via + ": " + k.value, "no settings record spells this key");
          break;
        }
      }
      continue;
    }
    const SettingDef& def = ref->setting->setting;
    if (ref->spelling->has_value) {
      if (switched_off(k.value)) continue;
    } else if (!normalize_value(def, k.value).value && !set_at_run_time(k.value)) {
      unread(k.file, k.pos, k.via + ": " + k.value, "not a value of " + def.key);
      continue;
    }
    set(*ref, k.value, k.via, k.file, k.pos, k.end, kEntryFlag);
  }
  only_engine_.clear();
}

void SettingsReader::finish() {
  // The parts a flag gave a setting several values with, on the value that flag set (one
  // another fact overrode keeps none).
  std::set<std::pair<std::string, std::string>> kept;  // (key, value): each part once
  for (const Part& part : parts_) {
    auto it = by_key_.find(part.key);
    if (it == by_key_.end() || it->second.setting.runtime) continue;
    const std::string& raw_key = it->second.setting.raw_key;
    if (raw_key != part.flag && !raw_key.starts_with(part.flag + ".")) continue;
    if (kept.insert({part.key, part.value}).second) it->second.setting.parts.push_back(part.value);
  }
  parts_.clear();
  std::vector<Candidate*> list;
  for (auto& [key, c] : by_key_) list.push_back(&c);
  std::sort(list.begin(), list.end(),
            [](const Candidate* a, const Candidate* b) { return a->order < b->order; });
  for (Candidate* c : list) svc_.config.push_back(std::move(c->setting));
  by_key_.clear();
}

std::string role_value(const Vocabulary& vocab, std::string_view spelled) {
  const Record* def = vocab.setting(service_role::kKey);
  if (!def || spelled.empty()) return "";
  return normalize_value(def->setting, spelled).value.value_or("");
}

std::string stated_role(const Vocabulary& vocab, const Service& svc) {
  const Setting* s = svc.find(service_role::kKey);
  return s && !s->runtime ? role_value(vocab, s->value) : "";
}

bool runs_shipped(const Vocabulary& vocab, std::string_view role) {
  const Record* def = vocab.setting(service_role::kKey);
  if (!def || role.empty()) return true;
  for (const SettingValue& v : def->setting->values) {
    if (v.value == role) return v.runs_shipped_engines;
  }
  return true;
}

bool passes_engine_flags(const Vocabulary& vocab, const std::vector<Word>& args) {
  // The model and the port: any client or tool takes those too; and the servers a router
  // names (settings/role's `routed_by`): a proxy of one's own takes those.
  std::set<std::string> not_telling = {"model", std::string(service_role::kPortKey)};
  if (const Record* roles = vocab.setting(service_role::kKey)) {
    for (const SettingValue& v : roles->setting->values)
      not_telling.insert(v.routed_by.begin(), v.routed_by.end());
  }
  for (const Word& w : args) {
    if (!looks_like_flag(w.text)) continue;
    const std::string name = w.text.substr(0, w.text.find('='));
    if (const auto* json = vocab.json(name); json && !json->empty()) return true;
    if (const auto* refs = vocab.flag(name)) {
      for (const SpellingRef& r : *refs) {
        if (!not_telling.count(r.setting->setting->key.str())) return true;
      }
    }
  }
  return false;
}

std::string engine_of_flags(const Vocabulary& vocab, const Corpus& corpus,
                            const std::vector<Word>& args, const Word** which) {
  std::string found;
  const Word* first = nullptr;
  for (const Word& w : args) {
    if (!looks_like_flag(w.text)) continue;
    const std::string name = w.text.substr(0, w.text.find('='));
    std::set<std::string> engines;
    for (const auto* refs : {vocab.flag(name), vocab.json(name)}) {
      if (!refs) continue;
      for (const SpellingRef& r : *refs) {
        if (auto id = corpus.target(Kind::engine, r.engine->engine.raw)) engines.insert(*id);
      }
    }
    if (engines.size() != 1) continue;
    if (!found.empty() && found != *engines.begin()) return "";
    if (found.empty()) first = &w;
    found = *engines.begin();
  }
  if (which) *which = first;
  return found;
}

}  // namespace kb::deploy
