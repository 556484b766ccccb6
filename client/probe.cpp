#include "probe.h"

#include <nlohmann/json.hpp>

#include <map>

#include "kb/corpus.h"
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

struct Answer {
  bool ok = false;
  json body;
  std::string problem;
};

}  // namespace

std::vector<EngineProbe> probe_specs(const Corpus& corpus) {
  std::vector<EngineProbe> out;
  for (const auto& r : corpus.records()) {
    if (r->kind != Kind::engine || r->probe.empty()) continue;
    out.push_back({r->id.substr(r->id.find('/') + 1), r->probe});
  }
  return out;
}

EndpointProbe probe(Http& http, const std::vector<EngineProbe>& specs) {
  EndpointProbe out;
  HttpResult models = http.get("/v1/models");
  out.reachable = models.error.empty();
  json list = models.status == 200 ? json::parse(models.body, nullptr, false) : json();
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
        if (res.status == 200) a.body = json::parse(res.body, nullptr, false);
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
      std::string why;
      if (!version.empty() && !Version::parse(version, &why)) {
        out.problems.push_back(source + ": '" + version + "' is not a version kb reads (" + why +
                               ")");
        version.clear();
      }
      out.engines.push_back({spec.engine, version, source});
      add_settings(a.body, "", "GET " + route.path + ": ", out.settings);
      break;
    }
  }
  return out;
}

}  // namespace kb::client
