#include "probe.h"

#include <nlohmann/json.hpp>

#include <map>

#include "answer_json.h"

#include "kb/corpus.h"
#include "kb/text.h"
#include "kb/version.h"

namespace kb::client {

using nlohmann::json;

namespace {

// Settings kept per probe: a server that reports thousands is summarised, not copied.
constexpr std::size_t kMaxSettings = 500;

// A JSON scalar as kb writes config values; nullopt for null, arrays and objects.
std::optional<std::string> scalar_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean() || v.is_number()) return v.dump();
  return std::nullopt;
}

// The value at a dotted path ("a.b.c") of an object, or nullptr.
const json* at_path(const json& root, const std::string& path) {
  const json* cur = &root;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) return cur;
    start = dot + 1;
  }
  return nullptr;
}

void add_settings(const json& obj, const std::string& prefix, const std::string& source,
                  std::vector<ProbedSetting>& out) {
  for (const auto& [k, v] : obj.items()) {
    if (out.size() >= kMaxSettings) return;
    if (auto text = scalar_text(v)) {
      out.push_back({prefix + k, *text, source + prefix + k});
    } else if (v.is_object() && prefix.empty()) {
      add_settings(v, k + ".", source, out);
    }
  }
}

// The labels of every Prometheus info metric (`NAME_info{k="v",...} 1`): by convention
// they carry configuration, e.g. an engine's cache config. Other metrics are ignored.
void add_info_labels(std::string_view text, std::vector<ProbedSetting>& out) {
  std::size_t i = 0;
  while (i < text.size() && out.size() < kMaxSettings) {
    std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(i, nl - i);
    i = nl + 1;
    const std::size_t brace = line.find('{');
    if (line.empty() || line[0] == '#' || brace == std::string_view::npos) continue;
    const std::string_view name = line.substr(0, brace);
    if (!name.ends_with("_info")) continue;
    std::size_t j = brace + 1;
    while (j < line.size() && line[j] != '}') {
      const std::size_t eq = line.find('=', j);
      if (eq == std::string_view::npos || eq + 1 >= line.size() || line[eq + 1] != '"') break;
      std::string key(line.substr(j, eq - j));
      std::string value;
      std::size_t k = eq + 2;
      for (; k < line.size() && line[k] != '"'; ++k) {
        if (line[k] == '\\' && k + 1 < line.size()) ++k;
        value += line[k];
      }
      out.push_back({key, value, "GET /metrics: " + std::string(name) + "{" + key + "}"});
      j = k + 1;
      if (j < line.size() && line[j] == ',') ++j;
    }
  }
}

struct Answer {
  bool ok = false;
  json body;
  std::string problem;
};

}  // namespace

std::vector<EngineProbe> probe_specs(const Corpus& corpus) {
  std::vector<EngineProbe> out;
  for (const auto& r : corpus.records()) {
    if (r->kind != Kind::engine || r->engine->probe.empty()) continue;
    out.push_back({std::string(text::id_slug(r->id)), r->engine->probe.to_vector()});
  }
  return out;
}

EndpointProbe probe(Http& http, const std::vector<EngineProbe>& specs) {
  EndpointProbe out;
  // An answer past a budget ends the probe: a server that trickles or floods one route
  // would do the same to the next, and each costs the whole deadline.
  auto refused = [&](const HttpResult& res) {
    if (res.refused) out.refused = res.error;
    return res.refused;
  };
  auto parse = [&](const HttpResult& res) {
    return parse_answer_json(res.body, res.url, &out.refused);
  };
  HttpResult models = http.get("/v1/models");
  out.reachable = models.error.empty();
  if (refused(models)) return out;
  json list = models.status == 200 ? parse(models) : json();
  if (!out.refused.empty()) return out;
  if (list.is_object() && list.contains("data") && list["data"].is_array()) {
    for (const auto& m : list["data"]) {
      if (m.is_object() && m.contains("id") && m["id"].is_string()) {
        out.models.push_back(m["id"].get<std::string>());
      }
    }
    if (!list["data"].empty() && list["data"][0].is_object()) {
      json first = list["data"][0];
      for (const char* skip : {"id", "object", "created", "permission", "root", "parent"}) {
        first.erase(skip);
      }
      add_settings(first, "", "GET /v1/models: data[0].", out.settings);
    }
  } else {
    out.problems.push_back("GET /v1/models: " + (!models.error.empty() ? models.error
                                                 : models.status == 200
                                                     ? std::string("not a model list")
                                                     : "HTTP " + std::to_string(models.status)));
  }

  std::map<std::string, Answer> answers;  // each path asked once
  for (const auto& spec : specs) {
    for (const auto& route : spec.routes) {
      auto [it, fresh] = answers.try_emplace(route.path);
      Answer& a = it->second;
      if (fresh) {
        HttpResult res = http.get(route.path);
        if (refused(res)) return out;
        if (res.status == 200) a.body = parse(res);
        if (!out.refused.empty()) return out;
        a.ok = res.status == 200 && a.body.is_object();
      }
      if (!a.ok) continue;
      bool matches = true;
      for (const auto& [key, want] : route.expect) {
        const json* v = at_path(a.body, key);
        auto text = v ? scalar_text(*v) : std::nullopt;
        if (!text || *text != want) matches = false;
      }
      std::string version;
      if (!route.version.empty()) {
        const json* v = at_path(a.body, route.version);
        if (v == nullptr || !v->is_string())
          matches = false;
        else
          version = v->get<std::string>();
      }
      if (!matches) continue;
      const std::string source =
          "GET " + route.path + (route.version.empty() ? "" : ": " + route.version);
      if (!version.empty()) {
        if (auto parsed = Version::parse_or_error(version); !parsed.value) {
          out.problems.push_back(source + ": '" + version + "' is not a version kb reads (" +
                                 parsed.error.message + ")");
          version.clear();
        }
      }
      out.engines.push_back({spec.engine, version, source});
      add_settings(a.body, "", "GET " + route.path + ": ", out.settings);
      break;
    }
  }
  HttpResult metrics = http.get("/metrics");
  if (refused(metrics)) return out;
  if (metrics.status == 200) add_info_labels(metrics.body, out.settings);
  return out;
}

std::string endpoint_document(const EndpointProbe& p, const std::string& url,
                              const std::string& role) {
  // One fact per line, so a fact's line in this text is its provenance in kb check.
  std::string out = "{\"kb_endpoint\": " + json(url).dump();
  if (!role.empty()) out += ",\n \"role\": " + json(role).dump();
  out += ",\n \"models\": " + json(p.models).dump();
  auto list = [&](const char* name, auto&& each, std::size_t n) {
    out += std::string(",\n \"") + name + "\": [";
    for (std::size_t i = 0; i < n; ++i) out += std::string(i ? "," : "") + "\n  " + each(i);
    out += n ? "\n ]" : "]";
  };
  list(
      "engines",
      [&](std::size_t i) {
        const auto& e = p.engines[i];
        return json{{"engine", e.engine}, {"version", e.version}, {"source", e.source}}.dump();
      },
      p.engines.size());
  list(
      "settings",
      [&](std::size_t i) {
        const auto& s = p.settings[i];
        return json{{"key", s.key}, {"value", s.value}, {"source", s.source}}.dump();
      },
      p.settings.size());
  list(
      "problems", [&](std::size_t i) { return json(p.problems[i]).dump(); }, p.problems.size());
  return out + "}\n";
}

}  // namespace kb::client
