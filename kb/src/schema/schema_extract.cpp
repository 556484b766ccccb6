#include "schema/schema_extract.h"

#include <charconv>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "core/text_util.h"

namespace kb::schema {
namespace {

using yaml::Node;
using Setter = std::function<void(Record&, const Node&, const std::string&)>;

// A checked core-schema integer (decimal, 0x, 0o); 0 when it does not fit.
std::int64_t integer(const std::string& s) {
  std::int64_t out = 0;
  int base = 10;
  std::size_t skip = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    base = s[1] == 'x' ? 16 : 8;
    skip = 2;
  } else if (!s.empty() && s[0] == '+') {
    skip = 1;
  }
  auto [p, ec] = std::from_chars(s.data() + skip, s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size() ? out : 0;
}

std::string scalar(const Node& v) {
  return v.is_scalar() ? v.value : std::string();
}

// A checked core-schema boolean.
bool truth(const Node& v) {
  const std::string s = scalar(v);
  return s == "true" || s == "True" || s == "TRUE";
}

std::vector<std::string> strings(const Node& v) {
  std::vector<std::string> out;
  for (const Node& item : v.items) {
    if (item.is_scalar()) out.push_back(item.value);
  }
  return out;
}

std::string item_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

RefValue ref(const Node& v, const std::string& field) {
  RefValue r;
  r.raw = scalar(v);
  r.field = field;
  r.pos = v.pos;
  return r;
}

std::vector<RefValue> refs(const Node& v, const std::string& path) {
  std::vector<RefValue> out;
  for (std::size_t i = 0; i < v.items.size(); ++i)
    out.push_back(ref(v.items[i], item_path(path, i)));
  return out;
}

// `vllm` or `{engine: vllm, <version_key>: ...}`.
RefValue engine_ref(const Node& v, const std::string& field, const char* version_key) {
  if (!v.is_map()) return ref(v, field);
  const Node* e = v.find("engine");
  RefValue r = e ? ref(*e, field) : RefValue{};
  r.field = field;
  if (const Node* ver = v.find(version_key); ver && ver->is_scalar()) {
    r.versions = ver->value;
    r.versions_pos = ver->pos;
  }
  return r;
}

// Calls `each(key, value)` for every entry of a mapping whose value is not null.
template <class F>
void entries(const Node& v, F each) {
  for (const auto& [k, val] : v.entries) {
    if (!val.is_null()) each(k.value, val);
  }
}

// A list of objects, each possibly written as a bare scalar standing for `shorthand`.
template <class T, class F>
std::vector<T> objects(const Node& v, std::string_view shorthand, F read) {
  std::vector<T> out;
  for (const Node& item : v.items) {
    T t{};
    t.pos = item.pos;
    if (item.is_scalar()) {
      read(t, std::string(shorthand), item);
    } else {
      entries(item, [&](const std::string& k, const Node& val) { read(t, k, val); });
    }
    out.push_back(std::move(t));
  }
  return out;
}

Citation citation(const Node& v) {
  Citation c;
  c.pos = v.pos;
  entries(v, [&](const std::string& k, const Node& val) {
    const std::string s = scalar(val);
    if (k == "type")
      c.type = s;
    else if (k == "repo")
      c.repo = s;
    else if (k == "number")
      c.number = integer(s);
    else if (k == "ref")
      c.ref = s;
    else if (k == "url")
      c.url = s;
    else if (k == "title")
      c.title = s;
    else if (k == "state")
      c.state = s;
    else if (k == "as_of")
      c.as_of = s;
    else if (k == "date")
      c.date = s;
    else if (k == "note")
      c.note = s;
  });
  return c;
}

std::vector<Citation> citations(const Node& v, const char* default_type = nullptr) {
  std::vector<Citation> out;
  for (const Node& item : v.items) {
    out.push_back(citation(item));
    if (default_type && out.back().type.empty()) out.back().type = default_type;
  }
  return out;
}

// A scalar mapping as written: `{a: 1, b: x}`.
std::vector<ConfigEntry> pairs(const Node& v) {
  std::vector<ConfigEntry> out;
  for (const auto& [k, val] : v.entries) {
    if (!val.is_null()) out.emplace_back(k.value, scalar(val));
  }
  return out;
}

std::vector<KeyValue> key_values(const Node& v, const std::string& path) {
  std::vector<KeyValue> out;
  for (const auto& [k, val] : v.entries) {
    if (val.is_null()) continue;
    out.push_back({ref(k, path + "." + k.value), scalar(val), val.pos});
  }
  return out;
}

Spelling spelling(const Node& item, std::string_view name_key) {
  Spelling s;
  s.pos = item.pos;
  if (item.is_scalar()) {
    s.name = item.value;
    return s;
  }
  entries(item, [&](const std::string& k, const Node& val) {
    if (k == name_key || k == "flag" || k == "key")
      s.name = scalar(val);
    else if (k == "field")
      s.field = scalar(val);
    else if (k == "invert")
      s.invert = scalar(val) == "true" || scalar(val) == "True" || scalar(val) == "TRUE";
    else if (k == "value") {
      s.value = scalar(val);
      s.has_value = true;
    }
  });
  return s;
}

std::vector<Spelling> spellings(const Node& v, std::string_view name_key) {
  std::vector<Spelling> out;
  for (const Node& item : v.items) out.push_back(spelling(item, name_key));
  return out;
}

EngineSpelling engine_spelling(const Node& item, const std::string& path) {
  EngineSpelling e;
  e.pos = item.pos;
  entries(item, [&](const std::string& k, const Node& val) {
    if (k == "engine")
      e.engine = ref(val, path + ".engine");
    else if (k == "versions")
      e.versions = scalar(val);
    else if (k == "flags")
      e.flags = spellings(val, "flag");
    else if (k == "env")
      e.env = spellings(val, "name");
    else if (k == "json")
      e.json = spellings(val, "flag");
    else if (k == "keys")
      e.keys = spellings(val, "key");
    else if (k == "defaults") {
      for (const Node& d : val.items) {
        SettingDefault sd;
        sd.pos = d.pos;
        if (const Node* x = d.find("versions")) sd.versions = scalar(*x);
        if (const Node* x = d.find("value")) sd.value = scalar(*x);
        e.defaults.push_back(std::move(sd));
      }
    }
  });
  return e;
}

SettingValue setting_value(const Node& item, const std::string& path) {
  SettingValue sv;
  sv.pos = item.pos;
  if (item.is_scalar()) {
    sv.value = item.value;
    return sv;
  }
  entries(item, [&](const std::string& k, const Node& val) {
    if (k == "value")
      sv.value = scalar(val);
    else if (k == "synonyms")
      sv.synonyms = strings(val);
    else if (k == "description")
      sv.description = scalar(val);
    else if (k == "engines")
      sv.engines = refs(val, path + ".engines");
    else if (k == "implies")
      sv.implies = key_values(val, path + ".implies");
  });
  return sv;
}

FixChain fix_chain(const Node& item, const std::string& path) {
  FixChain f;
  f.pos = item.pos;
  entries(item, [&](const std::string& k, const Node& val) {
    if (k == "engine")
      f.engine = ref(val, path + ".engine");
    else if (k == "issues")
      f.issues = citations(val, "issue");
    else if (k == "prs")
      f.prs = citations(val, "pr");
    else if (k == "fixed_in") {
      f.fixed_in = scalar(val);
      f.fixed_in_pos = val.pos;
    } else if (k == "resolution")
      f.resolution = scalar(val);
    else if (k == "note")
      f.note = scalar(val);
  });
  return f;
}

Detection detection(const Node& v, const std::string& path) {
  Detection d;
  d.pos = v.pos;
  entries(v, [&](const std::string& k, const Node& val) {
    if (k == "silent")
      d.silent = truth(val);
    else if (k == "lying_signals")
      d.lying_signals = strings(val);
    else if (k == "oracles")
      d.oracles = refs(val, path + ".oracles");
    else if (k == "canary")
      d.canary = scalar(val);
  });
  return d;
}

void subject(Record& r, const Node& v) {
  entries(v, [&](const std::string& k, const Node& val) {
    if (k == "engines") {
      for (std::size_t i = 0; i < val.items.size(); ++i) {
        r.result->subject.engines.push_back(
            engine_ref(val.items[i], item_path("subject.engines", i), "version"));
      }
    } else if (k == "config") {
      r.result->subject.config = pairs(val);
    } else if (k == "model") {
      r.result->subject.model = scalar(val);
    }
  });
}

RunnerDecl runner(const Node& v) {
  RunnerDecl d;
  d.pos = v.pos;
  entries(v, [&](const std::string& k, const Node& val) {
    if (k == "kind")
      d.kind = scalar(val);
    else if (k == "params")
      d.params = pairs(val);
  });
  return d;
}

std::vector<RepairEntry> repairs(const Node& v) {
  std::vector<RepairEntry> out;
  for (const Node& item : v.items) {
    RepairEntry e;
    e.pos = item.pos;
    entries(item, [&](const std::string& k, const Node& val) {
      const std::string s = scalar(val);
      if (k == "date")
        e.date = s;
      else if (k == "field")
        e.field = s;
      else if (k == "from")
        e.from = s;
      else if (k == "to")
        e.to = s;
      else if (k == "reason")
        e.reason = s;
      else if (k == "confidence")
        e.confidence = std::strtod(s.c_str(), nullptr);
    });
    out.push_back(std::move(e));
  }
  return out;
}

#define TEXT(name, member)                                                           \
  {                                                                                  \
    name, [](Record& r, const Node& v, const std::string&) { r.member = scalar(v); } \
  }

const std::vector<std::pair<std::string_view, Setter>>& common_setters() {
  static const std::vector<std::pair<std::string_view, Setter>> s = {
      {"id", [](Record&, const Node&, const std::string&) {}},  // checked against the path
      TEXT("title", title),
      {"aliases", [](Record& r, const Node& v, const std::string&) { r.aliases = strings(v); }},
      {"references",
       [](Record& r, const Node& v, const std::string&) { r.references = citations(v); }},
      TEXT("notes", notes)};
  return s;
}

const std::vector<std::pair<std::string_view, Setter>>& own_setters(Kind k) {
  static const std::vector<std::pair<std::string_view, Setter>> gotcha = {
      {"severity", [](Record& r, const Node& v,
                      const std::string&) { r.severity = parse_gotcha_severity(scalar(v)); }},
      {"status", [](Record& r, const Node& v,
                    const std::string&) { r.status = parse_gotcha_status(scalar(v)); }},
      TEXT("kind", category),
      TEXT("family", family),
      TEXT("created", created),
      TEXT("updated", updated),
      TEXT("as_of", as_of),
      TEXT("confidence", confidence),
      {"tags", [](Record& r, const Node& v, const std::string&) { r.tags = strings(v); }},
      {"affects",
       [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i)
           r.affects.push_back(engine_ref(v.items[i], item_path(p, i), "versions"));
       }},
      {"applies_when", [](Record& r, const Node& v,
                          const std::string& p) { r.applies_when = read_predicate(v, p); }},
      TEXT("symptom", symptom),
      TEXT("root_cause", root_cause),
      TEXT("workaround", workaround),
      {"related", [](Record& r, const Node& v, const std::string& p) { r.related = refs(v, p); }},
      {"oracles", [](Record& r, const Node& v, const std::string& p) { r.oracles = refs(v, p); }},
      {"fixes",
       [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i)
           r.fixes.push_back(fix_chain(v.items[i], item_path(p, i)));
       }},
      {"detection",
       [](Record& r, const Node& v, const std::string& p) { r.detection = detection(v, p); }},
      {"impact",
       [](Record& r, const Node& v, const std::string&) {
         r.impact =
             objects<Impact>(v, "metric", [](Impact& x, const std::string& k, const Node& val) {
               if (k == "metric")
                 x.metric = scalar(val);
               else if (k == "change")
                 x.change = scalar(val);
               else if (k == "note")
                 x.note = scalar(val);
             });
       }},
      {"repairs", [](Record& r, const Node& v, const std::string&) { r.repairs = repairs(v); }}};
  static const std::vector<std::pair<std::string_view, Setter>> engine = {
      TEXT("name", engine->name),
      TEXT("repo", engine->repo),
      TEXT("url", engine->url),
      TEXT("description", description),
      TEXT("kind", category),
      {"relations",
       [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i) {
           EngineRelation rel;
           rel.pos = v.items[i].pos;
           if (const Node* t = v.items[i].find("type")) rel.type = scalar(*t);
           if (const Node* e = v.items[i].find("engine"))
             rel.engine = ref(*e, item_path(p, i) + ".engine");
           r.engine->relations.push_back(std::move(rel));
         }
       }},
      {"packages",
       [](Record& r, const Node& v, const std::string&) {
         r.engine->packages =
             objects<Package>(v, "name", [](Package& x, const std::string& k, const Node& val) {
               if (k == "name")
                 x.name = scalar(val);
               else if (k == "ecosystem")
                 x.ecosystem = scalar(val);
             });
       }},
      {"images",
       [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i) {
           const Node& item = v.items[i];
           Image img;
           img.pos = item.pos;
           if (item.is_scalar()) img.image = item.value;
           if (const Node* x = item.find("image")) img.image = scalar(*x);
           if (const Node* x = item.find("engines"))
             img.engines = refs(*x, item_path(p, i) + ".engines");
           r.engine->images.push_back(std::move(img));
         }
       }},
      {"entrypoints",
       [](Record& r, const Node& v, const std::string&) {
         r.engine->entrypoints = objects<Entrypoint>(
             v, "command", [](Entrypoint& x, const std::string& k, const Node& val) {
               if (k == "command")
                 x.command = scalar(val);
               else if (k == "module")
                 x.module = scalar(val);
               else if (k == "role")
                 x.role = scalar(val);
             });
       }},
      {"probe",
       [](Record& r, const Node& v, const std::string&) {
         r.engine->probe = objects<ProbeRoute>(
             v, "path", [](ProbeRoute& x, const std::string& k, const Node& val) {
               if (k == "path")
                 x.path = scalar(val);
               else if (k == "version")
                 x.version = scalar(val);
               else if (k == "expect")
                 x.expect = pairs(val);
             });
       }},
      {"releases", [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i) {
           const Node& item = v.items[i];
           Release rel;
           rel.pos = item.pos;
           if (const Node* x = item.find("version")) rel.version = scalar(*x);
           if (const Node* x = item.find("date")) rel.date = scalar(*x);
           if (const Node* x = item.find("bundles")) {
             for (const auto& [bk, bv] : x->entries) {
               RefValue b = ref(bk, item_path(p, i) + ".bundles." + bk.value);
               b.versions = scalar(bv);
               b.versions_pos = bv.pos;
               rel.bundles.push_back(std::move(b));
             }
           }
           r.engine->releases.push_back(std::move(rel));
         }
       }}};
  static const std::vector<std::pair<std::string_view, Setter>> oracle = {
      TEXT("method", method),
      TEXT("pass_criterion", pass_criterion),
      {"runner", [](Record& r, const Node& v, const std::string&) { r.runner = runner(v); }}};
  static const std::vector<std::pair<std::string_view, Setter>> result = {
      {"oracle",
       [](Record& r, const Node& v, const std::string& p) { r.result->oracle = ref(v, p); }},
      TEXT("date", result->date),
      {"subject", [](Record& r, const Node& v, const std::string&) { subject(r, v); }},
      {"passed",
       [](Record& r, const Node& v, const std::string&) { r.result->passed = integer(scalar(v)); }},
      {"failed",
       [](Record& r, const Node& v, const std::string&) { r.result->failed = integer(scalar(v)); }},
      {"errors",
       [](Record& r, const Node& v, const std::string&) { r.result->errors = integer(scalar(v)); }},
      {"skipped", [](Record& r, const Node& v,
                     const std::string&) { r.result->skipped = integer(scalar(v)); }},
      {"evidence_for",
       [](Record& r, const Node& v, const std::string& p) { r.result->evidence_for = refs(v, p); }},
      {"source",
       [](Record& r, const Node& v, const std::string&) { r.result->source = citation(v); }},
      {"failures",
       [](Record& r, const Node& v, const std::string&) {
         r.result->failures =
             objects<Failure>(v, "prompt", [](Failure& x, const std::string& k, const Node& val) {
               if (k == "prompt")
                 x.prompt = integer(scalar(val));
               else if (k == "position")
                 x.position = integer(scalar(val));
               else if (k == "trial")
                 x.trial = integer(scalar(val));
               else if (k == "run")
                 x.run = integer(scalar(val));
               else if (k == "compared")
                 x.compared = scalar(val);
               else if (k == "expected")
                 x.expected = scalar(val);
               else if (k == "got")
                 x.got = scalar(val);
             });
       }},
      {"incomplete",
       [](Record& r, const Node& v, const std::string&) { r.result->incomplete = truth(v); }}};
  static const std::vector<std::pair<std::string_view, Setter>> setting = {
      TEXT("key", setting->key),
      TEXT("type", setting->type),
      TEXT("scope", setting->scope),
      {"synonyms",
       [](Record& r, const Node& v, const std::string&) { r.setting->synonyms = strings(v); }},
      TEXT("description", description),
      {"values",
       [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i)
           r.setting->values.push_back(setting_value(v.items[i], item_path(p, i)));
       }},
      {"engines", [](Record& r, const Node& v, const std::string& p) {
         for (std::size_t i = 0; i < v.items.size(); ++i)
           r.setting->engines.push_back(engine_spelling(v.items[i], item_path(p, i)));
       }}};
  static const std::vector<std::pair<std::string_view, Setter>> model = {
      {"match", [](Record& r, const Node& v, const std::string&) { r.match = strings(v); }},
      {"traits",
       [](Record& r, const Node& v, const std::string& p) { r.traits = key_values(v, p); }}};
  switch (k) {
    case Kind::gotcha:
      return gotcha;
    case Kind::engine:
      return engine;
    case Kind::oracle:
      return oracle;
    case Kind::result:
      return result;
    case Kind::setting:
      return setting;
    case Kind::model:
      return model;
  }
  return gotcha;
}

#undef TEXT

}  // namespace

void extract_record(const Node& root, Record& r) {
  const auto& own = own_setters(r.kind);
  for (const auto& [k, v] : root.entries) {
    if (v.is_null() || !k.is_scalar()) continue;
    const Setter* set = nullptr;
    for (const auto& [name, s] : common_setters()) {
      if (name == k.value) set = &s;
    }
    for (const auto& [name, s] : own) {
      if (name == k.value) set = &s;
    }
    if (set) (*set)(r, v, k.value);
  }
  if (r.kind == Kind::setting && r.setting->key.empty()) {
    const std::string slug(text::id_slug(r.id));
    std::string key = slug;
    for (char& c : key) {
      if (c == '-') c = '_';
    }
    r.setting->key = key;
  }
}

std::vector<std::string_view> extracted_fields(Kind k) {
  std::vector<std::string_view> out;
  for (const auto& [name, s] : common_setters()) out.push_back(name);
  for (const auto& [name, s] : own_setters(k)) out.push_back(name);
  return out;
}

}  // namespace kb::schema
