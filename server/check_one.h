#pragma once

// The work of POST /api/v1/check, shared by the API (api_check.cpp) and the "Am I
// affected?" page (pages_check.cpp): one deployment's text and the options the API reads
// from its query in; the API's answer, or the ApiError it would send, out.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "kb/model.h"
#include "routes.h"

namespace kb::http {

/// What POST /api/v1/check reads besides its body: its query parameters and media type.
struct CheckQuery {
  std::string kind;    ///< one of input_kinds(); empty: chosen by content
  std::string ignore;  ///< gotcha ids whose findings are dropped, comma-separated
  bool allow_unknown = false;
  bool allow_invalid_records = false;
  std::optional<GotchaSeverity> fail_on;  ///< when set, the answer says whether it `fails`
  std::string media_type;  ///< the body's Content-Type, lower-case; empty: none (a form)
};

/// Checks the deployment `body` holds against the request's snapshot, reading `body` as
/// POST /api/v1/check reads its body (the deployment format, an artifact's text, or the
/// {"deployment", "kind", "ignore"} wrapper). Returns the API's 200 answer (with
/// "snapshot"). Throws the ApiError the API answers otherwise: 400 for an unknown kind,
/// a blank body or text that does not parse (`malformed-body`, its message saying why in
/// the text's language, JSON or YAML; details: {"diagnostics"}), 413 over
/// kMaxDeploymentBytes, 422 for a document that is not a deployment (details:
/// {"diagnostics"}) or one that cannot be checked whole (`check-incomplete`, details: the
/// whole answer, findings included).
/// Budgets, as the batch's: a deployment read from `body` names at most
/// check_fact_budget() engines, settings and services (413 `limits.check-facts`), its
/// answer is at most check_answer_budget() bytes (413 `limits.check-answer`), and it is
/// checked within ServeConfig::check_time_limit, or as long as its client stays (503
/// `limits.check-time`). With `text`, the 200 answer's text as send_json() writes it.
nlohmann::json check_one(const Ctx& c, std::string_view body, const CheckQuery& q,
                         std::string* text = nullptr);

/// Engines, settings and services a single check of `body_bytes` may ask for: 1,000 plus
/// one per 8 bytes, at most the batch's ServeConfig::max_batch_facts.
std::size_t check_fact_budget(const ServeConfig& config, std::size_t body_bytes);
/// Bytes of a single check's answer: 1 MiB plus 16 per byte of its body, at most the
/// batch's ServeConfig::max_batch_response_bytes.
std::size_t check_answer_budget(const ServeConfig& config, std::size_t body_bytes);

}  // namespace kb::http
