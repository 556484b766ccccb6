#include <charconv>
#include <ctime>

#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
#include "json.h"
#include "kb/record_dates.h"
#include "openapi.h"
#include "tabular.h"

namespace kb::http {

using nlohmann::json;

namespace {

std::string iso_time(std::int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms % 1000));
  return buf;
}

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

std::optional<int> digits(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// `since` is unix milliseconds (the `cursor` of the previous answer), a date, or a UTC
// time YYYY-MM-DDTHH:MM:SS[.fff]Z.
std::int64_t parse_since(const std::string& v) {
  if (v.empty()) return 0;
  std::int64_t ms = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), ms);
  if (ec == std::errc() && end == v.data() + v.size() && ms >= 0) return ms;
  const std::string bad = "since: expected unix milliseconds, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ";
  auto days = date_to_days(std::string_view(v).substr(0, 10));
  if (!days) throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), bad);
  std::int64_t out = *days * 86400000;
  if (v.size() == 10) return out;
  std::string_view t = std::string_view(v).substr(10);
  if (t.size() < 10 || t[0] != 'T' || t[3] != ':' || t[6] != ':' || t.back() != 'Z') {
    throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), bad);
  }
  auto h = digits(t.substr(1, 2)), m = digits(t.substr(4, 2)), s = digits(t.substr(7, 2));
  std::optional<int> frac = 0;
  if (t.size() > 10) {
    if (t[9] != '.' || t.size() > 14)
      throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), bad);
    std::string f(t.substr(10, t.size() - 11));
    while (f.size() < 3) f += '0';
    frac = digits(f);
  }
  if (!h || !m || !s || !frac || *h > 23 || *m > 59 || *s > 60) {
    throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), bad);
  }
  return out + ((*h * 60 + *m) * 60 + *s) * 1000 + *frac;
}

}  // namespace

void api_index(const Ctx& c) {
  json routes = json::array();
  for (const auto& r : route_table()) {
    routes.push_back({{"method", r.method}, {"path", r.name}});
  }
  send_json(c.res, {{"snapshot", c.snap.etag()}, {"version", "v1"}, {"routes", std::move(routes)}});
}

// The document describes itself: its `info.version` is the schema version (OpenAPI allows
// no other top-level field).
void openapi(const Ctx& c) {
  send_body(c.res, dump(openapi_document()), "application/json");
}

void diagnostics(const Ctx& c) {
  json out = kb::json::lint_report(c.snap.corpus().records().size(), c.snap.diagnostics());
  out["snapshot"] = c.snap.etag();
  out["notes"] = c.snap.diagnostics_of(Severity::note);
  send_json(c.res, out);
}

// Records come with the dates their content gives (kb/record_dates.h), day by day: those
// modified on or after the day of `since`, so a client polling with the last `cursor`
// sees that day's records again (at least once, never missed). Deletions are known only
// to the running server, stamped when it saw them (not in `cursor`, which stays a content
// date: a deletion is listed again on every poll until the content moves past it).
void changes(const Ctx& c) {
  const std::int64_t since = parse_since(param(c.req, "since"));
  const std::int64_t since_day = since - since % 86400000;
  const std::string& date = c.snap.knowledge_base_date();
  std::vector<std::pair<std::int64_t, json>> list;
  std::int64_t cursor = 0;
  for (const auto& r : c.snap.corpus().records()) {
    const RecordDates d = record_dates(*r, c.snap.evidence(), date);
    const std::int64_t ms = *date_to_days(d.modified) * 86400000;
    cursor = std::max(cursor, ms);
    if (ms < since_day) continue;
    list.emplace_back(ms, json{{"id", r->id},
                               {"type", kind_name(r->kind)},
                               {"published", d.published},
                               {"modified", d.modified},
                               {"dated", d.own},
                               {"changed_at", iso_time(ms)},
                               {"changed_at_ms", ms},
                               {"content_hash", r->content_hash},
                               {"deleted", false},
                               {"url", api_url(r->id)}});
  }
  for (const auto& st : c.snap.changes_since(since)) {
    if (!st.deleted) continue;
    json item = {{"id", st.id},
                 {"changed_at", iso_time(st.changed_at_ms)},
                 {"changed_at_ms", st.changed_at_ms},
                 {"deleted", true},
                 {"url", nullptr}};
    if (auto slash = st.id.find('/'); slash != std::string::npos) {
      if (auto kind = parse_kind(std::string_view(st.id).substr(0, slash)))
        item["type"] = kind_name(*kind);
    }
    list.emplace_back(st.changed_at_ms, std::move(item));
  }
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second["id"] < b.second["id"];
  });
  json out = json::array();
  for (auto& [ms, item] : list) out.push_back(std::move(item));
  send_json(c.res, {{"snapshot", c.snap.etag()},
                    {"since", since},
                    {"cursor", cursor},
                    {"changes", std::move(out)}});
}

namespace {

constexpr std::size_t kExportBatch = 200;

json exported(const Snapshot& snap, const Record& r) {
  const Corpus& corpus = snap.corpus();
  json j = kb::json::record(corpus, r, snap.evidence());
  j["stale"] = corpus.is_stale(r.id);
  j["content_hash"] = r.content_hash;
  put_dates(snap, r, j);
  return j;
}

}  // namespace

void export_all(const Ctx& c) {
  const Corpus& corpus = c.snap.corpus();
  if (const Format format = output_format(c); format != Format::json) {
    // One record a row or line, in id order, a batch at a time.
    auto batch_of = [](const Snapshot& snap, std::size_t& at, std::vector<json>& batch) {
      const auto& recs = snap.corpus().records();
      for (std::size_t end = std::min(at + kExportBatch, recs.size()); at < end; ++at)
        batch.push_back(exported(snap, *recs[at]));
      return at < recs.size();
    };
    std::vector<json> first;
    std::size_t at = 0;
    NextBatch next;
    if (batch_of(c.snap, at, first)) {
      next = [snap = c.hold, at, batch_of](std::vector<json>& batch) mutable {
        return batch_of(*snap, at, batch);
      };
    }
    send_rows(c, format,
              {"id", "type", "title", "name", "severity", "status", "family", "date", "published",
               "modified", "content_hash", "stale", "file"},
              std::move(first), std::move(next));
    return;
  }
  json records = json::array();
  for (const auto& r : corpus.records()) records.push_back(exported(c.snap, *r));
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  send_json(c.res, {{"snapshot", c.snap.etag()},
                    {"generation", c.snap.generation()},
                    {"exported_at", iso_time(now.count())},
                    {"records", std::move(records)},
                    {"diagnostics",
                     kb::json::lint_report(corpus.records().size(), c.snap.diagnostics())}});
}

// Only a reload that has run past ServeConfig::reload_stuck_after makes the server
// unhealthy: a failing one keeps serving the last good snapshot and says so.
void healthz(const Ctx& c) {
  const auto now = std::chrono::system_clock::now();
  const double age = std::chrono::duration<double>(now - c.snap.loaded_at()).count();
  const char* watching = c.svc.kb.read_only()      ? "none"
                         : c.svc.kb.uses_inotify() ? "inotify"
                                                   : "polling";
  if (!c.svc.kb.read_only() && !c.svc.config.watch) watching = "none";
  const ReloadStatus reload = c.svc.kb.reload_status();
  const std::string_view state = reload_state(reload, c.svc.config.reload_stuck_after, now);
  json body = {
      {"status", state == "stuck" ? "stuck" : "ok"},
      {"snapshot", c.snap.etag()},
      {"generation", c.snap.generation()},
      {"records", c.snap.corpus().records().size()},
      {"loaded_at", iso_time(unix_ms(c.snap.loaded_at()))},
      {"age_seconds", age},
      {"read_only", c.svc.kb.read_only()},
      {"watching", watching},
      {"search", {{"ranking", c.snap.search_ranking()}}},
      {"reload",
       {{"state", state},
        {"since", iso_time(unix_ms(reload.since))},
        {"running_seconds", reload.running_seconds(now)},
        {"last_success", iso_time(unix_ms(reload.last_success))},
        {"last_error", reload.last_error.empty() ? json(nullptr) : json(reload.last_error)},
        {"failures", reload.failures}}}};
  if (state == "stuck") {
    throw ApiError(Problem::unavailable, "reload-stuck",
                   "a reload has been running for " +
                       std::to_string(static_cast<long long>(reload.running_seconds(now))) +
                       " s; still serving the snapshot loaded at " +
                       body["loaded_at"].get<std::string>(),
                   body);
  }
  send_json(c.res, body);
}

void metrics(const Ctx& c) {
  send_body(c.res, c.svc.metrics.render(c.snap, c.svc.kb, c.svc.config.reload_stuck_after),
            "text/plain; version=0.0.4; charset=utf-8");
}

}  // namespace kb::http
