// The route table: every path the server answers, its method, its handler and the query
// parameters it takes. Matched in order against the percent-decoded path, whole. Slugs
// are `[^/]+` here and checked strictly by the handler, so an encoded `/` or `..` never
// matches a record route. The OpenAPI document (openapi.cpp) is generated from this table.

#include "routes.h"

#include <algorithm>
#include <charconv>

#include "http_api.h"
#include "http_request.h"
#include "kb/deploy.h"
#include "kb/deployment.h"
#include "kb/error.h"
#include "kb/snapshot.h"
#include "pages.h"
#include "tabular.h"

namespace kb::http {
namespace {

std::vector<std::string_view> views(const std::vector<std::string>& v) {
  return {v.begin(), v.end()};
}

// The names GET /api/v1/resolve?type= accepts: each kind's name and namespace.
const std::vector<std::string>& kind_words() {
  static const std::vector<std::string> words = [] {
    std::vector<std::string> out;
    for (Kind k : kAllKinds) out.emplace_back(kind_name(k));
    for (Kind k : kAllKinds) out.emplace_back(kind_namespace(k));
    return out;
  }();
  return words;
}

// A list route also answers with a format suffix, Datasette-style: /api/v1/gotchas.csv.
const std::string kSuffix = "(?:\\.(json|csv|ndjson))?";

std::vector<Param> with_format(std::vector<Param> params) {
  params.push_back({"format", ParamType::string,
                    "json (default), csv (RFC 4180, a header row) or ndjson (a JSON object a "
                    "line); the path's suffix says the same",
                    kFormats, "json"});
  return params;
}

const std::vector<std::string_view> kSeverities = {"blocker", "major", "minor", "info"};

Param page_token() {
  return {"page_token", ParamType::string,
          "the opaque `next_page_token` of the previous page; absent: the first page"};
}

std::vector<Param> gotcha_params() {
  return {
      {"engine", ParamType::list,
       "engine ids or any name resolving to one (comma-separated: any of them); a name that "
       "resolves to nothing is a 400 with a did-you-mean"},
      {"severity", ParamType::list, "severities (comma-separated: any of them)", kSeverities},
      {"status", ParamType::list,
       "statuses (comma-separated: any of them); naming `withdrawn` includes withdrawn gotchas",
       std::vector<std::string_view>(std::begin(kStatusNames), std::end(kStatusNames))},
      {"family", ParamType::list, "families (comma-separated: any of them)"},
      {"reproduced",
       ParamType::list,
       "evidence states (comma-separated: any of them)",
       {"reproduced", "not-reproduced", "no-evidence"}},
      {"q", ParamType::string, "full-text filter: only gotchas matching these words"},
      {"sort", ParamType::string, "the order of the items",
       std::vector<std::string_view>(std::begin(kGotchaSorts), std::end(kGotchaSorts)), "severity"},
      {"limit", ParamType::integer, "items per page (larger values are capped)", {}, "50", 500},
      page_token(),
      {"include_withdrawn", ParamType::boolean, "list withdrawn gotchas too", {}, "false"},
  };
}

std::vector<Param> check_route_params() {
  return {
      {"allow_unknown",
       ParamType::boolean,
       "report unknown engines, settings and values as warnings instead of failing (422)",
       {},
       "false"},
      {"allow_invalid_records",
       ParamType::boolean,
       "check against what loaded even when the knowledge base has lint errors",
       {},
       "false"},
      {"fail_on", ParamType::string, "adds `fails`: whether a finding is at or above this severity",
       kSeverities},
  };
}

std::vector<Param> check_one_params() {
  auto out = check_route_params();
  out.insert(
      out.begin(),
      {{"kind", ParamType::string,
        "how to read a text body; absent: guessed from the content (a shell Content-Type "
        "says `shell`)",
        views(input_kinds())},
       {"ignore", ParamType::list, "gotcha ids whose findings are dropped (comma-separated)"}});
  return out;
}

std::vector<Param> page_params() {
  return {{"q", ParamType::string, "search words (the search page)"},
          {"engine", ParamType::list, "engine filter (the search page)"},
          {"severity", ParamType::list, "severity filter (the search page)"},
          {"status", ParamType::list, "status filter (the search page)"}};
}

}  // namespace

const std::vector<Route>& route_table() {
  static const std::vector<Route> kRoutes = {
      {"GET",
       "/healthz",
       "/healthz",
       healthz,
       false,
       "liveness and the reload state",
       {},
       true,
       nullptr,
       kNoBodyBytes,
       true},
      {"GET",
       "/metrics",
       "/metrics",
       metrics,
       false,
       "Prometheus text",
       {},
       true,
       nullptr,
       kNoBodyBytes,
       true},
      {"GET", "/api/v1", "/api/v1", api_index, true, "the routes of this API"},
      {"GET", "/api/v1/openapi\\.json", "/api/v1/openapi.json", openapi, true,
       "the OpenAPI 3.1 document of this API"},
      {"GET", "/api/v1/gotchas" + kSuffix, "/api/v1/gotchas", list_gotchas, true,
       "a page of gotcha summaries with facet counts; CSV and NDJSON stream every match",
       with_format(gotcha_params())},
      {"GET", "/api/v1/(engines|oracles|results|settings|models)" + kSuffix, "/api/v1/{type}",
       list_records, true,
       "a page of the records of one type, by id; CSV and NDJSON stream every record",
       with_format({{"limit",
                     ParamType::integer,
                     "items per page (larger values are capped)",
                     {},
                     "100",
                     1000},
                    page_token()})},
      {"GET",
       "/api/v1/(gotchas|engines|oracles|results|settings|models)/([^/]+)",
       "/api/v1/{type}/{slug}",
       get_record,
       true,
       "one record, resolved, with what references it",
       {},
       true,
       peek_record},
      {"GET", "/api/v1/search" + kSuffix, "/api/v1/search", search, true,
       "ranked full-text hits with snippets",
       with_format({{"q", ParamType::string, "the text to search for", {}, {}, 0, true},
                    {"limit",
                     ParamType::integer,
                     "hits at most (larger values are capped)",
                     {},
                     "20",
                     100}}),
       true, nullptr, kNoBodyBytes, false, true},
      {"GET",
       "/api/v1/resolve",
       "/api/v1/resolve",
       resolve_name,
       true,
       "the resolver as a reconciliation service",
       {{"type",
         ParamType::string,
         "the namespace to resolve in",
         views(kind_words()),
         {},
         0,
         true},
        {"q", ParamType::string, "the name to resolve", {}, {}, 0, true}}},
      {"GET", "/api/v1/diagnostics", "/api/v1/diagnostics", diagnostics, true,
       "what `kb lint` says of the files now"},
      {"GET",
       "/api/v1/changes",
       "/api/v1/changes",
       changes,
       false,
       "records added, changed or deleted since a time",
       {{"since", ParamType::string,
         "unix milliseconds (the `cursor` of the previous answer), YYYY-MM-DD or "
         "YYYY-MM-DDTHH:MM:SS[.fff]Z; absent: every record"}}},
      {"GET", "/api/v1/export" + kSuffix, "/api/v1/export", export_all, true,
       "the whole knowledge base: one JSON document, or a record a CSV row or NDJSON line",
       with_format({})},
      {"GET", "/api/v1/schemas", "/api/v1/schemas", list_schemas, true,
       "the JSON Schemas of record files, one per namespace"},
      {"GET",
       "/api/v1/schemas/"
       "(gotchas|engines|oracles|results|settings|models|vocabulary)\\.schema\\.json",
       "/api/v1/schemas/{namespace}.schema.json", get_schema, true,
       "the JSON Schema of one namespace's record files, or `vocabulary`: the names of this "
       "knowledge base's records, which the others refer to"},
      {"POST", "/api/v1/check", "/api/v1/check", check, false, "which gotchas hit one deployment",
       check_one_params(), true, nullptr, kMaxDeploymentBytes},
      {"POST", "/api/v1/check/batch", "/api/v1/check/batch", check_batch, false,
       "which gotchas hit each of several deployments", check_route_params(), true, nullptr,
       kServerBodyLimit},
      {"POST",
       "/api/v1/triage",
       "/api/v1/triage",
       triage,
       false,
       "the gotchas a log names through their detection.signatures, with the matching lines",
       {},
       true,
       nullptr,
       kServerBodyLimit},
      // HTML pages (server/pages_http.cpp), last: the final row answers every other path
      // outside /api with the 404 page and its did-you-mean candidates. Not cacheable by
      // ETag: with --web-dir a page changes when its template does.
      {"GET", "/", "/", pages::handle, false, "the home page", page_params(), false, pages::peek},
      {"GET", "/(search|diagnostics|feed\\.xml)", "/{page}", pages::handle, false,
       "the search and diagnostics pages, the Atom feed", page_params(), false, pages::peek},
      // A log pasted into the search page, read as POST /api/v1/triage reads one.
      {"POST",
       "/search",
       "/search",
       pages::search_log_page,
       false,
       "a log pasted into the search page: the gotchas its lines name",
       {},
       false,
       nullptr,
       kServerBodyLimit},
      // "Am I affected?": the form, and a deployment posted from it, checked as POST
      // /api/v1/check checks it. Lenient like every page; the form's fields are checked.
      {"GET",
       "/check",
       "/check",
       pages::check_page,
       false,
       "the \"Am I affected?\" form",
       {},
       false},
      {"POST",
       "/check",
       "/check",
       pages::check_page,
       false,
       "a deployment from the \"Am I affected?\" form, checked",
       {},
       false,
       nullptr,
       kServerBodyLimit},
      {"GET",
       "/static/([^/]+)",
       "/static/{file}",
       pages::handle,
       false,
       "CSS and JavaScript",
       {},
       false,
       pages::peek},
      {"GET", "/(gotchas|engines|oracles|results|settings|models)/(.+)", "/{type}/{slug}",
       pages::handle, false, "a record's page (`.json`, `.yaml`: the record)", page_params(), false,
       pages::peek},
      {"GET", "/(?!api/|api$|healthz$|metrics$).*", "/{other}", pages::handle, false,
       "every other path: the 404 page", page_params(), false, pages::peek},
  };
  return kRoutes;
}

std::size_t Ctx::integer(std::string_view name) const {
  const Param* p = declared(route, name);
  if (!p || p->type != ParamType::integer)
    throw Error(Errc::internal, "the route declares no integer '" + std::string(name) + "'");
  std::size_t fallback = 0;
  std::from_chars(p->fallback.data(), p->fallback.data() + p->fallback.size(), fallback);
  return size_param(req, std::string(name).c_str(), fallback, p->max);
}

const Param* declared(const Route* route, std::string_view name) {
  if (!route) return nullptr;
  auto it = std::find_if(route->params.begin(), route->params.end(),
                         [&](const Param& p) { return p.name == name; });
  return it == route->params.end() ? nullptr : &*it;
}

}  // namespace kb::http
