#include "schema.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "kb/version.h"
#include "similarity.h"
#include "text_util.h"

namespace kb::schema {
namespace {

using yaml::Node;

const std::vector<std::string> kCommon = {"id", "title", "aliases", "references", "notes"};

const std::vector<std::string> kSeverities = {"blocker", "major", "minor", "info"};
const std::vector<std::string> kStatuses = {"open", "mitigated", "fixed", "withdrawn"};
const std::vector<std::string> kCitationFields = {"type", "repo", "number", "ref", "url",
                                                  "title", "state", "as_of", "note"};
const std::vector<std::string> kRepairFields = {"date", "field", "from", "to", "reason",
                                                "confidence"};
const std::vector<std::string> kPredicateOps = {"all", "any", "not", "engine", "config",
                                                "config_set"};

class Reader {
 public:
  Reader(Record& r, std::vector<Diagnostic>& diags) : r_(r), diags_(diags) {}

  void error(const std::string& code, Pos p, std::string msg, std::string hint = {}) {
    report(Severity::error, code, p, std::move(msg), std::move(hint));
    ok_ = false;
  }
  void warn(const std::string& code, Pos p, std::string msg, std::string hint = {}) {
    report(Severity::warning, code, p, std::move(msg), std::move(hint));
  }
  bool ok() const { return ok_; }

  // A scalar field; null counts as absent.
  bool scalar(const Node& v, const std::string& field, std::string& out) {
    if (v.is_null()) return false;
    if (!v.is_scalar()) {
      error("schema.type", v.pos,
            field + ": expected a scalar, found " + std::string(yaml::type_name(v)));
      return false;
    }
    out = v.value;
    return true;
  }

  void text(const Node& v, const std::string& field, std::string& out) { scalar(v, field, out); }

  void date(const Node& v, const std::string& field, std::string& out) {
    if (!scalar(v, field, out)) return;
    if (!text::valid_date(out)) {
      error("schema.date", v.pos, field + ": '" + out + "' is not a date",
            "write dates as YYYY-MM-DD, e.g. 2026-10-03");
    }
  }

  void count(const Node& v, const std::string& field, std::int64_t& out) {
    std::string s;
    if (!scalar(v, field, s)) return;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || p != s.data() + s.size() || out < 0) {
      error("schema.type", v.pos, field + ": expected a whole number >= 0, found '" + s + "'");
      out = 0;
    }
  }

  void one_of(const Node& v, const std::string& field, const std::vector<std::string>& choices,
              std::string& out) {
    if (!scalar(v, field, out)) return;
    if (std::find(choices.begin(), choices.end(), out) != choices.end()) return;
    std::string list;
    for (const auto& c : choices) list += (list.empty() ? "" : " | ") + c;
    auto guess = did_you_mean(out, choices);
    error("schema.enum", v.pos, field + ": unknown value '" + out + "'",
          guess ? "did you mean '" + *guess + "'? (one of " + list + ")" : "one of " + list);
  }

  void strings(const Node& v, const std::string& field, std::vector<std::string>& out) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      error("schema.type", v.pos, field + ": expected a list, found " +
                                      std::string(yaml::type_name(v)));
      return;
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      std::string s;
      if (scalar(v.items[i], field + "[" + std::to_string(i) + "]", s)) out.push_back(s);
    }
  }

  RefValue ref_scalar(const Node& v, const std::string& field) {
    RefValue ref;
    ref.field = field;
    ref.pos = v.pos;
    if (scalar(v, field, ref.raw) && text::trim(ref.raw).empty()) {
      error("schema.empty-value", v.pos, field + ": empty reference");
    }
    return ref;
  }

  // `vllm` or `{engine: vllm, versions|version: "..."}`.
  RefValue engine_ref(const Node& v, const std::string& field, const char* version_key) {
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

  void check_version(const Node& v, const std::string& field, const std::string& text,
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

  void refs(const Node& v, const std::string& field, std::vector<RefValue>& out,
            const char* version_key = nullptr) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      if (v.is_scalar()) {
        error("schema.type", v.pos, field + ": expected a list, found a scalar",
              "write `" + field + ": [" + v.value + "]`");
      } else {
        error("schema.type", v.pos,
              field + ": expected a list, found " + std::string(yaml::type_name(v)));
      }
      return;
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      std::string f = field + "[" + std::to_string(i) + "]";
      out.push_back(version_key ? engine_ref(v.items[i], f, version_key)
                                : ref_scalar(v.items[i], f));
    }
  }

  void config(const Node& v, const std::string& field, std::vector<ConfigEntry>& out) {
    if (v.is_null()) return;
    if (!v.is_map()) {
      error("schema.type", v.pos, field + ": expected a mapping, found " +
                                      std::string(yaml::type_name(v)));
      return;
    }
    for (const auto& [k, val] : v.entries) {
      std::string value;
      if (val.is_null()) {
        value = "";
      } else if (!scalar(val, field + "." + k.value, value)) {
        continue;
      }
      out.emplace_back(k.value, value);
    }
  }

  Citation citation(const Node& v, const std::string& field) {
    Citation c;
    c.pos = v.pos;
    if (!v.is_map()) {
      error("schema.type", v.pos, field + ": expected a mapping such as {type: issue, repo: "
                                          "owner/name, number: 1}, found " +
                                          std::string(yaml::type_name(v)));
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

  void citations(const Node& v, const std::string& field, std::vector<Citation>& out) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      error("schema.type", v.pos, field + ": expected a list, found " +
                                      std::string(yaml::type_name(v)));
      return;
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      out.push_back(citation(v.items[i], field + "[" + std::to_string(i) + "]"));
    }
  }

  void repairs(const Node& v, std::vector<RepairEntry>& out) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      error("schema.type", v.pos, "repairs: expected a list, found " +
                                      std::string(yaml::type_name(v)));
      return;
    }
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
        if (!item.find(req)) error("schema.missing-field", item.pos, field + ": missing '" + req + "'");
      }
      out.push_back(std::move(e));
    }
  }

  void confidence(const Node& v, const std::string& field, double& out) {
    std::string s;
    if (!scalar(v, field, s)) return;
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !(out >= 0 && out <= 1)) {
      error("schema.type", v.pos, field + ": expected a number between 0 and 1");
      out = 0;
    }
  }

  Predicate predicate(const Node& v, const std::string& field, int depth) {
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

  void subject(const Node& v) {
    if (v.is_null()) return;
    if (!v.is_map()) {
      error("schema.type", v.pos, "subject: expected a mapping with engines and config");
      return;
    }
    for (const auto& [k, val] : v.entries) {
      if (k.value == "engines") refs(val, "subject.engines", r_.subject.engines, "version");
      else if (k.value == "config") config(val, "subject.config", r_.subject.config);
      else unknown(k, "subject", {"engines", "config"});
    }
  }

  void unknown(const Node& key, const std::string& where, const std::vector<std::string>& allowed) {
    auto guess = did_you_mean(key.value, allowed);
    std::string prefix = where.empty() ? "" : where + ": ";
    error("schema.unknown-field", key.pos, prefix + "unknown field '" + key.value + "'",
          guess ? "did you mean '" + *guess + "'?" : "");
  }

 private:
  void report(Severity s, const std::string& code, Pos p, std::string msg, std::string hint) {
    diags_.push_back({s, code, r_.file, p.line, p.column, std::move(msg), std::move(hint), r_.id});
  }

  Record& r_;
  std::vector<Diagnostic>& diags_;
  bool ok_ = true;
};

std::vector<std::string> with_common(std::vector<std::string> own) {
  own.insert(own.begin(), kCommon.begin(), kCommon.end());
  return own;
}

}  // namespace

const std::vector<std::string>& allowed_fields(Kind k) {
  static const std::vector<std::string> gotcha = with_common(
      {"severity", "status", "kind", "family", "created", "updated", "affects", "applies_when",
       "symptom", "root_cause", "workaround", "related", "oracles", "repairs"});
  static const std::vector<std::string> engine =
      with_common({"name", "repo", "url", "description", "kind"});
  static const std::vector<std::string> oracle = with_common({"method", "pass_criterion"});
  static const std::vector<std::string> result =
      with_common({"oracle", "date", "subject", "passed", "failed", "errors", "skipped",
                   "evidence_for", "source"});
  switch (k) {
    case Kind::gotcha: return gotcha;
    case Kind::engine: return engine;
    case Kind::oracle: return oracle;
    case Kind::result: return result;
  }
  return gotcha;
}

bool read_record(const Node& root, Record& r, std::vector<Diagnostic>& diags) {
  Reader rd(r, diags);
  const auto& allowed = allowed_fields(r.kind);
  std::set<std::string> present;
  for (const auto& [k, v] : root.entries) {
    if (!k.is_scalar()) {
      rd.error("schema.invalid-key", k.pos, "keys must be plain names");
      continue;
    }
    const std::string& f = k.value;
    present.insert(f);
    if (std::find(allowed.begin(), allowed.end(), f) == allowed.end()) {
      rd.unknown(k, "", allowed);
      continue;
    }
    if (f == "id") {
      std::string id;
      if (rd.scalar(v, "id", id) && id != r.id) {
        rd.error("schema.id-mismatch", v.pos, "id '" + id + "' does not match the file path",
                 "the path decides the id: write `id: " + r.id + "` or move the file");
      }
    } else if (f == "title") rd.text(v, f, r.title);
    else if (f == "aliases") rd.strings(v, f, r.aliases);
    else if (f == "references") rd.citations(v, f, r.references);
    else if (f == "notes") rd.text(v, f, r.notes);
    else if (f == "severity") rd.one_of(v, f, kSeverities, r.severity);
    else if (f == "status") rd.one_of(v, f, kStatuses, r.status);
    else if (f == "kind") rd.text(v, f, r.category);
    else if (f == "family") rd.text(v, f, r.family);
    else if (f == "created") rd.date(v, f, r.created);
    else if (f == "updated") rd.date(v, f, r.updated);
    else if (f == "affects") rd.refs(v, f, r.affects, "versions");
    else if (f == "applies_when") {
      if (!v.is_null()) r.applies_when = rd.predicate(v, f, 0);
    } else if (f == "symptom") rd.text(v, f, r.symptom);
    else if (f == "root_cause") rd.text(v, f, r.root_cause);
    else if (f == "workaround") rd.text(v, f, r.workaround);
    else if (f == "related") rd.refs(v, f, r.related);
    else if (f == "oracles") rd.refs(v, f, r.oracles);
    else if (f == "repairs") rd.repairs(v, r.repairs);
    else if (f == "name") rd.text(v, f, r.name);
    else if (f == "repo") rd.text(v, f, r.repo);
    else if (f == "url") rd.text(v, f, r.url);
    else if (f == "description") rd.text(v, f, r.description);
    else if (f == "method") rd.text(v, f, r.method);
    else if (f == "pass_criterion") rd.text(v, f, r.pass_criterion);
    else if (f == "oracle") r.oracle = rd.ref_scalar(v, f);
    else if (f == "date") rd.date(v, f, r.date);
    else if (f == "subject") rd.subject(v);
    else if (f == "passed") rd.count(v, f, r.passed);
    else if (f == "failed") rd.count(v, f, r.failed);
    else if (f == "errors") rd.count(v, f, r.errors);
    else if (f == "skipped") rd.count(v, f, r.skipped);
    else if (f == "evidence_for") rd.refs(v, f, r.evidence_for);
    else if (f == "source") r.source = rd.citation(v, f);
  }
  auto require = [&](const char* f, const char* example) {
    const Node* v = root.find(f);
    if (!v || v->is_null() || (v->is_scalar() && text::trim(v->value).empty())) {
      rd.error("schema.missing-field", root.pos, std::string("missing required field '") + f + "'",
               std::string("add e.g. `") + example + "`");
    }
  };
  switch (r.kind) {
    case Kind::gotcha:
      require("title", "title: One line saying what goes wrong");
      require("severity", "severity: major");
      require("status", "status: open");
      require("symptom", "symptom: |");
      break;
    case Kind::engine: require("name", "name: vLLM"); break;
    case Kind::oracle: require("title", "title: What the oracle checks"); break;
    case Kind::result:
      require("oracle", "oracle: monolithic-equivalence");
      require("date", "date: 2026-09-30");
      require("passed", "passed: 0");
      require("failed", "failed: 3");
      break;
  }
  return rd.ok();
}

}  // namespace kb::schema
