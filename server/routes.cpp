// The route table: every path the server answers, its method and its handler. Matched
// in order against the percent-decoded path, whole. Slugs are `[^/]+` here and checked
// strictly by the handler, so an encoded `/` or `..` never matches a record route.

#include "routes.h"

#include "http_api.h"
#include "pages.h"

namespace kb::http {

const std::vector<Route>& route_table() {
  static const std::vector<Route> kRoutes = {
      {"GET", "/healthz", "/healthz", healthz, false},
      {"GET", "/metrics", "/metrics", metrics, false},
      {"GET", "/api/v1", "/api/v1", api_index, true},
      {"GET", "/api/v1/gotchas", "/api/v1/gotchas", list_gotchas, true},
      {"GET", "/api/v1/(engines|oracles|results|settings|models)", "/api/v1/{type}", list_records, true},
      {"GET", "/api/v1/(gotchas|engines|oracles|results|settings|models)/([^/]+)", "/api/v1/{type}/{slug}",
       get_record, true},
      {"GET", "/api/v1/search", "/api/v1/search", search, true},
      {"GET", "/api/v1/resolve", "/api/v1/resolve", resolve_name, true},
      {"GET", "/api/v1/diagnostics", "/api/v1/diagnostics", diagnostics, true},
      {"GET", "/api/v1/changes", "/api/v1/changes", changes, false},
      {"GET", "/api/v1/export", "/api/v1/export", export_all, true},
      {"POST", "/api/v1/check", "/api/v1/check", check, false},
      {"POST", "/api/v1/check/batch", "/api/v1/check/batch", check_batch, false},
      // HTML pages (server/pages_http.cpp), last: the final row answers every other path
      // outside /api with the 404 page and its did-you-mean candidates. Not cacheable by
      // ETag: with --web-dir a page changes when its template does.
      {"GET", "/", "/", pages::handle, false},
      {"GET", "/(search|diagnostics|feed\\.xml)", "/{page}", pages::handle, false},
      {"GET", "/static/([^/]+)", "/static/{file}", pages::handle, false},
      {"GET", "/(gotchas|engines|oracles|results|settings|models)/(.+)", "/{type}/{slug}", pages::handle, false},
      {"GET", "/(?!api/|api$|healthz$|metrics$).*", "/{other}", pages::handle, false},
  };
  return kRoutes;
}

}  // namespace kb::http
