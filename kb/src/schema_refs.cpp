// The readers of field values with nested structure: references to other records (with
// engine versions), citations, the repairs log, applies_when predicates and a result's
// subject.

#include <string>
#include <vector>

#include "kb/version.h"
#include "schema_reader.h"
#include "similarity.h"
#include "text_util.h"

namespace kb::schema {
namespace {

const std::vector<std::string> kCitationFields = {"type", "repo", "number", "ref", "url",
                                                  "title", "state", "as_of", "note"};
const std::vector<std::string> kRepairFields = {"date", "field", "from", "to", "reason",
                                                "confidence"};
const std::vector<std::string> kPredicateOps = {"all", "any", "not", "engine", "config",
                                                "config_set"};

}  // namespace

RefValue Reader::ref_scalar(const Node& v, const std::string& field) {
  RefValue ref;
  ref.field = field;
  ref.pos = v.pos;
  if (scalar(v, field, ref.raw) && text::trim(ref.raw).empty()) {
    error("schema.empty-value", v.pos, field + ": empty reference");
  }
  return ref;
}

RefValue Reader::engine_ref(const Node& v, const std::string& field, const char* version_key) {
  if (!v.is_map()) return ref_scalar(v, field);
  const Node* engine = nullptr;
  const Node* version = nullptr;
  for (const auto& [k, val] : v.entries) {
    if (k.value == "engine") engine = &val;
    else if (k.value == version_key) version = &val;
    else unknown(k, field, {"engine", version_key});
  }
  RefValue ref;
  if (engine) {
    ref = ref_scalar(*engine, field);
  } else {
    ref.field = field;
    ref.pos = v.pos;
    error("schema.missing-field", v.pos, field + ": missing 'engine'");
  }
  if (version) {
    ref.versions_pos = version->pos;
    if (scalar(*version, field + "." + version_key, ref.versions)) {
      check_version(*version, field + "." + version_key, ref.versions, version_key);
    }
  }
  return ref;
}

void Reader::check_version(const Node& v, const std::string& field, const std::string& text,
                           const std::string& key) {
  std::string err;
  bool ok = key == "version" ? Version::parse(text, &err).has_value()
                             : VersionRange::parse(text, &err).has_value();
  if (!ok) {
    error("version.invalid", v.pos, field + ": " + err,
          key == "version" ? "write a version such as 0.26.0 or 0.27.1rc2"
                           : "write a range such as \">=0.26.0, <0.28\"");
  }
}

void Reader::refs(const Node& v, const std::string& field, std::vector<RefValue>& out,
                  const char* version_key) {
  if (!list(v, field, true)) return;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    std::string f = field + "[" + std::to_string(i) + "]";
    out.push_back(version_key ? engine_ref(v.items[i], f, version_key)
                              : ref_scalar(v.items[i], f));
  }
}

Citation Reader::citation(const Node& v, const std::string& field) {
  Citation c;
  c.pos = v.pos;
  if (!v.is_map()) {
    error("schema.type", v.pos,
          field + ": expected a mapping such as {type: issue, repo: owner/name, number: 1}, " +
              "found " + std::string(yaml::type_name(v)));
    return c;
  }
  for (const auto& [k, val] : v.entries) {
    const std::string f = field + "." + k.value;
    if (k.value == "type") scalar(val, f, c.type);
    else if (k.value == "repo") scalar(val, f, c.repo);
    else if (k.value == "number") count(val, f, c.number);
    else if (k.value == "ref") scalar(val, f, c.ref);
    else if (k.value == "url") scalar(val, f, c.url);
    else if (k.value == "title") scalar(val, f, c.title);
    else if (k.value == "state") scalar(val, f, c.state);
    else if (k.value == "as_of") date(val, f, c.as_of);
    else if (k.value == "note") scalar(val, f, c.note);
    else unknown(k, field, kCitationFields);
  }
  if (c.type.empty()) error("schema.missing-field", v.pos, field + ": missing 'type'",
                            "e.g. type: issue");
  if (!c.url.empty() && c.url.rfind("http://", 0) != 0 && c.url.rfind("https://", 0) != 0) {
    error("schema.url", v.pos, field + ".url: only http(s) URLs are allowed");
  }
  return c;
}

void Reader::citations(const Node& v, const std::string& field, std::vector<Citation>& out) {
  if (!list(v, field)) return;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    out.push_back(citation(v.items[i], field + "[" + std::to_string(i) + "]"));
  }
}

void Reader::repairs(const Node& v, std::vector<RepairEntry>& out) {
  if (!list(v, "repairs")) return;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const Node& item = v.items[i];
    const std::string field = "repairs[" + std::to_string(i) + "]";
    RepairEntry e;
    e.pos = item.pos;
    if (!item.is_map()) {
      error("schema.type", item.pos, field + ": expected a mapping");
      continue;
    }
    for (const auto& [k, val] : item.entries) {
      const std::string f = field + "." + k.value;
      if (k.value == "date") date(val, f, e.date);
      else if (k.value == "field") scalar(val, f, e.field);
      else if (k.value == "from") scalar(val, f, e.from);
      else if (k.value == "to") scalar(val, f, e.to);
      else if (k.value == "reason") scalar(val, f, e.reason);
      else if (k.value == "confidence") confidence(val, f, e.confidence);
      else unknown(k, field, kRepairFields);
    }
    for (const char* req : {"date", "field", "from", "to"}) {
      if (!item.find(req))
        error("schema.missing-field", item.pos, field + ": missing '" + req + "'");
    }
    out.push_back(std::move(e));
  }
}

Predicate Reader::predicate(const Node& v, const std::string& field, int depth) {
  Predicate p;
  p.pos = v.pos;
  if (!v.is_map() || v.entries.empty()) {
    error("predicate.invalid", v.pos,
          field + ": expected a mapping with one of all, any, not, engine, config, config_set",
          "e.g. {config: {kv_transfer: pd}}");
    return p;
  }
  if (depth > 32) {
    error("predicate.invalid", v.pos, field + ": nested too deeply");
    return p;
  }
  if (v.find("engine")) {
    p.op = Predicate::Op::engine;
    p.engine = engine_ref(v, field, "versions");
    return p;
  }
  if (v.entries.size() != 1) {
    error("predicate.invalid", v.pos,
          field + ": a predicate has exactly one operator, found " +
              std::to_string(v.entries.size()),
          "combine several with `all: [...]`");
  }
  const auto& [k, val] = v.entries.front();
  const std::string op = k.value;
  if (op == "all" || op == "any") {
    p.op = op == "all" ? Predicate::Op::all : Predicate::Op::any;
    if (!val.is_seq() || val.items.empty()) {
      error("predicate.invalid", val.pos, field + "." + op + ": expected a non-empty list");
      return p;
    }
    for (std::size_t i = 0; i < val.items.size(); ++i) {
      p.children.push_back(
          predicate(val.items[i], field + "." + op + "[" + std::to_string(i) + "]", depth + 1));
    }
  } else if (op == "not") {
    p.op = Predicate::Op::negate;
    p.children.push_back(predicate(val, field + ".not", depth + 1));
  } else if (op == "config") {
    p.op = Predicate::Op::config;
    config(val, field + ".config", p.config);
    if (p.config.empty()) error("predicate.invalid", val.pos, field + ".config: empty mapping");
  } else if (op == "config_set") {
    p.op = Predicate::Op::config_set;
    strings(val, field + ".config_set", p.keys);
    if (p.keys.empty()) error("predicate.invalid", val.pos, field + ".config_set: empty list");
  } else {
    auto guess = did_you_mean(op, kPredicateOps);
    error("predicate.unknown-operator", k.pos, field + ": unknown operator '" + op + "'",
          guess ? "did you mean '" + *guess + "'?"
                : "one of all, any, not, engine, config, config_set");
  }
  return p;
}

void Reader::subject(const Node& v) {
  if (v.is_null()) return;
  if (!v.is_map()) {
    error("schema.type", v.pos, "subject: expected a mapping with engines and config");
    return;
  }
  for (const auto& [k, val] : v.entries) {
    if (k.value == "engines") refs(val, "subject.engines", r_.subject.engines, "version");
    else if (k.value == "config") config(val, "subject.config", r_.subject.config);
    else if (k.value == "model") scalar(val, "subject.model", r_.subject.model);
    else unknown(k, "subject", {"engines", "config", "model"});
  }
}

}  // namespace kb::schema
