#include "corpus/vocab.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "core/text_util.h"
#include "kb/corpus.h"

namespace kb {

std::string fold_flag(std::string_view flag) {
  std::string out(flag);
  const std::size_t dashes = out.find_first_not_of('-');
  if (dashes == std::string::npos) return out;
  std::replace(out.begin() + static_cast<std::ptrdiff_t>(dashes), out.end(), '_', '-');
  return out;
}

std::shared_ptr<const Vocabulary> Vocabulary::build(const Corpus& corpus) {
  auto v = std::make_shared<Vocabulary>();
  v->corpus_ = &corpus;
  for (const auto& rec : corpus.records()) {
    if (rec->kind == Kind::model) v->models_.push_back(rec.get());
    if (rec->kind != Kind::setting) continue;
    if (!rec->setting->derive.empty()) v->derived_.push_back(rec.get());
    {
      const SettingDef& def = *rec->setting;
      const bool runs = std::any_of(def.values.begin(), def.values.end(),
                                    [](const SettingValue& x) { return !x.engines.empty(); });
      const bool scoped = std::any_of(def.engines.begin(), def.engines.end(), [](const auto& e) {
        return std::any_of(e.defaults.begin(), e.defaults.end(),
                           [](const SettingDefault& d) { return !d.roles.empty(); });
      });
      if (runs && scoped) v->role_defaults_.push_back(rec.get());
    }
    for (const SettingValue& value : rec->setting->values) {
      for (const KeyValue& kv : value.implies) {
        auto& by = v->implied_by_[kv.key.raw.str()];
        if (std::find(by.begin(), by.end(), rec.get()) == by.end()) by.push_back(rec.get());
      }
    }
    for (const auto& e : rec->setting->engines) {
      auto add = [&](auto& map, const Vec<Spelling>& list, bool lower) {
        for (const auto& s : list) {
          std::string name = lower ? text::lower(s.name) : s.name.str();
          map[name].push_back({rec.get(), &e, &s});
        }
      };
      add(v->flags_, e.flags, false);
      add(v->env_, e.env, false);
      add(v->keys_, e.keys, true);
      add(v->json_, e.json, false);
      for (const auto& s : e.flags)
        v->flags_folded_[fold_flag(s.name)].push_back({rec.get(), &e, &s});
      for (const auto& s : e.json)
        v->json_folded_[fold_flag(s.name)].push_back({rec.get(), &e, &s});
    }
  }
  return v;
}

const Record* Vocabulary::setting(std::string_view key) const {
  auto id = corpus_->target(Kind::setting, key);
  return id ? corpus_->find(*id) : nullptr;
}

DefaultValue Vocabulary::default_for(const Record& setting, const std::string& engine_id,
                                     const std::optional<Version>& version,
                                     std::string_view role) const {
  DefaultValue out;
  std::vector<std::pair<std::string, const SettingDefault*>> possible;
  for (const auto& e : setting.setting->engines) {
    auto id = corpus_->target(Kind::engine, e.engine.raw);
    if (!id || *id != engine_id) continue;
    if (version && !text::trim(e.versions).empty()) {
      auto range = VersionRange::parse(e.versions);
      if (range && !range->contains(*version)) continue;
    }
    for (const auto& d : e.defaults) {
      if (!d.roles.empty() && std::find(d.roles.begin(), d.roles.end(), role) == d.roles.end())
        continue;  // not a service of its roles
      // A default worked out at start-up stands as a value no setting can have.
      static const std::string kDerived =
          "\x01"
          "derived";
      auto value = d.derived.empty() ? normalize_value(setting.setting, d.value).value
                                     : std::optional<std::string>(kDerived);
      if (!value) continue;
      if (version) {
        auto range = VersionRange::parse(d.versions);
        if (text::trim(d.versions).empty() || (range && range->contains(*version))) {
          if (d.derived.empty())
            out.value = *value;
          else
            out.derived = true;
          out.from = &d;
          return out;
        }
        continue;
      }
      possible.emplace_back(*value, &d);
    }
  }
  if (possible.empty()) return out;
  const bool agree = std::all_of(possible.begin(), possible.end(),
                                 [&](const auto& p) { return p.first == possible.front().first; });
  if (agree) {
    if (possible.front().second->derived.empty())
      out.value = possible.front().first;
    else
      out.derived = true;
    out.from = possible.front().second;
  } else {
    out.uncertain = true;
    out.from = possible.front().second;
  }
  return out;
}

std::vector<std::string> Vocabulary::engines_with_default(const Record& setting) const {
  std::vector<std::string> out;
  for (const auto& e : setting.setting->engines) {
    if (e.defaults.empty()) continue;
    if (auto id = corpus_->target(Kind::engine, e.engine.raw)) out.push_back(*id);
  }
  return out;
}

std::vector<const Record*> Vocabulary::models_for(std::string_view model_id) const {
  // A local directory may be written with a final slash (`/models/Qwen3-8B/`), and a bare
  // name (`Qwen3-8B`) is read as a directory of that name, so `*/Qwen3-8B*` matches both.
  while (model_id.size() > 1 && model_id.back() == '/') model_id.remove_suffix(1);
  std::string id(model_id);
  if (!id.empty() && id.find('/') == std::string::npos) id.insert(id.begin(), '/');
  std::vector<std::pair<std::size_t, const Record*>> hits;
  for (const Record* m : models_) {
    std::size_t best = 0;
    for (const auto& g : m->match) {
      if (glob_match(g, id)) best = std::max(best, g.size());
    }
    if (best > 0) hits.emplace_back(best, m);
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<const Record*> out;
  for (const auto& h : hits) out.push_back(h.second);
  return out;
}

namespace {
const std::vector<SpellingRef>* lookup(
    const std::unordered_map<std::string, std::vector<SpellingRef>>& m, const std::string& k) {
  auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}
}  // namespace

const std::vector<SpellingRef>* Vocabulary::flag(std::string_view name) const {
  if (const auto* exact = lookup(flags_, std::string(name))) return exact;
  return lookup(flags_folded_, fold_flag(name));
}
const std::vector<SpellingRef>* Vocabulary::env(std::string_view name) const {
  return lookup(env_, std::string(name));
}
const std::vector<const Record*>& Vocabulary::implied_by(std::string_view key) const {
  static const std::vector<const Record*> kNone;
  auto it = implied_by_.find(std::string(key));
  return it == implied_by_.end() ? kNone : it->second;
}

const std::vector<SpellingRef>* Vocabulary::key(std::string_view name) const {
  return lookup(keys_, text::lower(name));
}
const std::vector<SpellingRef>* Vocabulary::json(std::string_view flag_or_key) const {
  if (const auto* exact = lookup(json_, std::string(flag_or_key))) return exact;
  // A key (no leading dash) is matched as written; a flag with `_` or `-` either way.
  if (!flag_or_key.starts_with("-")) return nullptr;
  return lookup(json_folded_, fold_flag(flag_or_key));
}

}  // namespace kb
