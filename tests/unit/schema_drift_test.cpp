// The schema table (schema_table.cpp) is the one declaration of every record field; the
// loader's setters (schema_extract.cpp) and the API's record encoder (server/json.cpp) are
// held to it here, both ways. A field added to the table only would pass lint and then be
// dropped on load and never encoded: these tests fail instead, naming it.

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "json.h"
#include "kb/corpus.h"
#include "kb/evidence.h"
#include "kb/schema.h"
#include "schema/schema_extract.h"

TEST_CASE("schema table and loader setters agree, every field both ways", "[schema]") {
  const auto drift = kb::schema::extract_drift();
  for (const auto& line : drift) UNSCOPED_INFO(line);
  CHECK(drift.empty());
}

TEST_CASE("schema table and JSON record encoder agree, every record field both ways", "[schema]") {
  const auto drift = kb::json::encode_drift();
  for (const auto& line : drift) UNSCOPED_INFO(line);
  CHECK(drift.empty());
}

namespace {

namespace fs = std::filesystem;
using kb::schema::Field;
using kb::schema::Struct;
using kb::schema::ValueType;

// For each structure of the table, the fields seen set somewhere.
using Seen = std::map<std::string, std::set<std::string>>;

// Where the JSON encoder writes a field under another key: a setting's `type` is
// `value_type` (the record's `type` is its namespace), and an engine reference with its
// versions is a reference object whose `raw` is the engine as written.
std::string json_key(std::string_view structure, std::string_view field) {
  if (structure == "setting" && field == "type") return "value_type";
  if ((structure == "engine-range" || structure == "subject-engine") && field == "engine")
    return "raw";
  return std::string(field);
}

bool blank(const nlohmann::json& j) {
  return j.is_null() || ((j.is_array() || j.is_object() || j.is_string()) && j.empty());
}

void seen_in_yaml(const Struct& s, const YAML::Node& v, Seen& out) {
  if (!v.IsMap()) return;  // a shorthand scalar shows no field of its own
  for (const auto& entry : v) {
    const Field* f = kb::schema::find_field(s, entry.first.as<std::string>());
    if (!f || entry.second.IsNull()) continue;
    out[std::string(s.name)].insert(std::string(f->name));
    if (f->type != ValueType::object) continue;
    if (entry.second.IsSequence()) {
      for (const auto& item : entry.second) seen_in_yaml(*f->object, item, out);
    } else {
      seen_in_yaml(*f->object, entry.second, out);
    }
  }
}

void seen_in_json(const Struct& s, const nlohmann::json& j, Seen& out) {
  if (!j.is_object()) return;
  for (const Field& f : s.fields) {
    auto it = j.find(json_key(s.name, f.name));
    if (it == j.end() || blank(*it)) continue;
    out[std::string(s.name)].insert(std::string(f.name));
    if (f.type != ValueType::object) continue;
    if (it->is_array()) {
      for (const auto& item : *it) seen_in_json(*f.object, item, out);
    } else {
      seen_in_json(*f.object, *it, out);
    }
  }
}

// The reverse walk: keys of nested objects in the record's JSON that no field of their
// structure declares ("struct.key"). Top-level keys are held by encode_drift; nested
// encoders are code of their own, so a key one of them invents shows here.
void undeclared_in_json(const Struct& s, const nlohmann::json& j, bool top,
                        std::set<std::string>& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const Field* f = nullptr;
    for (const Field& cand : s.fields) {
      if (json_key(s.name, cand.name) == it.key()) f = &cand;
    }
    // A reference object (server/json.cpp `reference`) adds how the name resolved: the
    // field it was written in, the id it resolved to and that record's name.
    const bool reference = json_key(s.name, "engine") == "raw";
    if (!f && reference && (it.key() == "field" || it.key() == "id" || it.key() == "name"))
      continue;
    if (!f) {
      if (!top) out.insert(std::string(s.name) + "." + it.key());
      continue;
    }
    if (f->type != ValueType::object) continue;
    if (it->is_array()) {
      for (const auto& item : *it) undeclared_in_json(*f->object, item, false, out);
    } else {
      undeclared_in_json(*f->object, *it, false, out);
    }
  }
}

// "gotcha.fixes"-style names of the table's fields not in `seen`.
std::vector<std::string> unseen(const Seen& seen) {
  std::vector<const Struct*> all;
  for (kb::Kind k : kb::kAllKinds) all.push_back(&kb::schema::record_struct(k));
  for (const Struct* s : kb::schema::nested_structs()) all.push_back(s);
  std::vector<std::string> out;
  for (const Struct* s : all) {
    auto it = seen.find(std::string(s->name));
    for (const Field& f : s->fields) {
      if (it == seen.end() || !it->second.count(std::string(f.name)))
        out.push_back(std::string(s->name) + "." + std::string(f.name));
    }
  }
  return out;
}

}  // namespace

// End to end, nested structures included: every field of the table set in a record of
// tests/data/every-field comes out of the API's record JSON. A field added to the table
// fails the first check until a record there sets it, and the second until the loader
// reads it and the encoder writes it.
TEST_CASE("schema table fields all come out of the JSON encoder, nested ones included",
          "[schema]") {
  const fs::path dir = fs::path(KB_TEST_DATA) / "every-field";
  auto corpus = kb::Corpus::load(dir);
  const kb::EvidenceIndex evidence = kb::EvidenceIndex::build(*corpus);
  REQUIRE(corpus->records().size() >= kb::kKindCount);
  Seen in_yaml, in_json;
  for (const auto& rec : corpus->records()) {
    const Struct& s = kb::schema::record_struct(rec->kind);
    seen_in_yaml(s, YAML::LoadFile((dir / std::string(rec->file)).string()), in_yaml);
    seen_in_json(s, kb::json::record(*corpus, *rec, evidence), in_json);
  }
  const auto not_in_fixture = unseen(in_yaml);
  for (const auto& f : not_in_fixture)
    UNSCOPED_INFO(f << ": no record of tests/data/every-field sets it");
  CHECK(not_in_fixture.empty());
  std::vector<std::string> not_in_json;
  for (const auto& f : unseen(in_json)) {
    if (std::find(not_in_fixture.begin(), not_in_fixture.end(), f) == not_in_fixture.end())
      not_in_json.push_back(f);
  }
  for (const auto& f : not_in_json)
    UNSCOPED_INFO(f << ": set in tests/data/every-field but not in the record's JSON");
  CHECK(not_in_json.empty());
}

// And the other way: a nested encoder that writes a key its structure in the table does
// not declare fails here, so the JSON never carries a field a record author cannot set
// (nor one the JSON Schema and records/README do not describe).
TEST_CASE("nested JSON encoders write only fields their table structure declares", "[schema]") {
  const fs::path dir = fs::path(KB_TEST_DATA) / "every-field";
  auto corpus = kb::Corpus::load(dir);
  const kb::EvidenceIndex evidence = kb::EvidenceIndex::build(*corpus);
  std::set<std::string> undeclared;
  for (const auto& rec : corpus->records()) {
    undeclared_in_json(kb::schema::record_struct(rec->kind),
                       kb::json::record(*corpus, *rec, evidence), true, undeclared);
  }
  for (const auto& k : undeclared)
    UNSCOPED_INFO(k << ": written by a nested JSON encoder, declared by no table field");
  CHECK(undeclared.empty());
}
