#pragma once

// `kb check` answers as JSON and SARIF 2.1.0, and deployments read from request bodies;
// shared by the CLI and POST /api/v1/check.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "kb/check.h"
#include "kb/diagnostic.h"
#include "kb/triage.h"

namespace kb::json {

/// {"findings": [{"id","title","severity","status","evidence","why","possible","line",
///  "locations","workaround","fixes","tags","url","api_url"}], "ignored": [... plus
///  "reason","expires"], "diagnostics": [...], "deployment": {...},
///  "counts": {"blocker","major","minor","info","ignored"}}. With `base_url`, each finding
///  carries its page (`url`) and API (`api_url`) addresses.
nlohmann::json findings_json(const CheckReport& report, const std::string& base_url = "");

/// The report as a SARIF 2.1.0 log: one rule per gotcha found (its symptom, workaround as
/// help, tags, and with `base_url` a helpUri), one result per finding with stable
/// partial fingerprints and regions (ignored ones carry a suppression), one run per
/// deployment (`automationDetails.id`), diagnostics as tool execution notifications.
nlohmann::json sarif_json(const CheckReport& report, const std::string& tool_version = "0.1.0",
                          const std::string& base_url = "");

/// What kb read of a deployment, per service, with where every fact came from, how it was
/// normalised, and what it could not read: {"deployment": {...}, "diagnostics": [...]}.
nlohmann::json deployment_json(const CheckReport& report);

/// `kb check --explain`: {"id","title","result","services":[{"service","role","clauses"}]}
/// where a clause is {"text","truth","facts","children"}.
nlohmann::json explanation_json(const Explanation& e);

/// `kb triage` and POST /api/v1/triage: {"matches": [{"id","title","severity","status",
///  "workaround","signatures":[{"signature","engine"}],"count","lines":[{"line","text"}],
///  "url","api_url"}], "lines", "bytes", "long_lines", "signatures"}.
nlohmann::json triage_json(const TriageReport& report, const std::string& base_url = "");

/// A gotcha's page and API addresses under `base_url` (no trailing slash needed).
std::string gotcha_url(const std::string& base_url, std::string_view id, bool api);

/// Reads a deployment from a request body (JSON; YAML is accepted too). Problems become
/// diagnostics on `file`; errors among them mean the body is unusable (a 400).
Deployment deployment_from_body(std::string_view body, std::vector<Diagnostic>& diags,
                                const std::string& file = "request");

/// Reads a deployment from an already-parsed JSON value, e.g. one item of a batch.
Deployment deployment_from_json(const nlohmann::json& value, std::vector<Diagnostic>& diags,
                                const std::string& file = "request");

}  // namespace kb::json
