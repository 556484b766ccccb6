// What POST /api/v1/check and /check/batch share: their query, why a deployment cannot
// be checked, the diagnostics cap, and running one deployment through the gate.

#include "check_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "check_json.h"
#include "http_request.h"
#include "json.h"
#include "kb/diagnostic_codes.h"

namespace kb::http {

using nlohmann::json;

namespace {

bool flag_param(const httplib::Request& req, const char* name) {
  const std::string v = param(req, name);
  if (v.empty() || v == "false" || v == "0") return false;
  if (v == "true" || v == "1") return true;
  throw ApiError(Problem::bad_request, problem_code(Problem::bad_request),
                 std::string(name) + " must be true or false");
}

}  // namespace

std::function<bool()> stop_check(const Ctx& c) {
  const auto deadline = std::chrono::steady_clock::now() + c.svc.config.check_time_limit;
  return [gone = c.gone, deadline] {
    return (gone != nullptr && gone->load(std::memory_order_relaxed)) ||
           std::chrono::steady_clock::now() >= deadline;
  };
}

void throw_if_stopped(const Ctx& c, const std::function<bool()>& stop) {
  if (!stop || !stop()) return;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g",
                static_cast<double>(c.svc.config.check_time_limit.count()) / 1000.0);
  throw ApiError(Problem::unavailable, diag_code("limits.check-time"),
                 std::string("the check took more than ") + seconds +
                     " s, or its client left; send a smaller deployment");
}

json diagnostics_json(const std::vector<Diagnostic>& diags) {
  json list = json::array();
  for (const auto& d : diags) list.push_back(kb::json::diagnostic(d));
  return list;
}

std::optional<ApiError> unusable(const std::vector<Diagnostic>& diags,
                                 const std::function<std::string(const Diagnostic&)>& malformed) {
  if (count_severity(diags, Severity::error) == 0) return std::nullopt;
  const Diagnostic* syntax = nullptr;
  for (const auto& d : diags) {
    if (d.severity != Severity::error) continue;
    if (d.code == diag_code("limits.file-size")) {
      return ApiError(Problem::payload_too_large, problem_code(Problem::payload_too_large),
                      "a deployment is at most " + std::to_string(kMaxDeploymentBytes) + " bytes");
    }
    if (!syntax && (d.code.starts_with("yaml.") || d.code.starts_with("encoding.") ||
                    d.code.starts_with("limits."))) {
      syntax = &d;
    }
  }
  if (syntax) {
    return ApiError(Problem::bad_request, "malformed-body", malformed(*syntax),
                    json{{"diagnostics", diagnostics_json(diags)}});
  }
  const Diagnostic& first = *std::find_if(diags.begin(), diags.end(), [](const Diagnostic& d) {
    return d.severity == Severity::error;
  });
  return ApiError(Problem::unprocessable, problem_code(Problem::unprocessable),
                  "the body is not a deployment: " + first.message,
                  json{{"diagnostics", diagnostics_json(diags)}});
}

CheckQuery read_check_query(const httplib::Request& req) {
  CheckQuery q;
  q.allow_unknown = flag_param(req, "allow_unknown");
  q.allow_invalid_records = flag_param(req, "allow_invalid_records");
  const std::string fail_on = param(req, "fail_on");
  if (!fail_on.empty()) {
    q.fail_on = parse_gotcha_severity(fail_on);
    if (!q.fail_on) {
      throw ApiError(Problem::bad_request, problem_code(Problem::bad_request),
                     "fail_on must be one of blocker, major, minor, info");
    }
  }
  return q;
}

void cap_diagnostics(std::vector<Diagnostic>& diags, std::size_t max) {
  if (diags.size() <= max) return;
  std::stable_partition(diags.begin(), diags.end(),
                        [](const Diagnostic& d) { return d.severity == Severity::error; });
  const std::size_t dropped = diags.size() - max;
  diags.resize(max);
  diags.push_back({Severity::note, diag_code("check.diagnostics-truncated"), "", 0, 0,
                   std::to_string(dropped) + " more diagnostics are not listed",
                   "fix the ones listed, or run `kb check` locally for all of them", ""});
}

std::size_t facts(const Deployment& d) {
  std::size_t n = d.engines.size() + d.config.size() + d.services.size();
  for (const auto& s : d.services) n += s.engines.size() + s.config.size();
  return n;
}

json run_check(const Ctx& c, const Deployment& d, std::vector<Diagnostic> diags,
               const CheckQuery& p, std::optional<ApiError>& failure, const IgnoreList* ignores,
               const std::function<bool()>& stop) {
  if (std::size_t errors = count_severity(c.snap.corpus().diagnostics(), Severity::error)) {
    diags.push_back({p.allow_invalid_records ? Severity::warning : Severity::error,
                     diag_code("check.records-invalid"), "", 0, 0,
                     "the knowledge base has " + std::to_string(errors) +
                         " lint errors; gotchas in broken files are missing or stale",
                     "see /api/v1/diagnostics; allow_invalid_records=true checks against what "
                     "loaded",
                     ""});
  }
  if (c.snap.checks().size() == 0) {
    diags.push_back({Severity::error, diag_code("check.empty-knowledge-base"), "", 0, 0,
                     "the knowledge base holds no gotchas", "", ""});
  }
  CheckReport report = c.snap.checks().run(d, CheckOptions{p.allow_unknown, stop});
  throw_if_stopped(c, stop);
  if (ignores && !ignores->entries.empty()) c.snap.checks().apply_ignores(report, *ignores, "");
  diags.insert(diags.end(), report.diagnostics.begin(), report.diagnostics.end());
  report.diagnostics = std::move(diags);
  cap_diagnostics(report.diagnostics, c.svc.config.max_check_diagnostics);
  json out = kb::json::findings_json(report);
  if (p.fail_on) out["fails"] = fails(report, *p.fail_on);
  if (count_severity(report.diagnostics, Severity::error) > 0) {
    std::string first;
    for (const auto& diag : report.diagnostics) {
      if (diag.severity == Severity::error) {
        first = diag.message;
        break;
      }
    }
    failure.emplace(Problem::unprocessable, "check-incomplete",
                    "the deployment cannot be checked whole: " + first, out);
  }
  return out;
}

}  // namespace kb::http
