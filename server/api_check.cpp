#include <algorithm>
#include <atomic>
#include <functional>

#include "body_syntax.h"
#include "check_json.h"
#include "check_one.h"
#include "check_run.h"
#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
#include "json.h"
#include "kb/check.h"
#include "kb/diagnostic_codes.h"

namespace kb::http {

using nlohmann::json;

namespace {

// Holds one of the server's batch slots, or throws 503 when all are taken.
class BatchSlot {
 public:
  explicit BatchSlot(std::size_t max) {
    if (running().fetch_add(1) >= max) {
      running().fetch_sub(1);
      throw ApiError(Problem::overloaded, "batch-busy",
                     "other batches are being checked; retry shortly (Retry-After)");
    }
  }
  ~BatchSlot() { running().fetch_sub(1); }
  BatchSlot(const BatchSlot&) = delete;
  BatchSlot& operator=(const BatchSlot&) = delete;

 private:
  static std::atomic<std::size_t>& running() {
    static std::atomic<std::size_t> n{0};
    return n;
  }
};

std::string join_kinds() {
  std::string out;
  for (const auto& k : input_kinds()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

// What POST /api/v1/check was sent: a deployment, or an artifact's text, and the gotchas
// the caller ignores.
struct CheckRequest {
  std::optional<json> deployment;  ///< the hand-written format, already parsed
  std::string text;                ///< an artifact's text, read by kind
  std::string kind;                ///< empty: by content
  bool wrapped = false;            ///< `text` is the wrapper's "deployment" string
  IgnoreList ignores;
};

IgnoreEntry ignore_entry(const json& item, std::size_t i) {
  IgnoreEntry e;
  e.reason = "listed in the request";
  if (item.is_string()) {
    e.id = item.get<std::string>();
  } else if (item.is_object() && item.contains("id") && item["id"].is_string()) {
    e.id = item["id"].get<std::string>();
    if (item.contains("reason") && item["reason"].is_string())
      e.reason = item["reason"].get<std::string>();
    if (item.contains("expires") && item["expires"].is_string())
      e.expires = item["expires"].get<std::string>();
  } else {
    throw ApiError(Problem::unprocessable, problem_code(Problem::unprocessable),
                   "ignore[" + std::to_string(i) +
                       "]: expected a gotcha id or {\"id\", \"reason\", \"expires\"}");
  }
  if (!e.expires.empty() &&
      (e.expires.size() != 10 || e.expires[4] != '-' || e.expires[7] != '-')) {
    throw ApiError(Problem::unprocessable, problem_code(Problem::unprocessable),
                   "ignore[" + std::to_string(i) + "].expires: write YYYY-MM-DD");
  }
  return e;
}

// The body is one of: the deployment format (JSON or YAML); an artifact's text (a
// manifest, compose file, script, package list, image reference), chosen by `kind` (the
// API's `?kind=` or a shell Content-Type), or its content; or {"deployment": {...} |
// "TEXT", "kind": "...", "ignore": [ID | {"id","reason","expires"}, ...]}. `ignore`
// (the API's `?ignore=ID,ID`) ignores gotchas too.
CheckRequest read_request(std::string_view text, const CheckQuery& q) {
  CheckRequest r;
  r.ignores.file = "request";
  r.kind = q.kind;
  if (!r.kind.empty() &&
      std::find(input_kinds().begin(), input_kinds().end(), r.kind) == input_kinds().end()) {
    throw ApiError(Problem::bad_request, problem_code(Problem::bad_request),
                   "kind must be one of " + join_kinds());
  }
  const std::string& ignore = q.ignore;
  for (std::size_t at = 0; at < ignore.size();) {
    std::size_t comma = ignore.find(',', at);
    std::string id = ignore.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!id.empty()) r.ignores.entries.push_back({id, "listed in ?ignore=", "", {}});
    at = comma == std::string::npos ? ignore.size() : comma + 1;
  }
  json body = json::parse(text, nullptr, false);
  // Sent as JSON, it must be JSON: the YAML reader behind the deployment format would
  // take `{"engines": [...],}` as written and answer for what the client did not mean.
  if (body.is_discarded() && q.media_type == "application/json" &&
      body_syntax(q.media_type, r.kind, text) == BodySyntax::json) {
    if (auto message = json_syntax_message("the body", text))
      throw ApiError(Problem::bad_request, "malformed-body", *message);
  }
  const bool wrapper = body.is_object() &&
                       (body.contains("deployment") || body.contains("ignore")) &&
                       !body.contains("engines") && !body.contains("services");
  if (!wrapper) {
    // The deployment format keeps its own reading (JSON numbers, YAML fallback).
    const bool deployment =
        r.kind.empty() ? body.is_object() && !body.contains("apiVersion") : r.kind == "deployment";
    if (deployment) r.deployment = json();
    r.text = text;
    return r;
  }
  if (body.contains("kind")) {
    if (!body["kind"].is_string()) {
      throw ApiError(Problem::unprocessable, problem_code(Problem::unprocessable),
                     "kind: expected a string");
    }
    r.kind = body["kind"].get<std::string>();
  }
  if (body.contains("ignore")) {
    const json& list = body["ignore"];
    if (!list.is_array()) {
      throw ApiError(Problem::unprocessable, problem_code(Problem::unprocessable),
                     "ignore: expected a list");
    }
    for (std::size_t i = 0; i < list.size(); ++i)
      r.ignores.entries.push_back(ignore_entry(list[i], i));
  }
  const json dep = body.contains("deployment") ? body["deployment"] : json();
  if (dep.is_string()) {
    r.text = dep.get<std::string>();
    r.wrapped = true;
  } else if (dep.is_object()) {
    r.deployment = dep;
  } else {
    throw ApiError(
        Problem::unprocessable, problem_code(Problem::unprocessable),
        "deployment: expected the deployment (an object) or an artifact's text (a string)");
  }
  return r;
}

}  // namespace

std::size_t check_fact_budget(const ServeConfig& config, std::size_t body_bytes) {
  return std::min(config.max_batch_facts, 1000 + body_bytes / 8);
}

std::size_t check_answer_budget(const ServeConfig& config, std::size_t body_bytes) {
  return std::min(config.max_batch_response_bytes, (std::size_t{1} << 20) + body_bytes * 16);
}

json check_one(const Ctx& c, std::string_view body, const CheckQuery& q, std::string* text) {
  check_body_text(body, kMaxDeploymentBytes);
  std::vector<Diagnostic> diags;
  CheckRequest r = read_request(body, q);
  const std::function<bool()> stop = stop_check(c);
  Deployment d;
  if (r.deployment && r.deployment->is_object()) {
    d = kb::json::deployment_from_json(*r.deployment, diags);
  } else if (r.deployment) {
    d = kb::json::deployment_from_body(r.text, diags);
  } else {
    d = c.snap.checks().read({{"request", r.text}}, {r.kind, q.allow_unknown, stop}, diags);
    throw_if_stopped(c, stop);
  }
  const std::size_t fact_budget = check_fact_budget(c.svc.config, body.size());
  if (facts(d) > fact_budget) {
    throw ApiError(Problem::payload_too_large, diag_code("limits.check-facts"),
                   "the deployment names more than " + std::to_string(fact_budget) +
                       " engines, settings and services (1,000 and one per 8 bytes of the "
                       "body, at most " +
                       std::to_string(c.svc.config.max_batch_facts) + "); check it in parts");
  }
  const auto malformed = [&](const Diagnostic& first) {
    if (r.deployment && r.deployment->is_object()) {
      return syntax_message("the deployment", BodySyntax::other, "", first);
    }
    if (r.wrapped) {
      return syntax_message("the deployment text", body_syntax("", r.kind, r.text), r.text, first);
    }
    return syntax_message("the body", body_syntax(q.media_type, r.kind, r.text), r.text, first);
  };
  if (auto err = unusable(diags, malformed)) throw *err;
  std::optional<ApiError> failure;
  json out = run_check(c, d, std::move(diags), q, failure, &r.ignores, stop);
  const std::size_t answer_budget = check_answer_budget(c.svc.config, body.size());
  const auto over_budget = [&] {
    return ApiError(Problem::payload_too_large, diag_code("limits.check-answer"),
                    "the answer would be larger than " + std::to_string(answer_budget) +
                        " bytes (1 MiB and 16 per byte of the body, at most " +
                        std::to_string(c.svc.config.max_batch_response_bytes) +
                        "); check the deployment in parts");
  };
  if (failure) {
    if (dump(failure->details()).size() > answer_budget) throw over_budget();
    throw *failure;
  }
  out["snapshot"] = c.snap.etag();
  std::string answer = json_text(out);
  if (answer.size() > answer_budget) throw over_budget();
  if (text) *text = std::move(answer);
  return out;
}

void check(const Ctx& c) {
  check_media_type(c.req, true);
  CheckQuery q = read_check_query(c.req);
  q.kind = param(c.req, "kind");
  q.media_type = content_type(c.req);
  if (q.kind.empty() && shell_type(content_type(c.req))) q.kind = "shell";
  q.ignore = param(c.req, "ignore");
  std::string text;
  check_one(c, c.req.body, q, &text);
  send_body(c.res, std::move(text), "application/json");
}

void check_batch(const Ctx& c) {
  check_body(c.req, c.svc.config.max_body_bytes);
  json body = json::parse(c.req.body, nullptr, false);
  if (body.is_discarded()) {
    throw ApiError(Problem::bad_request, "malformed-body", "the body is not valid JSON");
  }
  const json* list = body.is_array() ? &body : nullptr;
  if (body.is_object() && body.contains("deployments") && body["deployments"].is_array())
    list = &body["deployments"];
  if (!list) {
    throw ApiError(Problem::unprocessable, problem_code(Problem::unprocessable),
                   "expected {\"deployments\": [deployment, ...]} or a JSON array of deployments");
  }
  if (list->size() > c.svc.config.max_batch) {
    throw ApiError(Problem::payload_too_large, problem_code(Problem::payload_too_large),
                   "at most " + std::to_string(c.svc.config.max_batch) + " deployments per batch");
  }
  const CheckQuery params = read_check_query(c.req);
  BatchSlot slot(c.svc.config.max_concurrent_batches);
  // Parse every deployment first: the work the batch asks for is known before any runs.
  std::vector<Deployment> parsed(list->size());
  std::vector<std::vector<Diagnostic>> parse_diags(list->size());
  std::size_t total = 0;
  for (std::size_t i = 0; i < list->size(); ++i) {
    parsed[i] = kb::json::deployment_from_json((*list)[i], parse_diags[i],
                                               "deployments[" + std::to_string(i) + "]");
    total += facts(parsed[i]);
    if (total > c.svc.config.max_batch_facts) {
      throw ApiError(Problem::payload_too_large, problem_code(Problem::payload_too_large),
                     "the batch names more than " + std::to_string(c.svc.config.max_batch_facts) +
                         " engines, settings and services together; split it");
    }
  }
  // Each answer is serialised once, here: its size counts against the budget, and the
  // text goes into the response as it is (the whole answer was serialised again).
  std::string results = "[";
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < list->size(); ++i) {
    std::vector<Diagnostic>& diags = parse_diags[i];
    cap_diagnostics(diags, c.svc.config.max_check_diagnostics);
    json item;
    if (bytes > c.svc.config.max_batch_response_bytes) {
      item = {{"error",
               {{"code", "batch-budget-exceeded"},
                {"message", "the answer reached " +
                                std::to_string(c.svc.config.max_batch_response_bytes) +
                                " bytes before this deployment; send it in another batch"}}}};
    } else if (auto err = unusable(diags, [](const Diagnostic& first) {
                 return syntax_message("the deployment", BodySyntax::other, "", first);
               })) {
      item = {{"error",
               {{"code", err->code()},
                {"message", err->what()},
                {"diagnostics", diagnostics_json(diags)}}}};
    } else {
      std::optional<ApiError> failure;
      item = run_check(c, parsed[i], std::move(diags), params, failure);
      if (failure) {
        item = {{"error",
                 {{"code", failure->code()},
                  {"message", failure->what()},
                  {"diagnostics", item["diagnostics"]}}}};
      }
    }
    item["index"] = i;
    const std::string text = dump(item);
    bytes += text.size();
    if (i > 0) results += ',';
    results += text;
  }
  results += ']';
  // The envelope as send_json() writes it (keys sorted), its results spliced in.
  const std::string envelope = dump(kb::json::versioned(
      {{"snapshot", c.snap.etag()}, {"count", list->size()}, {"results", json::array()}}));
  const std::string_view empty = "\"results\":[]";
  const std::size_t at = envelope.find(empty);
  if (at == std::string::npos) throw Error(Errc::internal, "batch envelope without its results");
  send_body(c.res,
            envelope.substr(0, at) + "\"results\":" + results + envelope.substr(at + empty.size()),
            "application/json");
}

}  // namespace kb::http
