#include "http_api.h"
#include "http_request.h"
#include "http_status.h"
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

}  // namespace

void search(const Ctx& c) {
  const std::string q = param(c.req, "q");
  if (q.empty()) bad("q: required, the text to search for");
  const std::size_t limit = c.integer("limit");
  // A word that finds nothing may be a typo of an engine or setting name: suggested, and
  // searched instead when the query as typed finds nothing at all.
  std::vector<std::string> found;  // words the search saw: no need to look for them again
  auto results = c.snap.search(q, limit, &found);
  const std::string suggestion = corrected_query(
      c.snap.corpus(), [&](std::string_view w) { return c.snap.finds(w, &found); }, q);
  const bool corrected = results.empty() && !suggestion.empty();
  if (corrected) results = c.snap.search(suggestion, limit);
  json hits = json::array();
  for (const auto& h : results) {
    const Record* r = c.snap.corpus().find(h.id);
    hits.push_back({{"id", h.id},
                    {"type", r ? json(kind_name(r->kind)) : json(nullptr)},
                    {"title", h.title},
                    {"snippet", snippet_text(h.snippet)},
                    {"snippet_html", pages::snippet_html(h.snippet)},
                    {"rank", h.rank},
                    {"url", api_url(h.id)}});
  }
  if (const Format format = output_format(c); format != Format::json) {
    send_rows(c, format, {"id", "type", "title", "snippet", "rank", "url"},
              hits.get<std::vector<json>>(), nullptr);
    return;
  }
  json out = {{"snapshot", c.snap.etag()}, {"query", q}, {"hits", std::move(hits)}};
  if (!suggestion.empty()) {
    out["suggestion"] = suggestion;
    out["corrected"] = corrected;  // the hits are the suggestion's
  }
  send_json(c.res, out);
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
