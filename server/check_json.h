#pragma once

// `kb check` answers as JSON and SARIF 2.1.0, and deployments read from request bodies;
// shared by the CLI and POST /api/v1/check.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "kb/check.h"
#include "kb/diagnostic.h"

namespace kb::json {

/// {"findings": [{"id","title","severity","status","evidence","why","possible","line"}],
///  "ignored": [... plus "reason","expires"], "diagnostics": [...], "deployment": {...},
///  "counts": {"blocker","major","minor","info","ignored"}}.
nlohmann::json findings_json(const CheckReport& report);

/// The report as a SARIF 2.1.0 log: one rule per gotcha found, one result per finding
/// (ignored ones carry a suppression), diagnostics as tool execution notifications.
nlohmann::json sarif_json(const CheckReport& report, const std::string& tool_version = "0.1.0");

/// Reads a deployment from a request body (JSON; YAML is accepted too). Problems become
/// diagnostics on `file`; errors among them mean the body is unusable (a 400).
Deployment deployment_from_body(std::string_view body, std::vector<Diagnostic>& diags,
                                const std::string& file = "request");

/// Reads a deployment from an already-parsed JSON value, e.g. one item of a batch.
Deployment deployment_from_json(const nlohmann::json& value, std::vector<Diagnostic>& diags,
                                const std::string& file = "request");

}  // namespace kb::json
