#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
#include "tabular.h"

namespace kb::http {

using nlohmann::json;

namespace {

// The columns of a gotcha summary in CSV, in this order (README, "Exports").
const std::vector<std::string_view> kGotchaColumns = {
    "id",      "title",          "severity",         "status",  "kind",  "family",
    "engines", "evidence.state", "evidence.summary", "updated", "stale", "url"};

// CSV and NDJSON stream every matching gotcha (from page_token on), page by page.
void stream_gotchas(const Ctx& c, Format format, GotchaQuery q) {
  q.limit = c.route ? declared(c.route, "limit")->max : 500;
  const GotchaPage page = c.snap.gotchas(q);
  std::vector<json> first;
  for (const Record* r : page.items) first.push_back(gotcha_summary(c.snap, *r));
  NextBatch next;
  if (!page.next_page_token.empty()) {
    next = [snap = c.hold, q, token = page.next_page_token](std::vector<json>& batch) mutable {
      q.page_token = token;
      const GotchaPage p = snap->gotchas(q);
      for (const Record* r : p.items) batch.push_back(gotcha_summary(*snap, *r));
      token = p.next_page_token;
      return !token.empty();
    };
  }
  send_rows(c, format, kGotchaColumns, std::move(first), std::move(next));
}

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
  q.limit = c.integer("limit");
  q.page_token = param(c.req, "page_token");
  if (const Format format = output_format(c); format != Format::json) {
    stream_gotchas(c, format, q);
    return;
  }

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
