#include "http_api.h"
#include "http_request.h"
#include "http_status.h"

namespace kb::http {

using nlohmann::json;

namespace {

constexpr std::size_t kDefaultLimit = 50;
constexpr std::size_t kMaxLimit = 500;

}  // namespace

void list_gotchas(const Ctx& c) {
  GotchaQuery q;
  q.engine = param(c.req, "engine");
  q.severity = param(c.req, "severity");
  q.status = param(c.req, "status");
  q.family = param(c.req, "family");
  q.reproduced = param(c.req, "reproduced");
  q.q = param(c.req, "q");
  q.include_withdrawn = bool_param(c.req, "include_withdrawn", false);
  if (auto sort = param(c.req, "sort"); !sort.empty()) q.sort = sort;
  q.limit = size_param(c.req, "limit", kDefaultLimit, kMaxLimit);
  q.page_token = param(c.req, "page_token");

  GotchaPage page = c.snap.gotchas(q);
  json items = json::array();
  for (const Record* r : page.items) items.push_back(gotcha_summary(c.snap, *r));
  json facets = json::object();
  for (const auto& [name, counts] : page.facets) {
    json values = json::array();
    for (const auto& [value, n] : counts) values.push_back({{"value", value}, {"count", n}});
    facets[name] = std::move(values);
  }
  send_json(c.res, {{"snapshot", c.snap.etag()},
                    {"total", page.total},
                    {"limit", q.limit},
                    {"sort", q.sort},
                    {"items", std::move(items)},
                    {"facets", std::move(facets)},
                    {"next_page_token",
                     page.next_page_token.empty() ? json(nullptr) : json(page.next_page_token)}});
}

}  // namespace kb::http
