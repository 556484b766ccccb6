#include <optional>
#include <string_view>

#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
#include "json.h"
#include "json_dump.h"
#include "kb/resolver.h"
#include "markdown.h"
#include "search_suggest.h"
#include "tabular.h"

namespace kb::http {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxNameBytes = 200;

[[noreturn]] void bad(const std::string& message) {
  throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), message);
}

// Snippets arrive with matches between \x02 and \x03: plain text drops the markers, HTML
// escapes the text first and only then turns the markers into <mark>.
std::string snippet_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c != '\x02' && c != '\x03') out += c;
  }
  return out;
}

// A hit's type, as the API names it: null for a record the snapshot no longer holds.
std::optional<std::string_view> hit_type(const Snapshot& snap, const SearchHit& h) {
  const Record* r = snap.corpus().find(h.id);
  if (!r) return std::nullopt;
  return kind_name(r->kind);
}

}  // namespace

std::string search_answer_json(const Snapshot& snap, std::string_view q,
                               const std::vector<SearchHit>& results, std::string_view suggestion,
                               bool corrected, const std::vector<const Record*>* records) {
  // Members in nlohmann's order (its objects are std::maps): sorted by key.
  std::string out;
  out.reserve(256 + results.size() * 1024);
  auto key = [&](std::string_view k) {
    kb::json::append_string(out, k);
    out += ':';
  };
  out += '{';
  if (!suggestion.empty()) {
    key("corrected");
    out += corrected ? "true," : "false,";
  }
  key("hits");
  out += '[';
  for (std::size_t i = 0; i < results.size(); ++i) {
    const SearchHit& h = results[i];
    if (i > 0) out += ',';
    out += '{';
    key("id");
    kb::json::append_string(out, h.id);
    out += ',';
    key("rank");
    out += json(h.rank).dump();  // nlohmann's own digits
    out += ',';
    key("snippet");
    kb::json::append_string(out, snippet_text(h.snippet));
    out += ',';
    key("snippet_html");
    kb::json::append_string(out, pages::snippet_html(h.snippet));
    out += ',';
    key("title");
    kb::json::append_string(out, h.title);
    out += ',';
    key("type");
    if (records && i < records->size())
      kb::json::append_string(out, kind_name((*records)[i]->kind));
    else if (const auto type = hit_type(snap, h))
      kb::json::append_string(out, *type);
    else
      out += "null";
    out += ',';
    key("url");
    kb::json::append_string(out, api_url(h.id));
    out += '}';
  }
  out += "],";
  key("query");
  kb::json::append_string(out, q);
  out += ',';
  key("schema_version");
  kb::json::append_string(out, kb::json::kSchemaVersion);
  out += ',';
  key("snapshot");
  kb::json::append_string(out, snap.etag());
  if (!suggestion.empty()) {
    out += ',';
    key("suggestion");
    kb::json::append_string(out, suggestion);
  }
  out += '}';
  return out;
}

void search(const Ctx& c) {
  const std::string q = param(c.req, "q");
  if (q.empty()) bad("q: required, the text to search for");
  const std::size_t limit = c.integer("limit");
  // A word that finds nothing may be a typo of an engine or setting name: suggested, and
  // searched instead when the query as typed finds nothing at all.
  std::vector<std::string> found;      // words the search saw: no need to look for them again
  std::vector<const Record*> records;  // each hit's, found once by the snapshot
  auto results = c.snap.search(q, limit, &found, &records);
  const std::string suggestion = corrected_query(
      c.snap.corpus(), [&](std::string_view w) { return c.snap.finds(w, &found); }, q);
  const bool corrected = results.empty() && !suggestion.empty();
  if (corrected) results = c.snap.search(suggestion, limit, nullptr, &records);
  if (const Format format = output_format(c); format != Format::json) {
    std::vector<json> hits;
    for (const auto& h : results) {
      const auto type = hit_type(c.snap, h);
      hits.push_back({{"id", h.id},
                      {"type", type ? json(*type) : json(nullptr)},
                      {"title", h.title},
                      {"snippet", snippet_text(h.snippet)},
                      {"snippet_html", pages::snippet_html(h.snippet)},
                      {"rank", h.rank},
                      {"url", api_url(h.id)}});
    }
    send_rows(c, format, {"id", "type", "title", "snippet", "rank", "url"}, std::move(hits),
              nullptr);
    return;
  }
  // Written directly, without a tree of 20 hits' objects (a tenth of a search's time).
  // `corrected`: the hits are the suggestion's.
  send_body(c.res, search_answer_json(c.snap, q, results, suggestion, corrected, &records),
            "application/json");
}

void resolve_name(const Ctx& c) {
  const std::string type = param(c.req, "type");
  const std::string q = param(c.req, "q");
  auto kind = parse_kind(type);
  if (!kind) bad("type: required, one of engine, gotcha, oracle, result");
  if (q.empty()) bad("q: required, the name to resolve");
  if (q.size() > kMaxNameBytes) bad("q: at most " + std::to_string(kMaxNameBytes) + " bytes");
  const Corpus& corpus = c.snap.corpus();
  Resolution res = resolve(corpus.names(), *kind, q);
  json result = json::array();
  auto item = [&](const std::string& id, double score, bool match) {
    json j = {{"id", id}, {"score", score}, {"match", match}, {"url", api_url(id)}};
    if (const Record* r = corpus.find(id)) j["name"] = std::string(display_name(*r));
    result.push_back(std::move(j));
  };
  if (res.target) {
    item(*res.target, 1.0, true);
  } else {
    for (std::size_t i = 0; i < res.candidates.size(); ++i) {
      item(res.candidates[i].id, res.candidates[i].score, i == 0 && res.repairable);
    }
  }
  json out = {{"snapshot", c.snap.etag()},   {"query", q},
              {"type", kind_name(*kind)},    {"id", res.target ? json(*res.target) : json(nullptr)},
              {"result", std::move(result)}, {"rule", res.rule}};
  if (res.target) out["how"] = to_string(res.how);
  if (!res.reason.empty()) out["reason"] = res.reason;
  if (!res.other_namespace_id.empty()) out["other_namespace_id"] = res.other_namespace_id;
  send_json(c.res, out);
}

}  // namespace kb::http
