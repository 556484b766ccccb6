#pragma once

// What POST /api/v1/check and /check/batch share (check_run.cpp): their query, why a
// deployment cannot be checked, the diagnostics cap, and running one deployment through
// the gate that fails closed.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check_one.h"
#include "http_status.h"
#include "kb/check.h"
#include "kb/model.h"
#include "routes.h"

namespace kb::http {

/// Diagnostics as the API lists them.
nlohmann::json diagnostics_json(const std::vector<Diagnostic>& diags);

/// Why a deployment cannot be checked, as the client's problem: text that does not parse
/// is a bad request (`malformed` says why, in the text's language), a well-formed document
/// that is not a deployment is unprocessable.
std::optional<ApiError> unusable(const std::vector<Diagnostic>& diags,
                                 const std::function<std::string(const Diagnostic&)>& malformed);

/// The options of /check and /check/batch; `kind` and `ignore` are /check's alone.
CheckQuery read_check_query(const httplib::Request& req);

/// Keeps the first `max` diagnostics, errors first (they decide the answer), and counts the
/// rest in one note: a deployment of 10,000 misspelt names answers a bounded document.
void cap_diagnostics(std::vector<Diagnostic>& diags, std::size_t max);

/// The engines, settings and services a deployment asks the check to resolve.
std::size_t facts(const Deployment& d);

/// What tells a check to stop: its client left (Ctx::gone), or
/// ServeConfig::check_time_limit passed since this call.
std::function<bool()> stop_check(const Ctx& c);

/// Throws 503 `limits.check-time` when `stop` says to stop: what was read or found is
/// incomplete, and a partial answer would say "no finding" for what was never looked at.
void throw_if_stopped(const Ctx& c, const std::function<bool()>& stop);

/// Runs one parsed deployment; `diags` holds what parsing it said (warnings only). The gate
/// fails closed: an unknown engine or setting, a value that does not normalise, or a
/// knowledge base that did not load whole is an error, answered 422 (in a batch: that
/// item's error), never "0 findings".
nlohmann::json run_check(const Ctx& c, const Deployment& d, std::vector<Diagnostic> diags,
                         const CheckQuery& p, std::optional<ApiError>& failure,
                         const IgnoreList* ignores = nullptr,
                         const std::function<bool()>& stop = {});

}  // namespace kb::http
