// The page routes' handlers: every GET page from the renderer (with the per-snapshot
// cache), and the "Am I affected?" form, read here and checked by check_one().

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>

#include "check_one.h"
#include "http_request.h"
#include "http_status.h"
#include "kb/deploy.h"
#include "kb/deployment.h"
#include "kb/text.h"
#include "kb/triage.h"
#include "pages.h"
#include "routes.h"

namespace kb::pages {

namespace {

// Longer filter values cannot name anything; cut them before they reach search.
constexpr std::size_t kMaxParamBytes = 512;

std::string param(const httplib::Request& req, const char* name) {
  std::string v = req.get_param_value(name);
  if (v.size() > kMaxParamBytes) v.resize(kMaxParamBytes);
  return v;
}

void secure(httplib::Response& res) {
  res.set_header("Content-Security-Policy", std::string(kContentSecurityPolicy));
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("Referrer-Policy", "same-origin");
}

[[noreturn]] void bad_field(const std::string& message) {
  throw http::ApiError(http::Problem::bad_request, http::problem_code(http::Problem::bad_request),
                       message);
}

// An application/x-www-form-urlencoded body: name=value pairs, `+` a space, the first value
// of a name kept. Names the form does not have are ignored, as pages ignore parameters.
std::map<std::string, std::string> form_fields(const std::string& body) {
  std::map<std::string, std::string> out;
  for (std::size_t at = 0; at <= body.size();) {
    std::size_t amp = body.find('&', at);
    if (amp == std::string::npos) amp = body.size();
    const std::string_view pair(body.data() + at, amp - at);
    const std::size_t eq = pair.find('=');
    const std::string name = httplib::detail::decode_url(std::string(pair.substr(0, eq)), true);
    std::string value;
    if (eq != std::string_view::npos)
      value = httplib::detail::decode_url(std::string(pair.substr(eq + 1)), true);
    if (!name.empty()) out.emplace(name, std::move(value));
    at = amp + 1;
  }
  return out;
}

std::string field(const std::map<std::string, std::string>& fields, const char* name) {
  auto it = fields.find(name);
  return it == fields.end() ? std::string() : it->second;
}

// A checkbox sends its value when ticked and nothing when not.
bool checkbox(const std::map<std::string, std::string>& fields, const char* name) {
  const std::string v = field(fields, name);
  if (v.empty() || v == "false" || v == "0") return false;
  if (v == "true" || v == "on" || v == "1") return true;
  bad_field(std::string(name) + " must be true or false");
}

// A page's form arrives urlencoded, as the page sends it.
void require_form(const httplib::Request& req) {
  const std::string type = http::content_type(req);
  if (!type.empty() && type != "application/x-www-form-urlencoded") {
    throw http::ApiError(http::Problem::unsupported_media_type,
                         http::problem_code(http::Problem::unsupported_media_type),
                         "send the form as application/x-www-form-urlencoded, as this page does");
  }
}

void require_pages(const http::Ctx& c) {
  if (c.svc.renderer == nullptr) {
    throw http::ApiError(http::Problem::not_found, "not-found", "this server serves no pages");
  }
}

// A page answering a posted form, with the status of the problem that stopped it, if any.
void send_form_page(const http::Ctx& c, const std::optional<http::Problem>& problem,
                    std::string body) {
  secure(c.res);
  const std::string type = Page{}.content_type;
  if (problem)
    http::send_page(c.res, *problem, std::move(body), type);
  else
    http::send_body(c.res, std::move(body), type);
}

// Fills `form` field by field, so what was read is shown again when a field is refused.
void read_form(const httplib::Request& req, CheckForm& form) {
  require_form(req);
  const auto fields = form_fields(req.body);
  form.deployment = field(fields, "deployment");
  form.ignore = field(fields, "ignore");
  form.allow_unknown = checkbox(fields, "allow_unknown");
  form.allow_invalid_records = checkbox(fields, "allow_invalid_records");
  form.kind = field(fields, "kind");
  const auto& kinds = input_kinds();
  if (!form.kind.empty() && std::find(kinds.begin(), kinds.end(), form.kind) == kinds.end()) {
    std::string all;
    for (const auto& k : kinds) all += ", " + k;
    bad_field("kind must be empty (detect from content) or one of" + all.substr(1));
  }
  const std::string fail_on = field(fields, "fail_on");
  if (!fail_on.empty()) {
    form.fail_on = fail_on;
    if (!parse_gotcha_severity(fail_on))
      bad_field("fail_on must be one of blocker, major, minor, info");
  }
  if (text::trim(form.deployment).empty())
    bad_field("the form was sent without a deployment: paste one into the box and check again");
}

// The API's message, said of the pasted text rather than of a request body.
std::string page_message(const http::ApiError& e, std::size_t bytes) {
  if (e.problem() == http::Problem::payload_too_large) {
    return "a deployment is at most " + std::to_string(kMaxDeploymentBytes) +
           " bytes; this one is " + std::to_string(bytes) + " bytes";
  }
  // "the body is not valid YAML: ..." -> "the pasted text is not valid YAML: ...".
  static constexpr std::string_view kApi = "the body";
  std::string message = e.what();
  if (message.starts_with(kApi)) message = "the pasted text" + message.substr(kApi.size());
  return message;
}

}  // namespace

void check_page(const http::Ctx& c) {
  require_pages(c);
  CheckForm form;
  std::optional<CheckOutcome> outcome;
  std::optional<http::Problem> problem;
  nlohmann::json answer;
  if (c.req.method == "POST") {
    outcome.emplace();
    bool form_read = false;
    try {
      read_form(c.req, form);
      form_read = true;
      const http::CheckQuery q{form.kind, form.ignore, form.allow_unknown,
                               form.allow_invalid_records, parse_gotcha_severity(form.fail_on)};
      answer = http::check_one(c, form.deployment, q);
    } catch (const http::ApiError& e) {
      problem = e.problem();
      outcome->error_code = e.code();
      outcome->error_message = page_message(e, form.deployment.size());
      // Whatever stops the check once the form is read is the deployment's: fail closed.
      outcome->fail_closed = form_read;
      answer = e.details();
    }
    if (answer.is_object()) outcome->answer = &answer;
  }
  send_form_page(c, problem,
                 c.svc.renderer->check(make_view(c.snap), form, outcome ? &*outcome : nullptr));
}

namespace {

SearchParams search_params(const httplib::Request& req) {
  return {param(req, "q"), param(req, "engine"), param(req, "severity"), param(req, "status")};
}

// A page without parameters is a function of the snapshot and the path alone, unless
// its templates are read from --web-dir on every render (being edited).
bool reusable_page(const http::Ctx& c, const SearchParams& params) {
  return c.svc.responses && params.q.empty() && params.engine.empty() && params.severity.empty() &&
         params.status.empty() && c.svc.config.web_dir.empty();
}

// What a reusable page is kept under in the response cache.
std::string page_key(const http::Ctx& c) {
  return "page " + c.req.path;
}

// A kept page is its content type, a newline, its body.
std::string kept_page(const Page& made) {
  return made.content_type + '\n' + made.body;
}

Page from_kept(const std::string& kept) {
  const auto nl = kept.find('\n');
  Page page;
  page.content_type = kept.substr(0, nl);
  page.body = kept.substr(nl + 1);
  return page;
}

}  // namespace

bool peek(const http::Ctx& c) {
  if (c.svc.renderer == nullptr || !reusable_page(c, search_params(c.req))) return false;
  auto kept = c.svc.responses->peek(c.snap.generation(), page_key(c));
  if (!kept) return false;
  Page page = from_kept(*kept);
  secure(c.res);
  http::send_body(c.res, std::move(page.body), page.content_type);
  return true;
}

void handle(const http::Ctx& c) {
  if (c.svc.renderer == nullptr) {
    throw http::ApiError(http::Problem::not_found, "not-found", "this server serves no pages");
  }
  const SearchParams params = search_params(c.req);
  const bool reusable = reusable_page(c, params);
  std::optional<Page> made;
  auto render = [&] { made = c.svc.renderer->serve(make_view(c.snap), c.req.path, params); };
  Page page;
  if (reusable) {
    auto kept =
        c.svc.responses->get(c.snap.generation(), page_key(c), [&]() -> std::optional<std::string> {
          render();
          if (made->outcome != Outcome::ok) return std::nullopt;
          return kept_page(*made);
        });
    if (kept && !made) page = from_kept(*kept);
  } else {
    render();
  }
  if (made) page = std::move(*made);
  secure(c.res);
  switch (page.outcome) {
    case Outcome::ok:
      http::send_body(c.res, std::move(page.body), page.content_type);
      break;
    case Outcome::moved:
      http::send_moved(c.res, page.location);
      break;
    case Outcome::not_found:
      http::send_page(c.res, http::Problem::not_found, std::move(page.body), page.content_type);
      break;
  }
}

void search_log_page(const http::Ctx& c) {
  require_pages(c);
  PastedLog log;
  std::optional<TriageReport> report;
  std::optional<http::Problem> problem;
  try {
    require_form(c.req);
    log.text = field(form_fields(c.req.body), "log");
    if (text::trim(log.text).empty())
      bad_field("the form was sent without a log: paste its lines into the box and read again");
    // Read as POST /api/v1/triage reads a log: line by line, memory bounded by a line.
    Triage t(c.snap.corpus());
    t.feed(log.text);
    report = t.finish();
    log.report = &*report;
  } catch (const http::ApiError& e) {
    problem = e.problem();
    log.error = e.what();
  }
  send_form_page(c, problem, c.svc.renderer->search(make_view(c.snap), search_params(c.req), &log));
}

}  // namespace kb::pages
