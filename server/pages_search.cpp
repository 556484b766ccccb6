#include <algorithm>
#include <map>

#include "kb/text.h"
#include "markdown.h"
#include "pages_internal.h"
#include "search_suggest.h"

namespace kb::pages {

namespace {

constexpr std::size_t kMaxHits = 200;
constexpr std::size_t kMaxShown = 100;
constexpr std::size_t kMaxCandidates = 5;
// What a 404 page shows of the path asked for, and how deep its links stay relative.
constexpr std::size_t kMaxEchoedPath = 200;
constexpr int kMaxRelativeDepth = 8;

// The start of `path`, cut at a UTF-8 boundary, with an ellipsis when cut.
std::string echoed(std::string_view path) {
  if (path.size() <= kMaxEchoedPath) return std::string(path);
  std::size_t n = kMaxEchoedPath;
  while (n > 0 && (static_cast<unsigned char>(path[n]) & 0xc0) == 0x80) --n;
  return std::string(path.substr(0, n)) + "\u2026";
}

bool affects_engine(const View& v, const Record& g, const std::string& engine_id) {
  return std::any_of(g.affects.begin(), g.affects.end(), [&](const RefValue& ref) {
    return target_id(v, ref, Kind::engine) == engine_id;
  });
}

struct Filter {
  std::string engine_id;  // resolved; "" matches nothing when an engine was asked for
  const SearchParams& p;

  bool active() const { return !p.engine.empty() || !p.severity.empty() || !p.status.empty(); }
  bool matches(const View& v, const Record& r) const {
    if (!active()) return true;
    if (r.kind != Kind::gotcha) return false;
    if (!p.severity.empty() && to_string(r.severity) != p.severity) return false;
    if (!p.status.empty() && to_string(r.status) != p.status) return false;
    return p.engine.empty() || (!engine_id.empty() && affects_engine(v, r, engine_id));
  }
};

// Select options: every value, with its count among `matched` when counting.
List options(const std::vector<std::pair<std::string, std::string>>& values,
             const std::string& selected, const std::map<std::string, std::size_t>* counts) {
  List out;
  for (const auto& [value, label] : values) {
    Data o;
    set(o, "value", value);
    std::string text = label;
    if (counts != nullptr) {
      auto it = counts->find(value);
      text += " (" + std::to_string(it == counts->end() ? 0 : it->second) + ")";
    }
    set(o, "label", text);
    set(o, "selected", value == selected);
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> named(
    const std::vector<std::string_view>& values) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto v : values) out.emplace_back(std::string(v), std::string(v));
  return out;
}

Data result_item(const View& v, const Links& links, const Record& r, const std::string& snippet) {
  Data d = r.kind == Kind::gotcha ? gotcha_item(v, links, r) : Data();
  set(d, "is_gotcha", r.kind == Kind::gotcha);
  set(d, "kind", std::string(kind_name(r.kind)));
  set(d, "id", r.id.str());
  set(d, "title", std::string(display_name(r)));
  set(d, "href", links.page(r.id));
  put(d, "snippet", snippet_html(snippet));
  return d;
}

// The gotchas a pasted log names, each with its matching lines numbered as in the paste.
void log_section(const View& v, const Links& links, const PastedLog& log, Data& d) {
  set(d, "log_text", log.text);
  set(d, "log_read", log.report != nullptr);
  put(d, "log_error", log.error);
  if (log.report == nullptr) return;
  const TriageReport& t = *log.report;
  List matches;
  for (const TriageMatch& m : t.matches) {
    const Record* r = v.corpus.find(m.id);
    Data item = r ? gotcha_item(v, links, *r) : Data();
    set(item, "href", links.page(m.id));
    set(item, "id", m.id);
    set(item, "title", m.title);
    set(item, "workaround", m.workaround);
    set(item, "count", std::to_string(m.count));
    set(item, "lines_word", m.count == 1 ? "line" : "lines");
    List signatures;
    for (const auto& sig : m.signatures) signatures.push_back(object_of("text", sig));
    set(item, "signatures", std::move(signatures));
    List lines;
    for (const TriageLine& l : m.lines) {
      Data line;
      set(line, "line", std::to_string(l.line));
      set(line, "text", l.text);
      lines.push_back(std::move(line));
    }
    set(item, "lines", std::move(lines));
    set(item, "more", m.count > m.lines.size());
    matches.push_back(std::move(item));
  }
  set(d, "log_has_matches", !matches.empty());
  set(d, "log_matches", std::move(matches));
  set(d, "log_lines", std::to_string(t.lines));
  set(d, "log_lines_word", t.lines == 1 ? "line" : "lines");
  set(d, "log_signatures", std::to_string(t.signatures));
}

}  // namespace

std::string Renderer::search(const View& v, const SearchParams& p, const PastedLog* log) const {
  const Links links(impl_->style, 0);
  Data d = page_data(links, p.q.empty() ? "Search" : "Search: " + p.q, p.q);
  if (log) log_section(v, links, *log, d);
  set(d, "log_asked", log != nullptr);
  Filter filter{p.engine.empty() ? "" : v.corpus.target(Kind::engine, p.engine).value_or(""), p};
  std::map<std::string, std::size_t> by_engine, by_severity, by_status;
  List results;
  std::size_t matched = 0;
  auto consider = [&](const Record& r, const std::string& snippet) {
    if (r.kind == Kind::gotcha) {
      ++by_severity[std::string(to_string(r.severity))];
      ++by_status[std::string(to_string(r.status))];
      for (const auto& ref : r.affects) {
        const std::string id = target_id(v, ref, Kind::engine);
        if (!id.empty()) ++by_engine[std::string(text::id_slug(id))];
      }
    }
    if (!filter.matches(v, r)) return;
    if (++matched <= kMaxShown) results.push_back(result_item(v, links, r, snippet));
  };
  const bool client_side = impl_->style == LinkStyle::static_site || !v.search;
  if (client_side) {
    // The static site searches in the browser, over search-index.js.
  } else if (!p.q.empty()) {
    auto hits = v.search(p.q, kMaxHits);
    const std::string suggestion = http::corrected_query(
        v.corpus,
        [&](std::string_view w) { return v.finds ? v.finds(w) : !v.search(w, 1).empty(); }, p.q);
    if (!suggestion.empty()) {
      const bool corrected = hits.empty();
      if (corrected) hits = v.search(suggestion, kMaxHits);
      set(d, "suggestion", suggestion);
      SearchParams again = p;
      again.q = suggestion;
      set(d, "suggestion_href", links.search(again));
      set(d, "corrected", corrected);
    }
    for (const auto& hit : hits) {
      if (const Record* r = v.corpus.find(hit.id)) consider(*r, hit.snippet);
    }
  } else if (filter.active()) {
    for (const Record* g : gotchas_by_severity(v)) consider(*g, "");
  }
  std::vector<std::pair<std::string, std::string>> engines;
  for (const auto& r : v.corpus.records()) {
    if (r->kind == Kind::engine)
      engines.emplace_back(std::string(text::id_slug(r->id)), std::string(display_name(*r)));
  }
  const bool counting = !client_side && (!p.q.empty() || filter.active());
  const std::string engine_value =
      filter.engine_id.empty() ? p.engine : std::string(text::id_slug(filter.engine_id));
  set(d, "engine_options", options(engines, engine_value, counting ? &by_engine : nullptr));
  set(d, "severity_options",
      options(named(kSeverities), p.severity, counting ? &by_severity : nullptr));
  set(d, "status_options", options(named(kStatuses), p.status, counting ? &by_status : nullptr));
  set(d, "client_side", client_side);
  set(d, "asked", !client_side && (!p.q.empty() || filter.active()));
  set(d, "has_results", !results.empty());
  set(d, "results", std::move(results));
  set(d, "matched", std::to_string(matched));
  set(d, "results_word", matched == 1 ? "result" : "results");
  set(d, "truncated", matched > kMaxShown);
  set(d, "shown", std::to_string(std::min(matched, kMaxShown)));
  if (client_side) {
    List scripts;
    scripts.push_back(object_of("src", links.root() + "search-index.js"));
    scripts.push_back(object_of("src", links.asset("search.js")));
    set(d, "scripts", std::move(scripts));
  }
  return impl_->templates.render("search", d);
}

std::string Renderer::not_found(const View& v, std::string_view path, std::string_view root) const {
  std::string rest(path);
  const int depth = static_cast<int>(std::count(rest.begin(), rest.end(), '/')) - 1;
  // Every link climbs back with one "../" per level: past a few levels the live server
  // links from its root instead, or a path of 1,000 slashes makes a page of 40 KB.
  const Links links = !root.empty() ? Links::from_root(impl_->style, root)
                      : depth > kMaxRelativeDepth && impl_->style == LinkStyle::live
                          ? Links::from_root(impl_->style)
                          : Links(impl_->style, std::max(depth, 0));
  while (!rest.empty() && rest.front() == '/') rest.erase(0, 1);
  for (std::string_view ext : {".html", ".json", ".yaml"}) {
    if (rest.size() > ext.size() && rest.ends_with(ext)) {
      rest.resize(rest.size() - ext.size());
    }
  }
  std::vector<Candidate> found;
  const std::size_t slash = rest.find('/');
  const auto kind = slash == std::string::npos ? std::nullopt : parse_kind(rest.substr(0, slash));
  if (kind) {
    found = v.corpus.names().candidates(*kind, rest.substr(slash + 1), kMaxCandidates);
  } else {
    const std::string name =
        rest.substr(rest.rfind('/') == std::string::npos ? 0 : rest.rfind('/') + 1);
    for (Kind k : {Kind::gotcha, Kind::engine, Kind::oracle}) {
      auto more = v.corpus.names().candidates(k, name, kMaxCandidates);
      found.insert(found.end(), more.begin(), more.end());
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    if (found.size() > kMaxCandidates) found.resize(kMaxCandidates);
  }
  List candidates;
  for (const auto& c : found) {
    const Record* r = v.corpus.find(c.id);
    if (r == nullptr) continue;
    Data item;
    set(item, "name", std::string(display_name(*r)));
    set(item, "id", r->id.str());
    set(item, "href", links.page(r->id));
    candidates.push_back(std::move(item));
  }
  Data d = page_data(links, "Not found");
  put(d, "path", echoed(path));
  set(d, "has_candidates", !candidates.empty());
  if (!candidates.empty()) set(d, "best", Data(candidates.front()));
  set(d, "candidates", std::move(candidates));
  return impl_->templates.render("not_found", d);
}

}  // namespace kb::pages
