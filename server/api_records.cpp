#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
#include "json.h"
#include "tabular.h"

namespace kb::http {

using nlohmann::json;

namespace {

Kind kind_of(const Ctx& c) {
  auto kind = parse_kind(c.match(1));
  if (!kind)
    throw ApiError(Problem::not_found, problem_code(Problem::not_found), "no such record type");
  return *kind;
}

// A record in a list of its type.
json list_item(const Snapshot& snap, Kind kind, const Record& r) {
  json item = kind == Kind::gotcha ? gotcha_summary(snap, r) : record_link(r);
  if (kind == Kind::engine) {
    std::size_t n = 0;
    for (const Record* from : snap.referencing(r.id)) n += from->kind == Kind::gotcha;
    item["gotchas"] = n;
  }
  if (kind == Kind::result) {
    item["date"] = r.result->date;
    item["passed"] = r.result->passed;
    item["failed"] = r.result->failed;
  }
  return item;
}

// The CSV columns of a list of `kind`, in this order (README, "Exports").
std::vector<std::string_view> list_columns(Kind kind) {
  std::vector<std::string_view> out = {"id", "type", "title", "url"};
  if (kind == Kind::engine) out.push_back("gotchas");
  if (kind == Kind::result) out.insert(out.end(), {"date", "passed", "failed"});
  return out;
}

}  // namespace

void list_records(const Ctx& c) {
  const Kind kind = kind_of(c);
  const Format format = output_format(c);
  const std::size_t limit =
      format == Format::json ? c.integer("limit") : declared(c.route, "limit")->max;
  RecordPage page = c.snap.records(kind, param(c.req, "page_token"), limit);
  json items = json::array();
  for (const Record* r : page.items) items.push_back(list_item(c.snap, kind, *r));
  if (format != Format::json) {
    NextBatch next;
    if (!page.next_page_token.empty()) {
      next = [snap = c.hold, kind, limit,
              token = page.next_page_token](std::vector<json>& batch) mutable {
        const RecordPage p = snap->records(kind, token, limit);
        for (const Record* r : p.items) batch.push_back(list_item(*snap, kind, *r));
        token = p.next_page_token;
        return !token.empty();
      };
    }
    send_rows(c, format, list_columns(kind), items.get<std::vector<json>>(), std::move(next));
    return;
  }
  send_json(c.res, {{"snapshot", c.snap.etag()},
                    {"total", page.total},
                    {"items", std::move(items)},
                    {"next_page_token",
                     page.next_page_token.empty() ? json(nullptr) : json(page.next_page_token)}});
}

bool peek_record(const Ctx& c) {
  if (!c.svc.responses) return false;
  const auto kind = parse_kind(c.match(1));
  const std::string slug = c.match(2);
  if (!kind || !valid_slug(slug)) return false;
  // The key get_record() keeps the body under: only ever made for a record found by it.
  auto body =
      c.svc.responses->peek(c.snap.generation(), std::string(kind_namespace(*kind)) + "/" + slug);
  if (!body) return false;
  send_body(c.res, *body, "application/json");
  return true;
}

void get_record(const Ctx& c) {
  const Kind kind = kind_of(c);
  const std::string slug = c.match(2);
  const std::string ns(kind_namespace(kind));
  if (!valid_slug(slug)) {
    throw ApiError(Problem::bad_request, "invalid-slug",
                   "a record slug is lower-case letters, digits, '.', '_' and '-', starting with a "
                   "letter or digit");
  }
  const std::string id = ns + "/" + slug;
  const Corpus& corpus = c.snap.corpus();
  if (const Record* r = corpus.find(id)) {
    // A record's answer depends on the snapshot alone: build it once per snapshot.
    auto make = [&]() -> std::optional<std::string> {
      return dump(kb::json::versioned(record_detail(c.snap, *r)));
    };
    if (c.svc.responses)
      send_body(c.res, *c.svc.responses->get(c.snap.generation(), id, make), "application/json");
    else
      send_json(c.res, record_detail(c.snap, *r));
    return;
  }
  // A former id or another name of a record: send clients to where it lives now.
  if (const Record* r = corpus.find_any(id); r && r->kind == kind) {
    send_moved(c.res, path_with_query(c.req, api_url(r->id)));
    return;
  }
  json candidates = candidates_json(c.snap, kind, slug);
  std::string message = "no " + std::string(kind_name(kind)) + " '" + slug + "'";
  if (!candidates.empty())
    message += "; did you mean '" + candidates[0]["id"].get<std::string>() + "'?";
  throw ApiError(Problem::not_found, problem_code(Problem::not_found), message,
                 json{{"candidates", std::move(candidates)}});
}

}  // namespace kb::http
