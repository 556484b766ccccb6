// The pages of the vocabulary: a setting (its type, values, how each engine spells and
// defaults it) and a model family (its match globs and traits), each with the gotchas
// whose predicates test it, computed from the predicates.

#include <map>
#include <set>

#include "markdown.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

void common(Data& d, const Links& links, const Record& r) {
  set(d, "title", std::string(display_name(r)));
  set(d, "id", r.id.str());
  if (!r.notes.empty()) set(d, "notes", render_markdown(r.notes));
  List refs = citation_list(r.references);
  set(d, "has_references", !refs.empty());
  set(d, "references", std::move(refs));
  set(d, "source_href", links.source(r.id));
  set(d, "source_file", r.file.str());
  set(d, "json_href", links.json(r.id));
}

// A spelling as one line: the name, a fixed value or a JSON field, an inversion.
Data spelling_item(const Spelling& s, bool json) {
  std::string detail;
  if (json && !s.field.empty()) detail = "field " + s.field;
  if (s.has_value) detail += std::string(detail.empty() ? "" : ", ") + "means " + s.value;
  if (s.invert) detail += std::string(detail.empty() ? "" : ", ") + "inverted";
  Data d;
  set(d, "name", s.name.str());
  if (detail.empty()) {
    set(d, "detail", false);
  } else {
    set(d, "detail", detail);
  }
  return d;
}

List spelling_list(const Vec<Spelling>& list, bool json = false) {
  List out;
  for (const auto& s : list) out.push_back(spelling_item(s, json));
  return out;
}

List engine_rows(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& e : r.setting->engines) {
    Data row;
    set(row, "engine", engine_ref(v, links, e.engine));
    set(row, "versions", e.versions.empty() ? std::string("all") : e.versions.str());
    std::pair<const char*, List> kinds[] = {{"flags", spelling_list(e.flags)},
                                            {"env", spelling_list(e.env)},
                                            {"json", spelling_list(e.json, true)},
                                            {"keys", spelling_list(e.keys)}};
    for (auto& [name, list] : kinds) {
      set(row, std::string("has_") + name, !list.empty());
      set(row, name, std::move(list));
    }
    List defaults;
    for (const auto& def : e.defaults) {
      // The first entry whose range holds wins, so one without a range covers the rest.
      const char* rest = defaults.empty() ? "all versions" : "other versions";
      Data item;
      if (!def.value.empty()) set(item, "value", def.value.str());
      if (!def.derived.empty()) set(item, "derived", def.derived.str());
      std::string versions = def.versions.empty() ? std::string(rest) : def.versions.str();
      if (!def.roles.empty()) {
        std::string roles;
        for (const std::string& r : def.roles) roles += (roles.empty() ? "" : ", ") + r;
        versions += "; " + roles + " only";
      }
      set(item, "versions", versions);
      defaults.push_back(std::move(item));
    }
    set(row, "has_defaults", !defaults.empty());
    set(row, "defaults", std::move(defaults));
    out.push_back(std::move(row));
  }
  return out;
}

Data key_value_item(const View& v, const Links& links, const KeyValue& kv) {
  const std::string id = target_id(v, kv.key, Kind::setting);
  const Record* s = id.empty() ? nullptr : v.corpus.find(id);
  Data d;
  set(d, "key", (s != nullptr ? s->setting->key : kv.key.raw).str());
  set(d, "resolved", s != nullptr);
  set(d, "href", s != nullptr ? links.page(id) : std::string());
  set(d, "value", kv.value.str());
  return d;
}

List value_rows(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& val : r.setting->values) {
    Data row;
    set(row, "value", val.value.str());
    set(row, "anchor", "value-" + val.value);
    set(row, "synonyms", value_list(val.synonyms));
    set(row, "has_synonyms", !val.synonyms.empty());
    if (val.description.empty()) {
      set(row, "description", false);
    } else {
      set(row, "description", val.description.str());
    }
    List engines, implies;
    for (const auto& ref : val.engines) engines.push_back(engine_ref(v, links, ref));
    for (const auto& kv : val.implies) implies.push_back(key_value_item(v, links, kv));
    set(row, "has_engines", !engines.empty());
    set(row, "engines", std::move(engines));
    set(row, "has_implies", !implies.empty());
    set(row, "implies", std::move(implies));
    out.push_back(std::move(row));
  }
  return out;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

}  // namespace

namespace {

SettingUses setting_uses(const View& v) {
  SettingUses out;
  for (const auto& r : v.corpus.records()) {
    if (r->kind != Kind::gotcha || !r->applies_when) continue;
    SettingTests tests;
    tested_settings(v, *r->applies_when, tests);
    for (auto& [id, texts] : tests) out[id].emplace_back(r.get(), std::move(texts));
  }
  return out;
}

}  // namespace

const SettingUses& gotchas_by_setting(const View& v) {
  ViewCache& c = *v.cache;
  std::call_once(c.setting_uses_once, [&] { c.setting_uses = setting_uses(v); });
  return c.setting_uses;
}

std::string render_setting(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  Data d = page_data(links, display_name(r));
  common(d, links, r);
  const SettingDef& s = r.setting;
  set(d, "key", s.key.str());
  set(d, "type", s.type.str());
  set(d, "scope", s.scope.str());
  set(d, "synonyms", value_list(s.synonyms));
  set(d, "has_synonyms", !s.synonyms.empty());
  if (!r.description.empty()) set(d, "description", render_markdown(r.description));
  List values = value_rows(v, links, r);
  set(d, "has_values", !values.empty());
  set(d, "values", std::move(values));
  List engines = engine_rows(v, links, r);
  set(d, "has_engines", !engines.empty());
  set(d, "engines", std::move(engines));
  // Models whose traits set it.
  List models;
  for (const auto& m : v.corpus.records()) {
    if (m->kind != Kind::model) continue;
    for (const auto& kv : m->traits) {
      if (target_id(v, kv.key, Kind::setting) != r.id) continue;
      Data item;
      set(item, "name", std::string(display_name(*m)));
      set(item, "href", links.page(m->id));
      set(item, "value", kv.value.str());
      models.push_back(std::move(item));
    }
  }
  set(d, "has_models", !models.empty());
  set(d, "models", std::move(models));
  const SettingUses& tested = gotchas_by_setting(v);
  std::vector<const Record*> gotchas;
  std::map<std::string, std::string> tests;
  if (auto it = tested.find(r.id); it != tested.end()) {
    for (const auto& [g, texts] : it->second) {
      gotchas.push_back(g);
      tests[g->id] = join(texts, "; ");
    }
  }
  set(d, "gotchas", gotcha_group(v, links, "", "gotchas", {}, gotchas, [&](const Record& g) {
        return tests[g.id];
      }));
  return impl.templates.render("setting", d);
}

std::string render_model(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  Data d = page_data(links, display_name(r));
  common(d, links, r);
  set(d, "match", value_list(r.match));
  List traits;
  std::map<std::string, std::string> value_of;  // setting id -> this model's value
  for (const auto& kv : r.traits) {
    traits.push_back(key_value_item(v, links, kv));
    const std::string id = target_id(v, kv.key, Kind::setting);
    if (!id.empty()) value_of[id] = kv.value;
  }
  set(d, "has_traits", !traits.empty());
  set(d, "traits", std::move(traits));
  // Gotchas testing any of its traits, each with the tests and this model's values.
  std::map<std::string, std::vector<std::string>> notes;
  std::vector<const Record*> gotchas;
  for (const auto& [id, list] : gotchas_by_setting(v)) {
    auto mine = value_of.find(id);
    if (mine == value_of.end()) continue;
    const Record* s = v.corpus.find(id);
    const std::string key = s != nullptr ? s->setting->key.str() : id;
    for (const auto& [g, texts] : list) {
      if (notes.find(g->id) == notes.end()) gotchas.push_back(g);
      notes[g->id].push_back(join(texts, "; ") + " (this model: " + key + " = " + mine->second +
                             ")");
    }
  }
  set(d, "gotchas", gotcha_group(v, links, "", "gotchas", {}, gotchas, [&](const Record& g) {
        return join(notes[g.id], "; ");
      }));
  return impl.templates.render("model", d);
}

}  // namespace kb::pages
