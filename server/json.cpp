#include "json.h"

#include <algorithm>

#include "evidence_json.h"
#include "kb/schema.h"

namespace kb::json {

using nlohmann::json;

json diagnostic(const Diagnostic& d) {
  json j = {{"file", d.file},     {"line", d.line},
            {"column", d.column}, {"severity", to_string(d.severity)},
            {"code", d.code},     {"message", d.message}};
  if (!d.hint.empty()) j["hint"] = d.hint;
  if (!d.record.empty()) j["record"] = d.record;
  return j;
}

namespace {

template <class List>
json lint_report_of(std::size_t records, const List& diags) {
  json list = json::array();
  for (const auto& d : diags) list.push_back(diagnostic(d));
  return {{"records", records},
          {"errors", count_severity(diags, Severity::error)},
          {"warnings", count_severity(diags, Severity::warning)},
          {"diagnostics", std::move(list)}};
}

}  // namespace

json lint_report(std::size_t records, const std::vector<Diagnostic>& diags) {
  return lint_report_of(records, diags);
}

json lint_report(std::size_t records, const DiagnosticList& diags) {
  return lint_report_of(records, diags);
}

json reference(const Corpus& corpus, const RefValue& ref, Kind ns) {
  json j = json::object();
  j.emplace("raw", ref.raw);
  j.emplace("field", ref.field);
  auto target = corpus.target(ns, ref.raw);
  j["id"] = target ? json(*target) : json(nullptr);
  if (target) {
    if (const Record* t = corpus.find(*target)) j["name"] = std::string(display_name(*t));
  }
  if (!ref.versions.empty())
    j[ns == Kind::engine && ref.field.starts_with("subject") ? "version" : "versions"] =
        ref.versions;
  return j;
}

std::string citation_url(const Citation& c) {
  if (!c.url.empty()) return c.url;
  if (c.repo.empty()) return {};
  const std::string base = "https://github.com/" + c.repo;
  if ((c.type == "issue" || c.type == "discussion") && c.number > 0) {
    return base + (c.type == "issue" ? "/issues/" : "/discussions/") + std::to_string(c.number);
  }
  if (c.type == "pr" && c.number > 0) return base + "/pull/" + std::to_string(c.number);
  if (c.type == "commit" && !c.ref.empty()) return base + "/commit/" + c.ref;
  return base;
}

json citation(const Citation& c) {
  json j = json::object();
  j.emplace("type", c.type);
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) j[k] = v;
  };
  put("repo", c.repo);
  if (c.number > 0) j["number"] = c.number;
  put("ref", c.ref);
  put("title", c.title);
  put("state", c.state);
  put("as_of", c.as_of);
  put("date", c.date);
  put("note", c.note);
  put("url", citation_url(c));
  return j;
}

namespace {

using kb::schema::Field;

json refs(const Corpus& corpus, const Vec<RefValue>& list, Kind ns) {
  json a = json::array();
  for (const auto& r : list) a.push_back(reference(corpus, r, ns));
  return a;
}

json cites(const Vec<Citation>& list) {
  json a = json::array();
  for (const auto& c : list) a.push_back(citation(c));
  return a;
}

json key_values(const Corpus& corpus, const Vec<KeyValue>& list) {
  json m = json::object();
  for (const auto& kv : list) {
    auto id = corpus.target(Kind::setting, kv.key.raw);
    const Record* rec = id ? corpus.find(*id) : nullptr;
    m[rec ? rec->setting->key : kv.key.raw] = kv.value;
  }
  return m;
}

std::string setting_key(const Corpus& corpus, const RefValue& key) {
  auto id = corpus.target(Kind::setting, key.raw);
  const Record* rec = id ? corpus.find(*id) : nullptr;
  return rec ? rec->setting->key : key.raw;
}

json operand(const Corpus& corpus, const Operand& o) {
  if (o.is_literal) return {{"value", o.literal}};
  const std::string key = setting_key(corpus, o.key);
  return o.role.empty() ? json(key) : json(o.role + "." + key);
}

json predicate(const Corpus& corpus, const Predicate& p) {
  switch (p.op) {
    case Predicate::Op::all:
    case Predicate::Op::any: {
      json a = json::array();
      for (const auto& c : p.children) a.push_back(predicate(corpus, c));
      return {{p.op == Predicate::Op::all ? "all" : "any", a}};
    }
    case Predicate::Op::negate:
      return {{"not", p.children.empty() ? json(nullptr) : predicate(corpus, p.children.front())}};
    case Predicate::Op::any_service:
      return {{"any_service",
               p.children.empty() ? json(nullptr) : predicate(corpus, p.children.front())}};
    case Predicate::Op::engine: {
      json e = {{"engine", p.engine_ref().raw}};
      if (auto t = corpus.target(Kind::engine, p.engine_ref().raw)) e["id"] = *t;
      if (!p.engine_ref().versions.empty()) e["versions"] = p.engine_ref().versions;
      return e;
    }
    case Predicate::Op::config: {
      json m = json::object();
      for (const auto& t : p.config) {
        const std::string key = setting_key(corpus, t.key);
        if (t.op == "eq" && t.values.size() == 1)
          m[key] = t.values.front();
        else if (t.op == "in" || t.op == "not_in")
          m[key] = {{t.op, t.values}};
        else
          m[key] = {{t.op, t.values.empty() ? std::string() : t.values.front()}};
      }
      return {{p.scope.empty() ? std::string("config") : p.scope.str(), m}};
    }
    case Predicate::Op::config_set: {
      json keys = json::array();
      for (const auto& k : p.keys) keys.push_back(setting_key(corpus, k));
      return {{"config_set", keys}};
    }
    case Predicate::Op::role:
      return {{"role", p.roles}};
    case Predicate::Op::differs: {
      if (!p.engine_ref().raw.empty()) {
        json e = {{"engine", p.engine_ref().raw}};
        if (auto t = corpus.target(Kind::engine, p.engine_ref().raw)) e["id"] = *t;
        return {{"differs", e}};
      }
      json keys = json::array();
      for (const auto& k : p.keys) keys.push_back(setting_key(corpus, k));
      return {{"differs", keys}};
    }
    case Predicate::Op::compare:
      return {{"compare", json::array({operand(corpus, p.compare->left), p.compare->cmp,
                                       operand(corpus, p.compare->right)})}};
  }
  return nullptr;
}

json spellings(const Vec<Spelling>& list, const char* name_key) {
  json a = json::array();
  for (const auto& s : list) {
    // A JSON field sits inside a flag's value (`--kv-transfer-config`) or a config key's
    // mapping (`kv_transfer_config`); the model keeps one name, and only flags start with -.
    const bool json_in_key =
        std::string_view(name_key) == "flag" && !s.field.empty() && !s.name.starts_with("-");
    json x = {{json_in_key ? "key" : name_key, s.name}};
    if (!s.field.empty()) x["field"] = s.field;
    if (s.has_value) x["value"] = s.value;
    if (s.invert) x["invert"] = true;
    if (s.takes_value) x["takes_value"] = *s.takes_value;
    if (!s.several.empty()) x["several"] = s.several;
    a.push_back(std::move(x));
  }
  return a;
}

using Put = void (*)(const Corpus&, const Record&, json&);

void put_text(json& j, std::string_view k, const std::string& v) {
  if (!v.empty()) j[std::string(k)] = v;
}

#define TEXT(name, member)                                                             \
  {                                                                                    \
    name, [](const Corpus&, const Record& r, json& j) { put_text(j, name, r.member); } \
  }

// A scalar mapping as written, in order of the file.
json pairs(const Vec<ConfigEntry>& list) {
  json out = json::object();
  for (const auto& [k, v] : list) out[k] = v;
  return out;
}

json failures(const Vec<Failure>& list) {
  json out = json::array();
  for (const auto& f : list) {
    json item = {{"prompt", f.prompt},
                 {"position", f.position},
                 {"compared",
                  f.compared.empty() ? std::string(failure_compared::kTokens) : f.compared.str()},
                 {"expected", f.expected},
                 {"got", f.got}};
    if (f.trial > 0) item["trial"] = f.trial;
    if (f.run > 0) item["run"] = f.run;
    out.push_back(std::move(item));
  }
  return out;
}

const std::vector<std::pair<std::string_view, Put>>& encoders() {
  static const std::vector<std::pair<std::string_view, Put>> all = {
      {"id", [](const Corpus&, const Record&, json&) {}},
      TEXT("title", title),
      {"aliases", [](const Corpus&, const Record& r, json& j) { j["aliases"] = r.aliases; }},
      {"references",
       [](const Corpus&, const Record& r, json& j) { j["references"] = cites(r.references); }},
      TEXT("notes", notes),
      {"severity", [](const Corpus&, const Record& r,
                      json& j) { put_text(j, "severity", std::string(to_string(r.severity))); }},
      {"status", [](const Corpus&, const Record& r,
                    json& j) { put_text(j, "status", std::string(to_string(r.status))); }},
      TEXT("kind", category),
      TEXT("family", family),
      TEXT("created", created),
      TEXT("updated", updated),
      TEXT("as_of", as_of),
      TEXT("confidence", confidence),
      {"tags", [](const Corpus&, const Record& r, json& j) { j["tags"] = r.tags; }},
      {"affects", [](const Corpus& c, const Record& r,
                     json& j) { j["affects"] = refs(c, r.affects, Kind::engine); }},
      {"applies_when",
       [](const Corpus& c, const Record& r, json& j) {
         if (r.applies_when) j["applies_when"] = predicate(c, *r.applies_when);
       }},
      TEXT("symptom", symptom),
      TEXT("root_cause", root_cause),
      TEXT("workaround", workaround),
      {"related", [](const Corpus& c, const Record& r,
                     json& j) { j["related"] = refs(c, r.related, Kind::gotcha); }},
      {"oracles", [](const Corpus& c, const Record& r,
                     json& j) { j["oracles"] = refs(c, r.oracles, Kind::oracle); }},
      {"fixes",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& f : r.fixes) {
           json x = {{"engine", reference(c, f.engine, Kind::engine)},
                     {"issues", cites(f.issues)},
                     {"prs", cites(f.prs)},
                     {"fixed_in", f.fixed_in.empty() ? json(nullptr) : json(f.fixed_in)},
                     {"resolution", f.resolution.empty() ? std::string(fix_resolution::kNone)
                                                         : f.resolution.str()}};
           if (!f.note.empty()) x["note"] = f.note;
           if (!f.cause.empty()) x["cause"] = f.cause;
           if (!f.affected.empty()) x["affected"] = f.affected;
           a.push_back(std::move(x));
         }
         j["fixes"] = a;
       }},
      {"detection",
       [](const Corpus& c, const Record& r, json& j) {
         if (!r.detection) return;
         const Detection& d = *r.detection;
         json x = {{"lying_signals", d.lying_signals},
                   {"oracles", refs(c, d.oracles, Kind::oracle)}};
         x["silent"] = d.silent ? json(*d.silent) : json(nullptr);
         if (!d.canary.empty()) x["canary"] = d.canary;
         if (!d.signatures.empty()) {
           json a = json::array();
           for (const Signature& s : d.signatures) {
             json y = json::object();
             put_text(y, "literal", s.literal);
             put_text(y, "regex", s.regex);
             if (!s.engine.raw.empty()) y["engine"] = reference(c, s.engine, Kind::engine);
             put_text(y, "versions", s.versions);
             a.push_back(std::move(y));
           }
           x["signatures"] = std::move(a);
         }
         j["detection"] = std::move(x);
       }},
      {"impact",
       [](const Corpus&, const Record& r, json& j) {
         json a = json::array();
         for (const auto& i : r.impact) {
           json x = {{"metric", i.metric}};
           if (!i.change.empty()) x["change"] = i.change;
           if (!i.note.empty()) x["note"] = i.note;
           a.push_back(std::move(x));
         }
         j["impact"] = a;
       }},
      {"repairs",
       [](const Corpus&, const Record& r, json& j) {
         json log = json::array();
         for (const auto& e : r.repairs) {
           json x = {{"date", e.date}, {"field", e.field}, {"from", e.from}, {"to", e.to}};
           if (!e.reason.empty()) x["reason"] = e.reason;
           if (e.confidence > 0) x["confidence"] = e.confidence;
           log.push_back(x);
         }
         j["repairs"] = log;
       }},
      TEXT("name", engine->name),
      TEXT("repo", engine->repo),
      TEXT("url", engine->url),
      TEXT("description", description),
      {"relations",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& rel : r.engine->relations)
           a.push_back({{"type", rel.type}, {"engine", reference(c, rel.engine, Kind::engine)}});
         j["relations"] = a;
       }},
      {"packages",
       [](const Corpus&, const Record& r, json& j) {
         json a = json::array();
         for (const auto& p : r.engine->packages)
           a.push_back({{"name", p.name}, {"ecosystem", p.ecosystem}});
         j["packages"] = a;
       }},
      {"images",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& i : r.engine->images)
           a.push_back({{"image", i.image}, {"engines", refs(c, i.engines, Kind::engine)}});
         j["images"] = a;
       }},
      {"entrypoints",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& e : r.engine->entrypoints) {
           json x = json::object();
           put_text(x, "command", e.command);
           put_text(x, "module", e.module);
           put_text(x, "role", e.role);
           if (!e.engines.empty()) x["engines"] = refs(c, e.engines, Kind::engine);
           put_text(x, "wraps", e.wraps);
           if (!e.value_options.empty()) x["value_options"] = e.value_options;
           if (e.serves) x["serves"] = *e.serves;
           if (!e.implies.empty()) x["implies"] = key_values(c, e.implies);
           put_text(x, "versions", e.versions);
           a.push_back(std::move(x));
         }
         j["entrypoints"] = a;
       }},
      {"shell_functions",
       [](const Corpus&, const Record& r, json& j) {
         json a = json::array();
         for (const auto& f : r.engine->shell_functions) {
           a.push_back({{"name", f.name}, {"sets", f.sets}, {"argument", f.argument}});
         }
         j["shell_functions"] = a;
       }},
      {"resources",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& res : r.engine->resources) {
           json x = {{"kind", res.kind}};
           put_text(x, "group", res.group);
           if (!res.engines.empty()) x["engines"] = refs(c, res.engines, Kind::engine);
           put_text(x, "container", res.container);
           if (!res.args_env.empty()) x["args_env"] = res.args_env;
           if (!res.model.empty()) x["model"] = res.model;
           if (!res.pools.empty()) x["pools"] = res.pools;
           if (!res.pool_keys.empty()) x["pool_keys"] = res.pool_keys;
           json pods = json::array();
           for (const auto& p : res.pods) {
             json y = {{"path", p.path}};
             put_text(y, "role", p.role);
             put_text(y, "when", p.when);
             put_text(y, "role_from", p.role_from);
             pods.push_back(std::move(y));
           }
           if (!pods.empty()) x["pods"] = pods;
           a.push_back(std::move(x));
         }
         j["resources"] = a;
       }},
      {"charts",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& ch : r.engine->charts) {
           json x = {{"values", ch.values}};
           if (!ch.engines.empty()) x["engines"] = refs(c, ch.engines, Kind::engine);
           put_text(x, "name", ch.name);
           if (!ch.image.empty()) x["image"] = ch.image;
           if (!ch.model.empty()) x["model"] = ch.model;
           if (!ch.args.empty()) x["args"] = ch.args;
           if (!ch.command.empty()) x["command"] = ch.command;
           if (!ch.env.empty()) x["env"] = ch.env;
           if (!ch.env_vars.empty()) x["env_vars"] = ch.env_vars;
           if (!ch.engine_args.empty()) x["engine_args"] = ch.engine_args;
           if (!ch.keys_of.raw.empty()) x["keys_of"] = reference(c, ch.keys_of, Kind::engine);
           if (!ch.settings.empty()) x["settings"] = ch.settings;
           put_text(x, "role", ch.role);
           put_text(x, "inherit", ch.inherit);
           a.push_back(std::move(x));
         }
         j["charts"] = a;
       }},
      {"probe",
       [](const Corpus&, const Record& r, json& j) {
         json a = json::array();
         for (const auto& p : r.engine->probe) {
           json route = {{"path", p.path}};
           put_text(route, "version", p.version);
           if (!p.expect.empty()) route["expect"] = pairs(p.expect);
           a.push_back(std::move(route));
         }
         j["probe"] = a;
       }},
      {"releases",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& rel : r.engine->releases) {
           json x = {{"version", rel.version}, {"bundles", refs(c, rel.bundles, Kind::engine)}};
           put_text(x, "date", rel.date);
           a.push_back(std::move(x));
         }
         j["releases"] = a;
       }},
      TEXT("method", method),
      TEXT("pass_criterion", pass_criterion),
      {"runner",
       [](const Corpus&, const Record& r, json& j) {
         if (r.runner)
           j["runner"] = {{"kind", r.runner->kind}, {"params", pairs(r.runner->params)}};
       }},
      {"oracle", [](const Corpus& c, const Record& r,
                    json& j) { j["oracle"] = reference(c, r.result->oracle, Kind::oracle); }},
      TEXT("date", result->date),
      {"subject",
       [](const Corpus& c, const Record& r, json& j) {
         j["subject"] = {{"engines", refs(c, r.result->subject.engines, Kind::engine)},
                         {"config", pairs(r.result->subject.config)}};
         if (!r.result->subject.model.empty()) j["subject"]["model"] = r.result->subject.model;
       }},
      {"passed", [](const Corpus&, const Record& r, json& j) { j["passed"] = r.result->passed; }},
      {"failed", [](const Corpus&, const Record& r, json& j) { j["failed"] = r.result->failed; }},
      {"errors",
       [](const Corpus&, const Record& r, json& j) {
         if (r.result->errors) j["errors"] = r.result->errors;
       }},
      {"skipped",
       [](const Corpus&, const Record& r, json& j) {
         if (r.result->skipped) j["skipped"] = r.result->skipped;
       }},
      {"evidence_for",
       [](const Corpus& c, const Record& r, json& j) {
         j["evidence_for"] = refs(c, r.result->evidence_for, Kind::gotcha);
       }},
      {"source",
       [](const Corpus&, const Record& r, json& j) {
         if (r.result->source) j["source"] = citation(*r.result->source);
       }},
      {"failures", [](const Corpus&, const Record& r,
                      json& j) { j["failures"] = failures(r.result->failures); }},
      {"incomplete",
       [](const Corpus&, const Record& r, json& j) { j["incomplete"] = r.result->incomplete; }},
      {"key", [](const Corpus&, const Record& r, json& j) { j["key"] = r.setting->key; }},
      {"type", [](const Corpus&, const Record& r, json& j) { j["value_type"] = r.setting->type; }},
      {"scope", [](const Corpus&, const Record& r, json& j) { j["scope"] = r.setting->scope; }},
      {"synonyms",
       [](const Corpus&, const Record& r, json& j) { j["synonyms"] = r.setting->synonyms; }},
      {"values",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& v : r.setting->values) {
           json x = {{"value", v.value}, {"synonyms", v.synonyms}};
           put_text(x, "description", v.description);
           if (!v.engines.empty()) x["engines"] = refs(c, v.engines, Kind::engine);
           if (!v.implies.empty()) x["implies"] = key_values(c, v.implies);
           if (!v.runs_shipped_engines) x["runs_shipped_engines"] = false;
           if (!v.in_names.empty()) x["in_names"] = v.in_names;
           if (!v.routed_by.empty()) x["routed_by"] = v.routed_by;
           a.push_back(std::move(x));
         }
         j["values"] = a;
       }},
      {"derive",
       [](const Corpus&, const Record& r, json& j) {
         if (r.setting->derive.empty()) return;
         json a = json::array();
         for (const auto& d : r.setting->derive) {
           json x = {{"value", d.value}, {"roles", d.roles}};
           if (!d.shared.empty()) x["shared"] = d.shared;
           a.push_back(std::move(x));
         }
         j["derive"] = a;
       }},
      {"file_of",
       [](const Corpus& c, const Record& r, json& j) {
         if (!r.setting->file_of.raw.empty())
           j["file_of"] = reference(c, r.setting->file_of, Kind::engine);
       }},
      {"engines",
       [](const Corpus& c, const Record& r, json& j) {
         json a = json::array();
         for (const auto& e : r.setting->engines) {
           json x = {{"engine", reference(c, e.engine, Kind::engine)},
                     {"flags", spellings(e.flags, "flag")},
                     {"env", spellings(e.env, "name")},
                     {"json", spellings(e.json, "flag")},
                     {"keys", spellings(e.keys, "key")}};
           put_text(x, "versions", e.versions);
           json d = json::array();
           for (const auto& def : e.defaults) {
             json y = json::object();
             put_text(y, "value", def.value);
             put_text(y, "derived", def.derived);
             put_text(y, "versions", def.versions);
             if (!def.roles.empty()) y["roles"] = def.roles;
             d.push_back(std::move(y));
           }
           x["defaults"] = d;
           a.push_back(std::move(x));
         }
         j["engines"] = a;
       }},
      {"match", [](const Corpus&, const Record& r, json& j) { j["match"] = r.match; }},
      {"traits",
       [](const Corpus& c, const Record& r, json& j) { j["traits"] = key_values(c, r.traits); }},
  };
  return all;
}

#undef TEXT

Put encoder(std::string_view name) {
  for (const auto& [n, put] : encoders()) {
    if (n == name) return put;
  }
  return nullptr;
}

}  // namespace

std::vector<std::string> encode_drift() {
  std::vector<std::string> out;
  for (Kind k : kAllKinds) {
    const kb::schema::Struct& table = kb::schema::record_struct(k);
    for (const Field& f : table.fields) {
      if (!encoder(f.name))
        out.push_back(std::string(table.name) + "." + std::string(f.name) +
                      ": in the schema table, but the JSON encoder has no encoding for it");
    }
  }
  for (const auto& entry : encoders()) {
    // Named, not a structured binding: clang 14 cannot capture one in a lambda.
    const auto& name = entry.first;
    const bool declared = std::any_of(std::begin(kAllKinds), std::end(kAllKinds), [&](Kind k) {
      return kb::schema::find_field(kb::schema::record_struct(k), name) != nullptr;
    });
    if (!declared)
      out.push_back(std::string(name) +
                    ": the JSON encoder encodes it, but no record of the schema table has it");
  }
  return out;
}

json record(const Corpus& corpus, const Record& slim, const EvidenceIndex& evidence) {
  const std::shared_ptr<const Record> whole = corpus.whole(slim);
  const Record& r = *whole;
  json j = {{"id", r.id}, {"type", kind_name(r.kind)}, {"file", r.file}};
  if (corpus.is_stale(r.id)) j["stale"] = true;
  for (const Field& f : kb::schema::record_struct(r.kind).fields) {
    if (Put put = encoder(f.name)) put(corpus, r, j);
  }
  // Lists are always present, even when empty, so clients need not test for them.
  for (const char* k : {"aliases", "references", "repairs"}) {
    if (!j.contains(k)) j[k] = json::array();
  }
  if (r.kind == Kind::gotcha) j["evidence"] = evidence_summary(evidence.for_gotcha(r.id));
  return j;
}

json versioned(json doc, std::string_view snapshot) {
  if (!doc.is_object()) return doc;
  doc["schema_version"] = kSchemaVersion;
  if (!snapshot.empty()) doc["snapshot"] = snapshot;
  return doc;
}

}  // namespace kb::json
