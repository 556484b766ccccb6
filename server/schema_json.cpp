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
#include "schema_json_internal.h"

namespace kb::json {

using nlohmann::json;
using schema::Field;
using schema::Struct;
using schema::ValueType;

// ECMA regexes have no inline case-insensitivity: [vV] for v, and so on.
std::string schema_detail::nocase(std::string_view re) {
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
const std::string& schema_detail::version_re() {
  static const std::string re = nocase(
      "v?(?:[0-9]+!)?[0-9]+(?:\\.[0-9]+)*"
      "(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?[0-9]*)?"
      "(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?"
      "(?:[-_.]?dev[-_.]?[0-9]*)?"
      "(?:\\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?");
  return re;
}

namespace {

using schema_detail::nocase;
using schema_detail::version_re;

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

}  // namespace

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
