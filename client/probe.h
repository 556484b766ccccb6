#pragma once

// What a live server says it is: which engine and version (found through the routes the
// engines' `probe:` records name; no engine is known to this code), which models it
// serves, and the settings it reports, each with where it came from.

#include <string>
#include <vector>

#include "http.h"
#include "kb/model.h"

namespace kb {
class Corpus;
}

namespace kb::client {

/// The probe routes of one engine record.
struct EngineProbe {
  std::string engine;  ///< bare engine slug, "vllm"
  std::vector<ProbeRoute> routes;
};

/// The probe routes of every engine record of `corpus` that has some, by engine id.
std::vector<EngineProbe> probe_specs(const Corpus& corpus);

/// An engine the server answered as.
struct ProbedEngine {
  std::string engine;   ///< bare engine slug
  std::string version;  ///< empty when the route gives none kb can read
  std::string source;   ///< "GET /version: version"
};

/// A setting the server reports.
struct ProbedSetting {
  std::string key;
  std::string value;   ///< scalars as text: `true`, `4096`, `auto`
  std::string source;  ///< "GET /v1/models: data[0].max_model_len"
};

/// Everything the probe learned, and what it could not.
struct EndpointProbe {
  std::vector<std::string> models;  ///< ids from GET /v1/models
  std::vector<ProbedEngine> engines;
  std::vector<ProbedSetting> settings;
  std::vector<std::string> problems;  ///< routes that failed, versions kb cannot read
  bool reachable = false;             ///< GET /v1/models got an HTTP answer, whatever its status
  /// Set when an answer went past a budget (deadline, size, depth; see http.h): why, naming
  /// the URL and the limit. The probe asks nothing more of that server, and what it
  /// learned is incomplete: callers fail closed.
  std::string refused;
};

/// Asks the server each route of `specs` (each path once), GET /v1/models and GET /metrics
/// (the labels of `*_info` metrics are settings); stops at the first answer refused.
EndpointProbe probe(Http& http, const std::vector<EngineProbe>& specs);

/// What the probe of the server at `url` learned, as the endpoint document `kb check`
/// reads (kb/src/deploy/read_endpoint.cpp): JSON with one fact per line,
/// `{"kb_endpoint": URL, "role": R, "models": [...], "engines": [{engine, version, source}],
/// "settings": [{key, value, source}], "problems": [...]}`.
std::string endpoint_document(const EndpointProbe& p, const std::string& url,
                              const std::string& role);

}  // namespace kb::client
