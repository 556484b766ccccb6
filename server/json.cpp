#include "json.h"

#include "evidence_json.h"

namespace kb::json {

using nlohmann::json;

json diagnostic(const Diagnostic& d) {
  json j = {{"file", d.file},         {"line", d.line},       {"column", d.column},
            {"severity", to_string(d.severity)}, {"code", d.code}, {"message", d.message}};
  if (!d.hint.empty()) j["hint"] = d.hint;
  if (!d.record.empty()) j["record"] = d.record;
  return j;
}

json lint_report(std::size_t records, const std::vector<Diagnostic>& diags) {
  json list = json::array();
  for (const auto& d : diags) list.push_back(diagnostic(d));
  return {{"records", records},
          {"errors", count_severity(diags, Severity::error)},
          {"warnings", count_severity(diags, Severity::warning)},
          {"diagnostics", std::move(list)}};
}

json reference(const Corpus& corpus, const RefValue& ref, Kind ns) {
  json j = {{"raw", ref.raw}, {"field", ref.field}};
  auto target = corpus.target(ns, ref.raw);
  j["id"] = target ? json(*target) : json(nullptr);
  if (target) {
    if (const Record* t = corpus.find(*target)) j["name"] = std::string(display_name(*t));
  }
  if (!ref.versions.empty()) j[ns == Kind::engine && ref.field.rfind("subject", 0) == 0 ? "version" : "versions"] = ref.versions;
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
  json j = {{"type", c.type}};
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) j[k] = v;
  };
  put("repo", c.repo);
  if (c.number > 0) j["number"] = c.number;
  put("ref", c.ref);
  put("title", c.title);
  put("state", c.state);
  put("as_of", c.as_of);
  put("note", c.note);
  put("url", citation_url(c));
  return j;
}

namespace {

json refs(const Corpus& corpus, const std::vector<RefValue>& list, Kind ns) {
  json a = json::array();
  for (const auto& r : list) a.push_back(reference(corpus, r, ns));
  return a;
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
    case Predicate::Op::engine: {
      json e = {{"engine", p.engine.raw}};
      if (auto t = corpus.target(Kind::engine, p.engine.raw)) e["id"] = *t;
      if (!p.engine.versions.empty()) e["versions"] = p.engine.versions;
      return e;
    }
    case Predicate::Op::config: {
      json m = json::object();
      for (const auto& [k, v] : p.config) m[k] = v;
      return {{"config", m}};
    }
    case Predicate::Op::config_set: return {{"config_set", p.keys}};
  }
  return nullptr;
}

json failures(const std::vector<Failure>& list) {
  json out = json::array();
  for (const auto& f : list) {
    json item = {{"prompt", f.prompt},
                 {"position", f.position},
                 {"compared", f.compared.empty() ? "tokens" : f.compared},
                 {"expected", f.expected},
                 {"got", f.got}};
    if (f.trial > 0) item["trial"] = f.trial;
    if (f.run > 0) item["run"] = f.run;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace

json record(const Corpus& corpus, const Record& r, const EvidenceIndex& evidence) {
  json j = {{"id", r.id}, {"type", kind_name(r.kind)}, {"file", r.file}};
  auto put = [&](const char* k, const std::string& v) {
    if (!v.empty()) j[k] = v;
  };
  put("title", r.title);
  j["aliases"] = r.aliases;
  if (corpus.is_stale(r.id)) j["stale"] = true;
  json cites = json::array();
  for (const auto& c : r.references) cites.push_back(citation(c));
  j["references"] = cites;
  json log = json::array();
  for (const auto& e : r.repairs) {
    json x = {{"date", e.date}, {"field", e.field}, {"from", e.from}, {"to", e.to}};
    if (!e.reason.empty()) x["reason"] = e.reason;
    if (e.confidence > 0) x["confidence"] = e.confidence;
    log.push_back(x);
  }
  j["repairs"] = log;
  put("notes", r.notes);
  switch (r.kind) {
    case Kind::gotcha:
      put("severity", r.severity);
      put("status", r.status);
      put("kind", r.category);
      put("family", r.family);
      put("created", r.created);
      put("updated", r.updated);
      j["affects"] = refs(corpus, r.affects, Kind::engine);
      if (r.applies_when) j["applies_when"] = predicate(corpus, *r.applies_when);
      put("symptom", r.symptom);
      put("root_cause", r.root_cause);
      put("workaround", r.workaround);
      j["related"] = refs(corpus, r.related, Kind::gotcha);
      j["oracles"] = refs(corpus, r.oracles, Kind::oracle);
      j["evidence"] = evidence_summary(evidence.for_gotcha(r.id));
      break;
    case Kind::engine:
      put("name", r.name);
      put("repo", r.repo);
      put("url", r.url);
      put("description", r.description);
      put("kind", r.category);
      if (!r.probe.empty()) {
        json routes = json::array();
        for (const auto& p : r.probe) {
          json route = {{"path", p.path}};
          if (!p.version.empty()) route["version"] = p.version;
          if (!p.expect.empty()) {
            json expect = json::object();
            for (const auto& [k, v] : p.expect) expect[k] = v;
            route["expect"] = std::move(expect);
          }
          routes.push_back(std::move(route));
        }
        j["probe"] = std::move(routes);
      }
      break;
    case Kind::oracle:
      put("method", r.method);
      put("pass_criterion", r.pass_criterion);
      if (r.runner) {
        json params = json::object();
        for (const auto& [k, v] : r.runner->params) params[k] = v;
        j["runner"] = {{"kind", r.runner->kind}, {"params", std::move(params)}};
      }
      break;
    case Kind::result: {
      j["oracle"] = reference(corpus, r.oracle, Kind::oracle);
      put("date", r.date);
      json cfg = json::object();
      for (const auto& [k, v] : r.subject.config) cfg[k] = v;
      j["subject"] = {{"engines", refs(corpus, r.subject.engines, Kind::engine)}, {"config", cfg}};
      if (!r.subject.model.empty()) j["subject"]["model"] = r.subject.model;
      j["passed"] = r.passed;
      j["failed"] = r.failed;
      if (r.errors) j["errors"] = r.errors;
      if (r.skipped) j["skipped"] = r.skipped;
      j["evidence_for"] = refs(corpus, r.evidence_for, Kind::gotcha);
      if (r.source) j["source"] = citation(*r.source);
      j["incomplete"] = r.incomplete;
      j["failures"] = failures(r.failures);
      break;
    }
  }
  return j;
}

}  // namespace kb::json
