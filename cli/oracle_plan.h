#pragma once

// Everything `kb oracle run` settles before it sends a single generation request: the
// oracles and their runners, the prompts, the servers (probed) and their models, and
// the result's subject. Any problem is bad usage (Error{invalid_argument}), found early.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http.h"
#include "kb/corpus.h"
#include "kb/oracle.h"
#include "probe.h"

namespace kb::cli {

/// The flags of `kb oracle run`.
struct OracleConfig {
  std::string oracle;
  std::string for_gotcha;
  std::string subject;
  std::string baseline;
  std::string model;
  std::string baseline_model;
  std::string prompts;
  int max_tokens = 0;  ///< 0: the runner's
  int trials = 0;      ///< 0: the runner's
  int concurrency = 1;
  double timeout = 60;
  std::vector<std::string> headers;
  std::string api_key;
  std::string out;
  std::vector<std::string> evidence_for;
  std::vector<std::string> config;
  std::vector<std::string> engines;
  std::vector<std::string> params;
  std::string id;
  std::string date;
  std::string format = "yaml";
  std::string records = "records";
};

/// One server under test or as reference: where, what it says it is, which model.
struct Server {
  client::Endpoint endpoint;
  client::EndpointProbe probe;
  std::string model;
};

/// A run, ready to start.
struct OraclePlan {
  std::shared_ptr<const Corpus> corpus;
  std::vector<std::pair<const Record*, oracle::RunnerSpec>> oracles;
  std::string gotcha;  ///< with --for: the gotcha's id
  bool needs_baseline = false;
  std::vector<oracle::Prompt> prompts;
  client::ClientOptions options;
  Server subject;
  Server baseline;
  oracle::ResultContext context;  ///< the same for every oracle but its id and title
  std::string out_id;             ///< the id --out FILE decides, when it does
};

/// Checks the flags, loads the records and prompts, probes the servers.
OraclePlan make_plan(const OracleConfig& cfg);

/// The part of an id after the namespace: "results/x" -> "x".
std::string slug(const std::string& id);

}  // namespace kb::cli
