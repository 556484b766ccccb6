#include "schema.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>

#include "schema_reader.h"
#include "similarity.h"
#include "text_util.h"

namespace kb::schema {
namespace {

using yaml::Node;

const std::vector<std::string> kCommon = {"id", "title", "aliases", "references", "notes"};

const std::vector<std::string> kSeverities = {"blocker", "major", "minor", "info"};
const std::vector<std::string> kStatuses = {"open", "mitigated", "fixed", "withdrawn"};

std::vector<std::string> with_common(std::vector<std::string> own) {
  own.insert(own.begin(), kCommon.begin(), kCommon.end());
  return own;
}

}  // namespace

void Reader::error(const std::string& code, Pos p, std::string msg, std::string hint) {
  report(Severity::error, code, p, std::move(msg), std::move(hint));
  ok_ = false;
}

void Reader::warn(const std::string& code, Pos p, std::string msg, std::string hint) {
  report(Severity::warning, code, p, std::move(msg), std::move(hint));
}

void Reader::report(Severity s, const std::string& code, Pos p, std::string msg, std::string hint) {
  diags_.push_back({s, code, r_.file, p.line, p.column, std::move(msg), std::move(hint), r_.id});
}

bool Reader::scalar(const Node& v, const std::string& field, std::string& out) {
  if (v.is_null()) return false;
  if (!v.is_scalar()) {
    error("schema.type", v.pos,
          field + ": expected a scalar, found " + std::string(yaml::type_name(v)));
    return false;
  }
  out = v.value;
  return true;
}

void Reader::date(const Node& v, const std::string& field, std::string& out) {
  if (!scalar(v, field, out)) return;
  if (!text::valid_date(out)) {
    error("schema.date", v.pos, field + ": '" + out + "' is not a date",
          "write dates as YYYY-MM-DD, e.g. 2026-10-03");
  }
}

void Reader::count(const Node& v, const std::string& field, std::int64_t& out) {
  std::string s;
  if (!scalar(v, field, s)) return;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc() || p != s.data() + s.size() || out < 0) {
    error("schema.type", v.pos, field + ": expected a whole number >= 0, found '" + s + "'");
    out = 0;
  }
}

void Reader::confidence(const Node& v, const std::string& field, double& out) {
  std::string s;
  if (!scalar(v, field, s)) return;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !(out >= 0 && out <= 1)) {
    error("schema.type", v.pos, field + ": expected a number between 0 and 1");
    out = 0;
  }
}

void Reader::one_of(const Node& v, const std::string& field,
                    const std::vector<std::string>& choices, std::string& out) {
  if (!scalar(v, field, out)) return;
  if (std::find(choices.begin(), choices.end(), out) != choices.end()) return;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : " | ") + c;
  auto guess = did_you_mean(out, choices);
  error("schema.enum", v.pos, field + ": unknown value '" + out + "'",
        guess ? "did you mean '" + *guess + "'? (one of " + list + ")" : "one of " + list);
}

void Reader::strings(const Node& v, const std::string& field, std::vector<std::string>& out) {
  if (!list(v, field)) return;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    std::string s;
    if (scalar(v.items[i], field + "[" + std::to_string(i) + "]", s)) out.push_back(s);
  }
}

void Reader::config(const Node& v, const std::string& field, std::vector<ConfigEntry>& out) {
  if (v.is_null()) return;
  if (!v.is_map()) {
    error("schema.type", v.pos,
          field + ": expected a mapping, found " + std::string(yaml::type_name(v)));
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

bool Reader::list(const Node& v, const std::string& field, bool suggest_brackets) {
  if (v.is_seq()) return true;
  if (v.is_null()) return false;
  error("schema.type", v.pos, field + ": expected a list, found " + std::string(yaml::type_name(v)),
        suggest_brackets && v.is_scalar() ? "write `" + field + ": [" + v.value + "]`" : "");
  return false;
}

void Reader::unknown(const Node& key, const std::string& where,
                     const std::vector<std::string>& allowed) {
  auto guess = did_you_mean(key.value, allowed);
  std::string prefix = where.empty() ? "" : where + ": ";
  error("schema.unknown-field", key.pos, prefix + "unknown field '" + key.value + "'",
        guess ? "did you mean '" + *guess + "'?" : "");
}

const std::vector<std::string>& allowed_fields(Kind k) {
  static const std::vector<std::string> gotcha = with_common(
      {"severity", "status", "kind", "family", "created", "updated", "affects", "applies_when",
       "symptom", "root_cause", "workaround", "related", "oracles", "repairs"});
  static const std::vector<std::string> engine =
      with_common({"name", "repo", "url", "description", "kind", "probe"});
  static const std::vector<std::string> oracle =
      with_common({"method", "pass_criterion", "runner"});
  static const std::vector<std::string> result =
      with_common({"oracle", "date", "subject", "passed", "failed", "errors", "skipped",
                   "evidence_for", "source", "failures", "incomplete"});
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
    else if (f == "runner") rd.runner(v);
    else if (f == "probe") rd.probe(v);
    else if (f == "failures") rd.failures(v);
    else if (f == "incomplete") rd.flag(v, f, r.incomplete);
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
  if (r.kind == Kind::result && static_cast<std::int64_t>(r.failures.size()) > r.failed) {
    const Node* f = root.find("failures");
    rd.error("schema.inconsistent", f ? f->pos : root.pos,
             "failures: " + std::to_string(r.failures.size()) + " entries but failed is " +
                 std::to_string(r.failed),
             "each entry describes one of the `failed` comparisons");
  }
  return rd.ok();
}

}  // namespace kb::schema
