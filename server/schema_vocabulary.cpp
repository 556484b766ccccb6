// vocabulary.schema.json: the names and setting values records may use, generated from the
// records (kb schema --format json-schema --out schemas); json_schema's record schemas
// refer to its definitions.
#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kb/resolver.h"
#include "kb/schema.h"
#include "kb/text.h"
#include "schema_json.h"
#include "schema_json_internal.h"

namespace kb::json {

using nlohmann::json;

namespace {

using schema_detail::nocase;
using schema_detail::version_re;

// A regex matching the raw names that normalize_name() turns into `key`: any case, runs of
// `-`, `_` and spaces for each `-`, and, for a repository (`owner/name`), its URL forms.
std::string name_re(const std::string& key) {
  std::string out;
  std::string token;
  auto flush = [&] {
    std::string escaped;
    for (char c : token) {
      if (std::string_view(".+*?^$()[]{}|\\/").find(c) != std::string_view::npos) escaped += '\\';
      escaped += c;
    }
    out += nocase(escaped);
    token.clear();
  };
  for (char c : key) {
    if (c == '-') {
      flush();
      out += "[-_\\s]+";
    } else {
      token += c;
    }
  }
  flush();
  if (key.find('/') != std::string::npos)
    out = "(?:" + nocase("(?:https?://|git://|git@github\\.com:)?(?:www\\.)?(?:github\\.com/)?") +
          out + nocase("(?:\\.git)?") + ")";
  return out;
}

// One pattern for many names: every alternative between separators, a namespace prefix
// and surrounding space as normalize_name() allows them.
json names_schema(Kind k, const std::set<std::string>& keys, const std::string& what) {
  std::string alts;
  for (const std::string& key : keys) {
    if (key.empty()) continue;
    alts += (alts.empty() ? "" : "|") + name_re(key);
  }
  const std::string ns = nocase(std::string(kind_namespace(k)) + "/");
  return {{"type", "string"},
          {"pattern", "^\\s*(?:" + ns + ")?[-_\\s]*(?:" + alts + ")[-_\\s]*/*\\s*$"},
          {"description", what}};
}

// A regex matching the raw spellings of an enum value that normalize_value() accepts: any
// case, `-` and `_` alike, surrounding space; a synonym's `*` matches any run.
std::string enum_value_re(const std::string& spelling) {
  std::string out;
  for (char c : spelling) {
    if (c == '-' || c == '_') {
      out += "[-_]";
    } else if (c == '*') {
      out += ".*";
    } else {
      if (std::string_view(".+?^$()[]{}|\\/").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return nocase(out);
}

// The values a setting takes, as kb lint reads a predicate's or a map's value: a scalar of
// the setting's type (YAML 1.2 readers give `yes` as text, `1` as a number). Empty for a
// text setting, which takes any scalar.
json setting_value_schema(const SettingDef& def) {
  json scalar;
  if (def.type == setting_type::kBool) {
    std::string alts;
    for (const auto& [spelling, meaning] : bool_spellings())
      alts += (alts.empty() ? "" : "|") + nocase(spelling);
    scalar = {
        {"anyOf", json::array({{{"type", "boolean"}},
                               {{"enum", json::array({0, 1})}},
                               {{"type", "string"}, {"pattern", "^\\s*(?:" + alts + ")\\s*$"}}})}};
  } else if (def.type == setting_type::kInteger) {
    scalar = {{"anyOf", json::array({{{"type", "integer"}},
                                     {{"type", "string"}, {"pattern", "^\\s*[-+]?[0-9]+\\s*$"}}})}};
  } else if (def.type == setting_type::kNumber) {
    scalar = {
        {"anyOf",
         json::array({{{"type", "number"}},
                      {{"type", "string"},
                       {"pattern",
                        "^\\s*[-+]?(?:[0-9]+\\.?[0-9]*|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?\\s*$"}}})}};
  } else if (def.type == setting_type::kVersion) {
    scalar = {{"anyOf",
               json::array({{{"type", "number"}, {"minimum", 0}},
                            {{"type", "string"}, {"pattern", "^\\s*" + version_re() + "\\s*$"}}})}};
  } else if (def.type == setting_type::kEnum) {
    std::string alts;
    json literal = json::array();  // spellings a YAML reader gives as numbers or booleans
    std::string names;
    for (const auto& v : def.values) {
      names += (names.empty() ? "" : ", ") + v.value;
      std::vector<std::string> spellings{v.value};
      spellings.insert(spellings.end(), v.synonyms.begin(), v.synonyms.end());
      for (const auto& s : spellings) {
        const std::string t(text::trim(s));
        if (t.empty()) continue;
        alts += (alts.empty() ? "" : "|") + enum_value_re(t);
        const std::string lower = text::lower(t);
        if (lower == "true" || lower == "false") literal.push_back(lower == "true");
        // `8.0` is a number to a YAML reader ("8.0" a synonym of an arch).
        long long n = 0;
        double d = 0;
        if (auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
            ec == std::errc() && p == t.data() + t.size()) {
          literal.push_back(n);
        } else if (auto [q, ec2] = std::from_chars(t.data(), t.data() + t.size(), d);
                   ec2 == std::errc() && q == t.data() + t.size()) {
          literal.push_back(d);
        }
      }
    }
    json forms = json::array({{{"type", "string"}, {"pattern", "^\\s*(?:" + alts + ")\\s*$"}}});
    if (!literal.empty()) forms.push_back({{"enum", literal}});
    scalar = {{"anyOf", forms}, {"description", "one of: " + names}};
  } else {
    return json::object();  // text: any scalar
  }
  return scalar;
}

}  // namespace

json vocabulary_schema(const Corpus& corpus) {
  std::map<Kind, std::set<std::string>> names;
  std::set<std::string> setting_keys;
  for (const auto& r : corpus.records()) {
    auto& n = names[r->kind];
    n.insert(normalize_name(r->id));
    for (const auto& a : r->aliases) n.insert(normalize_name(a));
    if (r->kind == Kind::engine) {
      if (!r->engine->name.empty()) n.insert(normalize_name(r->engine->name));
      if (!r->engine->repo.empty()) n.insert(normalize_name(r->engine->repo));
    }
    if (r->kind == Kind::setting) {
      n.insert(normalize_name(r->setting->key));
      setting_keys.insert(normalize_name(r->setting->key));
      for (const auto& syn : r->setting->synonyms) {
        n.insert(normalize_name(syn));
        setting_keys.insert(normalize_name(syn));
      }
    }
  }
  json defs = json::object();
  for (Kind k : kAllKinds) {
    defs[std::string(kind_name(k))] = names_schema(k, names[k],
                                                   "a " + std::string(kind_name(k)) +
                                                       " the knowledge base has: its id, slug "
                                                       "or another name it answers to");
  }
  // A predicate's setting: a key or synonym, optionally after ROLE. (compare sides).
  json key = names_schema(Kind::setting, setting_keys, "a setting's key or synonym");
  const std::string start = "^\\s*", pattern = key["pattern"];
  key["pattern"] = start + "(?:[^.\\s]+\\.)?" + pattern.substr(start.size());
  defs["setting_key"] = key;
  // Each setting's values, by the names that spell its key (with an optional ROLE. prefix):
  // a typo'd or mistyped value in a predicate, an implication or a model's traits.
  json by_key = json::object();
  for (const auto& r : corpus.records()) {
    if (r->kind != Kind::setting) continue;
    json scalar = setting_value_schema(*r->setting);
    if (scalar.empty()) continue;
    std::set<std::string> spellings{normalize_name(r->setting->key)};
    for (const auto& syn : r->setting->synonyms) spellings.insert(normalize_name(syn));
    std::string p = names_schema(Kind::setting, spellings, "")["pattern"];
    p = start + "(?:[^.\\s]+\\.)?" + p.substr(start.size());
    // One definition per setting, which the operator forms (`{in: [...]}`) refer back to:
    // the predicate schema already fixes their shape, and a validator compiles a
    // self-referring definition once instead of copying its pattern into every operand.
    const std::string def = "value_" + std::string(text::id_slug(r->id));
    const json self = {{"$ref", "#/$defs/" + def}};
    defs[def] = {{"description", "a value of " + r->id},
                 {"anyOf", json::array({scalar,
                                        {{"type", "array"}, {"items", self}},
                                        {{"type", "object"}, {"additionalProperties", self}}})}};
    by_key[p] = self;
  }
  defs["setting_values"] = {
      {"type", "object"},
      {"description", "a map from setting names to values: each value of its setting's type"},
      {"patternProperties", std::move(by_key)}};
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"$id", kVocabularyFile},
          {"title", "kb vocabulary: the names records may refer to"},
          {"description",
           "Generated from the records by `kb schema --format json-schema --out schemas`: "
           "regenerate it when a record is added or renamed."},
          {"$defs", std::move(defs)}};
}

}  // namespace kb::json
