#include <algorithm>

#include "json.h"
#include "kb/record_dates.h"
#include "markdown.h"
#include "pages_internal.h"

namespace kb::pages {

const std::vector<std::string_view> kSeverities(std::begin(kSeverityNames),
                                                std::end(kSeverityNames));
const std::vector<std::string_view> kStatuses(std::begin(kStatusNames), std::end(kStatusNames));

Links::Links(LinkStyle style, int depth) : style_(style) {
  for (int i = 0; i < depth; ++i) root_ += "../";
}

Links Links::from_root(LinkStyle style, std::string_view root) {
  Links links(style, 0);
  links.root_ = std::string(root);
  if (links.root_.empty() || links.root_.back() != '/') links.root_ += '/';
  return links;
}

std::string Links::top_level(std::string_view name) const {
  return root_ + std::string(name) + (style_ == LinkStyle::static_site ? ".html" : "");
}

std::string Links::by_id(std::string_view id, std::string_view suffix) const {
  return root_ + encode_uri_path(id) + std::string(suffix);
}

std::string Links::home() const {
  if (style_ == LinkStyle::static_site) return root_ + "index.html";
  return root_.empty() ? "./" : root_;
}

std::string Links::page(std::string_view id) const {
  return by_id(id, style_ == LinkStyle::static_site ? ".html" : "");
}

std::string Links::json(std::string_view id) const {
  return by_id(id, ".json");
}

std::string Links::source(std::string_view id) const {
  return by_id(id, ".yaml");
}

std::string Links::search(const SearchParams& p) const {
  std::string url = top_level("search");
  char sep = '?';
  for (const auto& [key, value] : {std::pair<const char*, const std::string&>{"q", p.q},
                                   {"engine", p.engine},
                                   {"severity", p.severity},
                                   {"status", p.status}}) {
    if (value.empty()) continue;
    url += sep + std::string(key) + "=" + encode_uri_component(value);
    sep = '&';
  }
  return url;
}

std::string Links::diagnostics() const {
  return top_level("diagnostics");
}

std::string Links::check() const {
  return root_ + (style_ == LinkStyle::static_site ? "check/index.html" : "check");
}

std::string Links::asset(std::string_view name) const {
  return root_ + "static/" + encode_uri_component(name);
}

std::string Links::feed() const {
  return root_ + "feed.xml";
}

void set(Data& d, const std::string& key, Data&& value) {
  d.set(key, std::move(value));
}

void set(Data& d, const std::string& key, List&& items) {
  d.set(key, Data(std::move(items)));
}

void set(Data& d, const std::string& key, const std::string& value) {
  d.set(key, Data(value));
}

void set(Data& d, const std::string& key, const char* value) {
  d.set(key, Data(value));
}

void set(Data& d, const std::string& key, bool value) {
  d.set(key, Data(value));
}

Data list_data(List&& items) {
  return Data(std::move(items));
}

Data object_of(const std::string& key, Data&& value) {
  Data d;
  set(d, key, std::move(value));
  return d;
}

Data object_of(const std::string& key, List&& items) {
  return object_of(key, list_data(std::move(items)));
}

void put(Data& d, const std::string& key, const std::string& value) {
  if (!value.empty()) set(d, key, value);
}

Data item_list(List items) {
  Data d;
  set(d, "has_items", !items.empty());
  set(d, "items", std::move(items));
  return d;
}

Data page_data(const Links& links, std::string_view title, std::string_view query) {
  Data d;
  set(d, "title", std::string(title));
  set(d, "root", links.root());
  set(d, "home_href", links.home());
  set(d, "search_href", links.search());
  set(d, "search_q", std::string(query));
  set(d, "diagnostics_href", links.diagnostics());
  set(d, "check_href", links.check());
  set(d, "css_href", links.asset("kb.css"));
  set(d, "icon_href", links.asset("favicon.svg"));
  set(d, "feed_href", links.feed());
  return d;
}

int depth_of(std::string_view id) {
  return static_cast<int>(std::count(id.begin(), id.end(), '/'));
}

Data gotcha_item(const View& v, const Links& links, const Record& r) {
  const EvidenceSummary& e = v.evidence.for_gotcha(r.id);
  Data d;
  set(d, "id", r.id.str());
  set(d, "title", std::string(display_name(r)));
  set(d, "href", links.page(r.id));
  set(d, "severity", std::string(to_string(r.severity)));
  set(d, "status", std::string(to_string(r.status)));
  set(d, "reproduction", std::string(to_string(e.state)));
  set(d, "silent", is_silent(r));
  set(d, "evidence", summary_line(e));
  put(d, "verified", verified_as_of(v, r));
  set(d, "stale", v.corpus.is_stale(r.id));
  return d;
}

std::string verified_as_of(const View& v, const Record& r) {
  std::string newest = reference_dates(r).newest_as_of.str();
  if (r.kind == Kind::gotcha) {
    const std::string& results = v.evidence.for_gotcha(r.id).newest_date;
    if (date_to_days(results) && results > newest) newest = results;
  }
  return newest;
}

std::vector<const Record*> gotchas_by_severity(const View& v) {
  std::vector<const Record*> out;
  for (const auto& r : v.corpus.records()) {
    if (r->kind == Kind::gotcha) out.push_back(r.get());
  }
  std::stable_sort(out.begin(), out.end(), [](const Record* a, const Record* b) {
    return severity_rank(a->severity) < severity_rank(b->severity);
  });
  return out;
}

std::string target_id(const View& v, const RefValue& ref, Kind ns) {
  return v.corpus.target(ns, ref.raw).value_or("");
}

Data engine_ref(const View& v, const Links& links, const RefValue& ref) {
  Data d;
  const std::string id = target_id(v, ref, Kind::engine);
  const Record* target = id.empty() ? nullptr : v.corpus.find(id);
  set(d, "name", target != nullptr ? std::string(display_name(*target)) : ref.raw.str());
  set(d, "resolved", target != nullptr);
  set(d, "href", target != nullptr ? links.page(id) : std::string());
  put(d, "versions", ref.versions);
  return d;
}

Data citation_item(const Citation& c) {
  std::string label = c.title;
  if (label.empty() && !c.repo.empty()) {
    label = c.repo;
    // Appended in two steps: GCC 12 warns (-Wrestrict) on the inlined `"#" + std::string`.
    if (c.number > 0) label.append("#").append(std::to_string(c.number));
    if (!c.ref.empty()) label.append("@").append(c.ref);
  }
  const std::string url = json::citation_url(c);
  if (label.empty()) label = url.empty() ? c.type.str() : url;
  Data d;
  set(d, "label", label);
  set(d, "type", c.type.str());
  set(d, "linked", is_web_url(url));
  if (is_web_url(url)) set(d, "href", url);
  // Absent fields are false, not missing: a citation inside another item (a fix chain's
  // pull requests) must not show its container's note or state.
  for (const auto& [key, value] : {std::pair<const char*, const Str*>{"state", &c.state},
                                   {"as_of", &c.as_of},
                                   {"note", &c.note}}) {
    if (value->empty()) {
      set(d, key, false);
    } else {
      set(d, key, value->str());
    }
  }
  return d;
}

List citation_list(const Vec<Citation>& list) {
  List out;
  for (const auto& c : list) out.push_back(citation_item(c));
  return out;
}

List value_list(const Vec<std::string>& values) {
  List out;
  for (const auto& v : values) out.push_back(object_of("value", v));
  return out;
}

}  // namespace kb::pages
