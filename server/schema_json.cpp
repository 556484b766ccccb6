#include "schema_json.h"

#include <cctype>
#include <charconv>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kb/resolver.h"
#include "kb/schema.h"
#include "kb/text.h"

namespace kb::json {

using nlohmann::json;
using schema::Field;
using schema::Struct;
using schema::ValueType;

namespace {

// ECMA regexes have no inline case-insensitivity: [vV] for v, and so on.
std::string nocase(std::string_view re) {
  std::string out;
  bool in_class = false;
  for (std::size_t i = 0; i < re.size(); ++i) {
    const char c = re[i];
    if (c == '\\' && i + 1 < re.size()) {
      out += c;
      out += re[++i];
      continue;
    }
    if (c == '[') in_class = true;
    if (c == ']') in_class = false;
    if (std::isalpha(static_cast<unsigned char>(c))) {
      const char lo = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (in_class) {
        out += lo;
        out += up;
      } else {
        out += std::string("[") + lo + up + "]";
      }
      continue;
    }
    out += c;
  }
  return out;
}

// PEP 440 (the packaging project's pattern), with a leading v and semver's `-beta.1`.
const std::string& version_re() {
  static const std::string re = nocase(
      "v?(?:[0-9]+!)?[0-9]+(?:\\.[0-9]+)*"
      "(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
      "(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"
      "(?:[-_.]?dev[-_.]?[0-9]*)?"
      "(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?");
  return re;
}

// Whether the schema being made refers to vocabulary.schema.json (json_schema's argument).
thread_local bool t_vocabulary = false;

// A reference to a name the vocabulary lists: `engine`, `setting_key`, ...
json vocab_ref(const std::string& def) {
  return {{"$ref", std::string(kVocabularyFile) + "#/$defs/" + def}};
}

std::string clause_re() {
  return "\\s*(?:===|==|!=|<=|>=|~=|<|>)?\\s*" + version_re() + "(?:\\.\\*)?\\s*";
}

const char* kDate =
    "^(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|"
    "[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|"
    "(?:[02468][048]|[13579][26])00)-02-29)$";

json scalar_types() {
  return json::array({"string", "number", "boolean"});
}

json value_schema(const Field& f, json& defs);

json struct_schema(const Struct& s, json& defs) {
  json props = json::object();
  json required = json::array();
  for (const Field& f : s.fields) {
    json v = value_schema(f, defs);
    if (f.required) {
      required.push_back(std::string(f.name));
    } else {
      v = {{"anyOf", json::array({v, {{"type", "null"}}})}};
    }
    v["description"] = std::string(f.doc);
    props[std::string(f.name)] = std::move(v);
  }
  json out = {
      {"type", "object"}, {"properties", std::move(props)}, {"additionalProperties", false}};
  if (!required.empty()) out["required"] = std::move(required);
  if (!s.one_of.empty()) {
    json any = json::array();
    for (auto name : s.one_of) {
      any.push_back({{"required", {std::string(name)}},
                     {"properties", {{std::string(name), {{"type", scalar_types()}}}}}});
    }
    out["anyOf"] = std::move(any);
  }
  if (!s.doc.empty()) out["description"] = std::string(s.doc);
  return out;
}

json ref_to(const Struct& s, json& defs) {
  const std::string name(s.name);
  if (!defs.contains(name)) {
    defs[name] = json::object();  // placeholder against recursion
    defs[name] = struct_schema(s, defs);
  }
  return {{"$ref", "#/$defs/" + name}};
}

json one_value(const Field& f, json& defs) {
  switch (f.type) {
    case ValueType::text:
    case ValueType::markdown:
    case ValueType::scalar: {
      json j = {{"type", scalar_types()}};
      if (f.required) j["pattern"] = "\\S";
      return j;
    }
    case ValueType::date:
      return {{"type", "string"}, {"pattern", kDate}};
    case ValueType::integer:
      return {{"type", "integer"}, {"minimum", 0}};
    case ValueType::number:
      return {{"type", "number"}};
    case ValueType::boolean:
      return {{"type", "boolean"}};
    case ValueType::enumeration: {
      json values = json::array();
      for (auto v : f.values) values.push_back(std::string(v));
      return {{"enum", values}};
    }
    case ValueType::reference:
      if (t_vocabulary && f.ref) return vocab_ref(std::string(kind_name(*f.ref)));
      return {{"type", "string"}, {"pattern", "\\S"}};
    case ValueType::version:
      return {{"type", json::array({"string", "number"})},
              {"pattern", "^\\s*" + version_re() + "\\s*$"},
              {"maxLength", 256},
              {"minimum", 0}};
    case ValueType::version_range:
      return {{"type", json::array({"string", "number"})},
              {"pattern", "^\\s*(?:\\*|" + clause_re() + "(?:," + clause_re() + ")*)?\\s*$"},
              {"maxLength", 1024},
              {"minimum", 0}};
    case ValueType::url:
      return {{"type", "string"}, {"pattern", "^https?://"}};
    case ValueType::path:
      return {{"type", "string"}, {"pattern", "^/[^\\s?#]*$"}};
    case ValueType::object: {
      json ref = ref_to(*f.object, defs);
      if (f.shorthand.empty()) return ref;
      const Field* inner = schema::find_field(*f.object, f.shorthand);
      return {{"anyOf", json::array({ref, one_value(*inner, defs)})}};
    }
    case ValueType::predicate:
      return {{"$ref", "#/$defs/predicate"}};
    case ValueType::scalar_map:
      return {{"type", "object"},
              {"additionalProperties",
               {{"type", json::array({"string", "number", "boolean", "null"})}}}};
    case ValueType::setting_map: {
      json map = {{"type", "object"}, {"additionalProperties", {{"type", scalar_types()}}}};
      if (t_vocabulary) {
        map["propertyNames"] = vocab_ref("setting_key");
        map["$ref"] = std::string(kVocabularyFile) + "#/$defs/setting_values";
      }
      return map;
    }
    case ValueType::engine_versions: {
      Field v = f;
      v.type = ValueType::version;
      return {{"type", "object"}, {"additionalProperties", one_value(v, defs)}};
    }
  }
  return json::object();
}

json value_schema(const Field& f, json& defs) {
  json item = one_value(f, defs);
  if (!f.list) return item;
  json arr = {{"type", "array"}, {"items", std::move(item)}};
  if (f.required) arr["minItems"] = 1;
  return arr;
}

json predicate_defs(json& defs) {
  Field range{"versions", ValueType::version_range};
  json range_schema = one_value(range, defs);
  json scalar = {{"type", scalar_types()}};
  json test_ops = json::object();
  for (auto op : schema::config_operators()) {
    if (op == "in" || op == "not_in")
      test_ops[std::string(op)] = {{"type", "array"}, {"minItems", 1}, {"items", scalar}};
    else
      test_ops[std::string(op)] = scalar;
  }
  json test = {{"anyOf", json::array({scalar,
                                      {{"type", "object"},
                                       {"minProperties", 1},
                                       {"maxProperties", 1},
                                       {"properties", test_ops},
                                       {"additionalProperties", false}}})}};
  json tests = {{"type", "object"}, {"minProperties", 1}, {"additionalProperties", test}};
  json key = scalar;
  json engine_name = {{"type", "string"}, {"pattern", "\\S"}};
  if (t_vocabulary) {
    tests["propertyNames"] = vocab_ref("setting_key");
    tests["$ref"] = std::string(kVocabularyFile) + "#/$defs/setting_values";
    key = vocab_ref("setting_key");
    engine_name = vocab_ref("engine");
  }
  json keys = {{"type", "array"}, {"minItems", 1}, {"items", key}};
  // Which roles there are is the role record's to say (kb lint checks them against it).
  json role = {{"type", "string"},
               {"pattern", "\\S"},
               {"description", "a value of settings/role: prefill, decode, both, ..."}};
  json cmp = json::array();
  for (auto c : schema::compare_operators()) cmp.push_back(std::string(c));
  json operand = {{"anyOf", json::array({scalar,
                                         {{"type", "object"},
                                          {"properties", {{"value", scalar}}},
                                          {"required", {"value"}},
                                          {"additionalProperties", false}}})}};
  json self = {{"$ref", "#/$defs/predicate"}};
  auto form = [](const char* op, json value) {
    return json{{"type", "object"},
                {"properties", {{op, std::move(value)}}},
                {"required", {op}},
                {"additionalProperties", false}};
  };
  json forms = json::array();
  forms.push_back({{"type", "object"},
                   {"properties", {{"engine", engine_name}, {"versions", range_schema}}},
                   {"required", {"engine"}},
                   {"additionalProperties", false}});
  forms.push_back(form("all", {{"type", "array"}, {"minItems", 1}, {"items", self}}));
  forms.push_back(form("any", {{"type", "array"}, {"minItems", 1}, {"items", self}}));
  forms.push_back(form("not", self));
  forms.push_back(form("any_service", self));
  forms.push_back(form("config", tests));
  forms.push_back(form("model", tests));
  forms.push_back(form("hardware", tests));
  forms.push_back(form("config_set", keys));
  forms.push_back(form(
      "role",
      {{"anyOf", json::array({role, {{"type", "array"}, {"minItems", 1}, {"items", role}}})}}));
  forms.push_back(
      form("differs", {{"anyOf", json::array({key,
                                              keys,
                                              {{"type", "object"},
                                               {"properties", {{"engine", engine_name}}},
                                               {"required", {"engine"}},
                                               {"additionalProperties", false}}})}}));
  forms.push_back(
      form("compare", {{"type", "array"},
                       {"minItems", 3},
                       {"maxItems", 3},
                       {"prefixItems", json::array({operand, {{"enum", cmp}}, operand})}}));
  return {{"description", "applies_when: one operator per mapping (see records/README.md)"},
          {"anyOf", std::move(forms)}};
}

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

namespace {
struct VocabularyScope {
  explicit VocabularyScope(bool on) { t_vocabulary = on; }
  ~VocabularyScope() { t_vocabulary = false; }
};
}  // namespace

json json_schema(Kind k, bool vocabulary) {
  const VocabularyScope scope(vocabulary);
  json defs = json::object();
  json root = struct_schema(schema::record_struct(k), defs);
  const std::string ns(kind_namespace(k));
  root["properties"]["id"] = {
      {"anyOf", json::array({{{"type", "string"}, {"pattern", "^" + ns + "/[a-z0-9][a-z0-9._-]*$"}},
                             {{"type", "null"}}})},
      {"description", "must equal the path: " + ns + "/foo.yaml is " + ns + "/foo"}};
  if ((root.dump() + defs.dump()).find("#/$defs/predicate") != std::string::npos)
    defs["predicate"] = predicate_defs(defs);
  json out = {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
              {"$id", schema_file_name(k)},
              {"title", "kb " + std::string(kind_name(k)) + " record"}};
  for (auto& [key, v] : root.items()) out[key] = v;
  if (!defs.empty()) out["$defs"] = std::move(defs);
  return out;
}

std::string schema_file_name(Kind k) {
  return std::string(kind_namespace(k)) + ".schema.json";
}

}  // namespace kb::json
