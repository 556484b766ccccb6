// POST /api/v1/triage: the log in the body, the gotchas its lines name out.

#include "check_json.h"
#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
#include "kb/triage.h"

namespace kb::http {

using nlohmann::json;

void triage(const Ctx& c) {
  // A log is text: text/plain (or no type) is the log itself; JSON is {"log": "..."}.
  const std::string type = content_type(c.req);
  std::string_view log = c.req.body;
  json wrapped;
  if (type == "application/json") {
    wrapped = json::parse(c.req.body, nullptr, false);
    if (wrapped.is_discarded()) {
      throw ApiError(Problem::bad_request, "malformed-body", "the body is not valid JSON");
    }
    if (!wrapped.is_object() || !wrapped.contains("log") || !wrapped["log"].is_string()) {
      throw ApiError(Problem::unprocessable, "invalid-body",
                     "a JSON body is {\"log\": \"the log's text\"}; or send the log itself as "
                     "text/plain");
    }
    log = wrapped["log"].get_ref<const std::string&>();
  } else if (!type.empty() && !type.starts_with("text/")) {
    throw ApiError(Problem::unsupported_media_type, problem_code(Problem::unsupported_media_type),
                   "send the log as text/plain, or as JSON {\"log\": \"...\"}");
  }
  if (log.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw ApiError(Problem::bad_request, problem_code(Problem::bad_request),
                   "the body is empty: send the log's text");
  }
  Triage t(c.snap.corpus());
  t.feed(log);
  json out = kb::json::triage_json(t.finish());
  for (json& m : out["matches"]) m["api_url"] = api_url(m["id"].get<std::string>());
  out["snapshot"] = c.snap.etag();
  send_json(c.res, out);
}

}  // namespace kb::http
