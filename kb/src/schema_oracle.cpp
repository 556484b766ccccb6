// The fields `kb oracle run` reads and writes: an oracle's runner (checked against the
// runner table), an engine's probe routes, and a result's failures and incomplete flag.

#include <string>
#include <vector>

#include "oracle/runner_table.h"
#include "schema_reader.h"
#include "text_util.h"

namespace kb::schema {
namespace {

const std::vector<std::string> kRunnerFields = {"kind", "params"};
const std::vector<std::string> kProbeFields = {"path", "version", "expect"};
const std::vector<std::string> kFailureFields = {"prompt",   "position", "trial", "run",
                                                 "compared", "expected", "got"};
const std::vector<std::string> kCompared = {"tokens", "text"};

std::string at(const std::string& field, std::size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

}  // namespace

void Reader::flag(const Node& v, const std::string& field, bool& out) {
  std::string s;
  if (!scalar(v, field, s)) return;
  if (s == "true" || s == "false") {
    out = s == "true";
    return;
  }
  error("schema.type", v.pos, field + ": expected true or false, found '" + s + "'");
}

void Reader::runner(const Node& v) {
  if (v.is_null()) return;
  if (!v.is_map()) {
    error("schema.type", v.pos, "runner: expected a mapping such as {kind: cold-vs-warm}");
    return;
  }
  RunnerDecl decl;
  decl.pos = v.pos;
  const Node* params = nullptr;
  for (const auto& [k, val] : v.entries) {
    if (k.value == "kind")
      one_of(val, "runner.kind", oracle::kind_names(), decl.kind);
    else if (k.value == "params")
      params = &val;
    else
      unknown(k, "runner", kRunnerFields);
  }
  if (!v.find("kind")) {
    error("schema.missing-field", v.pos, "runner: missing 'kind'",
          "e.g. kind: " + oracle::kind_names().front());
  }
  const oracle::KindInfo* kind = oracle::find_kind(decl.kind);
  if (params != nullptr && !params->is_null()) {
    if (!params->is_map()) {
      error("schema.type", params->pos, "runner.params: expected a mapping");
    } else if (kind != nullptr) {
      for (const auto& [k, val] : params->entries) {
        const oracle::ParamInfo* p = oracle::find_param(*kind, k.value);
        if (p == nullptr) {
          unknown(k, "runner.params (" + decl.kind + ")", oracle::param_names(*kind));
          continue;
        }
        const std::string field = "runner.params." + k.value;
        std::string value;
        if (!scalar(val, field, value)) continue;
        if (std::string problem = oracle::check_value(*p, value); !problem.empty()) {
          const bool listed =
              p->type == oracle::ParamType::choice || p->type == oracle::ParamType::flag;
          error(listed ? "schema.enum" : "schema.type", val.pos, field + ": " + problem);
          continue;
        }
        decl.params.emplace_back(k.value, value);
      }
    }
  }
  r_.runner = std::move(decl);
}

void Reader::probe(const Node& v) {
  if (!list(v, "probe")) return;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const Node& item = v.items[i];
    const std::string field = at("probe", i);
    if (!item.is_map()) {
      error("schema.type", item.pos,
            field + ": expected a mapping such as {path: /version, version: version}");
      continue;
    }
    ProbeRoute route;
    route.pos = item.pos;
    for (const auto& [k, val] : item.entries) {
      const std::string f = field + "." + k.value;
      if (k.value == "path") {
        if (scalar(val, f, route.path) &&
            (route.path.empty() || route.path.front() != '/' ||
             route.path.find_first_of(" ?#\t") != std::string::npos)) {
          error("schema.type", val.pos, f + ": expected a path such as /version",
                "the path is relative to the server's root URL");
        }
      } else if (k.value == "version") {
        if (scalar(val, f, route.version) && text::trim(route.version).empty()) {
          error("schema.empty-value", val.pos, f + ": empty field name");
        }
      } else if (k.value == "expect") {
        config(val, f, route.expect);
      } else {
        unknown(k, field, kProbeFields);
      }
    }
    if (!item.find("path")) error("schema.missing-field", item.pos, field + ": missing 'path'");
    if (route.version.empty() && route.expect.empty()) {
      error("schema.missing-field", item.pos, field + ": needs 'version' or 'expect'",
            "a route that merely answers does not tell engines apart");
    }
    r_.probe.push_back(std::move(route));
  }
}

void Reader::failures(const Node& v) {
  if (!list(v, "failures")) return;
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const Node& item = v.items[i];
    const std::string field = at("failures", i);
    if (!item.is_map()) {
      error("schema.type", item.pos,
            field + ": expected a mapping such as {prompt: 3, position: 17}");
      continue;
    }
    Failure f;
    f.pos = item.pos;
    for (const auto& [k, val] : item.entries) {
      const std::string name = field + "." + k.value;
      if (k.value == "prompt")
        count(val, name, f.prompt);
      else if (k.value == "position")
        count(val, name, f.position);
      else if (k.value == "trial")
        count(val, name, f.trial);
      else if (k.value == "run")
        count(val, name, f.run);
      else if (k.value == "compared")
        one_of(val, name, kCompared, f.compared);
      else if (k.value == "expected")
        scalar(val, name, f.expected);
      else if (k.value == "got")
        scalar(val, name, f.got);
      else
        unknown(k, field, kFailureFields);
    }
    for (const char* req : {"prompt", "position"}) {
      if (!item.find(req))
        error("schema.missing-field", item.pos, field + ": missing '" + req + "'");
    }
    r_.failures.push_back(std::move(f));
  }
}

}  // namespace kb::schema
