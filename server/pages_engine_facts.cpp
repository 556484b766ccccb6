// What an engine page says of the engine itself: how it relates to other engines (both
// ways), how it is recognised (packages, images, entry points), its known releases, and
// the settings whose records say how it spells them.

#include <algorithm>

#include "pages_internal.h"

namespace kb::pages {

namespace {

// "plugin-of" read from the other side.
std::string inverse(const std::string& type) {
  if (type == relation_type::kPluginOf) return "has plugin";
  if (type == relation_type::kForkOf) return "forked as";
  if (type == relation_type::kPlatformOf) return "runs on platform";
  if (type == relation_type::kBundles) return "bundled by";
  if (type == relation_type::kUses) return "used by";
  return type + " (from)";
}

std::string readable(const std::string& type) {
  std::string out = type;
  for (char& c : out) c = c == '-' ? ' ' : c;
  return out;
}

Data engine_link(const Links& links, const Record& e) {
  Data d;
  set(d, "name", std::string(display_name(e)));
  set(d, "href", links.page(e.id));
  set(d, "resolved", true);
  return d;
}

List relations(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& rel : r.engine->relations) {
    Data d = engine_ref(v, links, rel.engine);
    set(d, "relation", readable(rel.type));
    out.push_back(std::move(d));
  }
  for (const Record* other : v.referencing(r.id)) {
    if (other->kind != Kind::engine || other->id == r.id) continue;
    for (const auto& rel : other->engine->relations) {
      if (target_id(v, rel.engine, Kind::engine) != r.id) continue;
      Data d = engine_link(links, *other);
      set(d, "relation", inverse(rel.type));
      out.push_back(std::move(d));
    }
  }
  return out;
}

List images(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& img : r.engine->images) {
    Data d;
    set(d, "image", img.image.str());
    List engines;
    for (const auto& ref : img.engines) engines.push_back(engine_ref(v, links, ref));
    set(d, "has_engines", !engines.empty());
    set(d, "engines", std::move(engines));
    out.push_back(std::move(d));
  }
  return out;
}

List entrypoints(const Record& r) {
  List out;
  for (const auto& e : r.engine->entrypoints) {
    Data d;
    set(d, "command", e.command.empty() ? "python -m " + e.module : e.command.str());
    if (e.role.empty()) {
      set(d, "role", false);
    } else {
      set(d, "role", e.role.str());
    }
    out.push_back(std::move(d));
  }
  return out;
}

List releases(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& rel : r.engine->releases) {
    Data d;
    set(d, "version", rel.version.str());
    if (rel.date.empty()) {
      set(d, "date", false);
    } else {
      set(d, "date", rel.date.str());
    }
    List bundles;
    for (const auto& ref : rel.bundles) bundles.push_back(engine_ref(v, links, ref));
    set(d, "has_bundles", !bundles.empty());
    set(d, "bundles", std::move(bundles));
    out.push_back(std::move(d));
  }
  return out;
}

// Settings whose records spell this engine, with the names it uses.
List spelled_settings(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& s : v.corpus.records()) {
    if (s->kind != Kind::setting) continue;
    std::vector<std::string> names;
    bool spelled = false;
    for (const auto& e : s->setting->engines) {
      if (target_id(v, e.engine, Kind::engine) != r.id) continue;
      spelled = true;
      for (const auto* list : {&e.flags, &e.env, &e.json, &e.keys}) {
        for (const auto& sp : *list) {
          std::string name = sp.name + (sp.field.empty() ? "" : " " + sp.field);
          if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
        }
      }
    }
    if (!spelled) continue;
    Data d;
    set(d, "key", s->setting->key.str());
    set(d, "href", links.page(s->id));
    List spellings;
    for (const auto& n : names) spellings.push_back(object_of("value", n));
    set(d, "spellings", std::move(spellings));
    out.push_back(std::move(d));
  }
  return out;
}

void set_list(Data& d, const std::string& key, List list) {
  set(d, "has_" + key, !list.empty());
  set(d, key, std::move(list));
}

}  // namespace

void engine_facts(const View& v, const Links& links, const Record& r, Data& d) {
  set_list(d, "relations", relations(v, links, r));
  List packages;
  for (const auto& p : r.engine->packages) {
    Data item;
    set(item, "name", p.name.str());
    set(item, "ecosystem", p.ecosystem.str());
    packages.push_back(std::move(item));
  }
  set_list(d, "packages", std::move(packages));
  set_list(d, "images", images(v, links, r));
  set_list(d, "entrypoints", entrypoints(r));
  set_list(d, "releases", releases(v, links, r));
  set_list(d, "settings", spelled_settings(v, links, r));
}

}  // namespace kb::pages
