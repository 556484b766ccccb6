#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "kb/record_dates.h"
#include "markdown.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

constexpr std::size_t kListLength = 10;
constexpr std::size_t kFeedLength = 50;
constexpr std::size_t kLedeEngines = 5;

List counts(const Links& links, const std::vector<const Record*>& gotchas,
            const std::vector<std::string_view>& values,
            const std::function<std::string_view(const Record&)>& field,
            std::string SearchParams::*param) {
  List out;
  for (auto value : values) {
    const auto n = std::count_if(gotchas.begin(), gotchas.end(),
                                 [&](const Record* g) { return field(*g) == value; });
    SearchParams p;
    p.*param = std::string(value);
    Data d;
    set(d, "name", std::string(value));
    set(d, "count", std::to_string(n));
    set(d, "href", links.search(p));
    out.push_back(std::move(d));
  }
  return out;
}

// The first `n` gotchas by `date` (newest first), skipping those without one.
List newest_by(const View& v, const Links& links, std::vector<const Record*> gotchas,
               const std::function<std::string(const Record&)>& date) {
  std::vector<std::pair<std::string, const Record*>> dated;
  for (const Record* g : gotchas) {
    std::string d = date(*g);
    if (!d.empty()) dated.emplace_back(std::move(d), g);
  }
  std::stable_sort(dated.begin(), dated.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  List out;
  for (std::size_t i = 0; i < dated.size() && i < kListLength; ++i) {
    out.push_back(gotcha_item(v, links, *dated[i].second));
  }
  return out;
}

// The engines the lede names, from the engine records: those the most gotchas reference
// first (ties in id order), each with the words that follow it. "A, B and C" when these
// are all the engines gotchas reference; "A, B, C, D, E" and `more` when there are others.
List lede_engines(std::vector<std::pair<std::size_t, const Record*>> counted, bool& more) {
  std::erase_if(counted, [](const auto& c) { return c.first == 0; });
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  more = counted.size() > kLedeEngines;
  const std::size_t n = std::min(counted.size(), kLedeEngines);
  List out;
  for (std::size_t i = 0; i < n; ++i) {
    Data e;
    set(e, "name", std::string(display_name(*counted[i].second)));
    set(e, "sep", i + 1 == n ? "" : i + 2 == n && !more ? " and " : ", ");
    out.push_back(std::move(e));
  }
  return out;
}

// The last day a gotcha changed, as far as the record tells.
std::string changed_on(const View& v, const Record& r) {
  std::string day = std::max({r.updated.str(), r.created.str(), verified_as_of(v, r)});
  for (const auto& e : r.repairs) day = std::max(day, e.date.str());
  return day;
}

}  // namespace

std::string Renderer::home(const View& v) const {
  const Links links(impl_->style, 0);
  Data d = page_data(links, "Home");
  std::vector<const Record*> gotchas = gotchas_by_severity(v);
  set(d, "gotcha_count", std::to_string(gotchas.size()));
  set(d, "record_count", std::to_string(v.corpus.records().size()));
  set(d, "severity_counts",
      counts(
          links, gotchas, kSeverities, [](const Record& r) { return to_string(r.severity); },
          &SearchParams::severity));
  set(d, "status_counts",
      counts(
          links, gotchas, kStatuses, [](const Record& r) { return to_string(r.status); },
          &SearchParams::status));
  // Records without `created` count as new on the last day they are known to have changed.
  set(d, "newest", item_list(newest_by(v, links, gotchas, [&](const Record& r) {
        return r.created.empty() ? changed_on(v, r) : r.created.str();
      })));
  // Not "verified": each item of the other lists would find it in the outer context.
  set(d, "recently_verified", item_list(newest_by(v, links, gotchas, [&](const Record& r) {
        return verified_as_of(v, r);
      })));
  List engines, oracles;
  std::vector<std::pair<std::size_t, const Record*>> engine_counts;
  for (const auto& r : v.corpus.records()) {
    if (r->kind != Kind::engine && r->kind != Kind::oracle) continue;
    const auto refs = v.referencing(r->id);
    const auto n = static_cast<std::size_t>(std::count_if(
        refs.begin(), refs.end(), [](const Record* x) { return x->kind == Kind::gotcha; }));
    if (r->kind == Kind::engine) engine_counts.emplace_back(n, r.get());
    Data e;
    set(e, "name", std::string(display_name(*r)));
    set(e, "href", links.page(r->id));
    set(e, "count", std::to_string(n));
    (r->kind == Kind::engine ? engines : oracles).push_back(std::move(e));
  }
  set(d, "engines", std::move(engines));
  set(d, "oracles", std::move(oracles));
  bool more_engines = false;
  List lede = lede_engines(std::move(engine_counts), more_engines);
  set(d, "has_lede_engines", !lede.empty());
  set(d, "lede_engines", std::move(lede));
  set(d, "lede_more", more_engines);
  set(d, "silent_count",
      std::to_string(std::count_if(gotchas.begin(), gotchas.end(),
                                   [](const Record* g) { return is_silent(*g); })));
  set(d, "by_family", object_of("groups", groups_by_family(v, links, gotchas)));
  set(d, "by_engine", object_of("groups", groups_by_engine(v, links, gotchas)));
  // The vocabulary, each entry with how many gotchas test it.
  const SettingUses& tested = gotchas_by_setting(v);
  List settings, models;
  for (const auto& r : v.corpus.records()) {
    if (r->kind != Kind::setting && r->kind != Kind::model) continue;
    std::set<std::string> ids;
    auto count_setting = [&](const std::string& setting) {
      if (auto it = tested.find(setting); it != tested.end()) {
        for (const auto& [g, texts] : it->second) ids.insert(g->id);
      }
    };
    if (r->kind == Kind::setting) count_setting(r->id);
    for (const auto& kv : r->traits) count_setting(target_id(v, kv.key, Kind::setting));
    Data e;
    set(e, "name",
        r->kind == Kind::setting ? r->setting->key.str() : std::string(display_name(*r)));
    set(e, "href", links.page(r->id));
    set(e, "count", std::to_string(ids.size()));
    (r->kind == Kind::setting ? settings : models).push_back(std::move(e));
  }
  set(d, "settings", std::move(settings));
  set(d, "models", std::move(models));
  const auto errors = count_severity(v.diagnostics, Severity::error);
  const auto warnings = count_severity(v.diagnostics, Severity::warning);
  set(d, "errors", std::to_string(errors));
  set(d, "warnings", std::to_string(warnings));
  set(d, "has_problems", errors + warnings > 0);
  return impl_->templates.render("home", d);
}

std::string Renderer::diagnostics(const View& v) const {
  const Links links(impl_->style, 0);
  Data d = page_data(links, "Diagnostics");
  List rows;
  for (const auto& diag : v.diagnostics) {
    Data row;
    set(row, "severity", std::string(to_string(diag.severity)));
    set(row, "code", diag.code);
    std::string where = diag.file;
    // Appended in two steps: GCC 12 warns (-Wrestrict) on the inlined `":" + std::string`.
    if (diag.line > 0) where.append(":").append(std::to_string(diag.line));
    if (diag.line > 0 && diag.column > 0) where.append(":").append(std::to_string(diag.column));
    set(row, "where", where);
    set(row, "message", diag.message);
    put(row, "hint", diag.hint);
    const Record* r = diag.record.empty() ? nullptr : v.corpus.find(diag.record);
    if (r != nullptr) {
      set(row, "record", r->id.str());
      set(row, "record_href", links.page(r->id));
    }
    rows.push_back(std::move(row));
  }
  set(d, "has_rows", !rows.empty());
  set(d, "rows", std::move(rows));
  set(d, "records", std::to_string(v.corpus.records().size()));
  set(d, "errors", std::to_string(count_severity(v.diagnostics, Severity::error)));
  set(d, "warnings", std::to_string(count_severity(v.diagnostics, Severity::warning)));
  set(d, "notes", std::to_string(count_severity(v.diagnostics, Severity::note)));
  return impl_->templates.render("diagnostics", d);
}

std::string Renderer::feed(const View& v) const {
  const Links links(impl_->style, 0);
  // The same dates as the API's `published` and `modified` (kb/record_dates.h).
  const std::string kb_date = knowledge_base_date(v.corpus);
  std::vector<std::pair<std::string, const Record*>> entries;
  std::map<const Record*, std::string> published;
  for (const Record* g : gotchas_by_severity(v)) {
    const RecordDates d = record_dates(*g, v.evidence, kb_date);
    entries.emplace_back(d.modified, g);
    published[g] = d.published;
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (entries.size() > kFeedLength) entries.resize(kFeedLength);
  List list;
  for (const auto& [day, g] : entries) {
    Data e;
    set(e, "title", std::string(display_name(*g)));
    set(e, "atom_id", "tag:kb.invalid,2026:" + encode_uri_component(g->id));
    set(e, "updated", day + "T00:00:00Z");
    set(e, "published", published[g] + "T00:00:00Z");
    set(e, "href", links.page(g->id));
    set(e, "severity", std::string(to_string(g->severity)));
    set(e, "status", std::string(to_string(g->status)));
    set(e, "content", render_markdown(v.corpus.whole(*g)->symptom));
    list.push_back(std::move(e));
  }
  Data d;
  set(d, "entries", std::move(list));
  set(d, "updated",
      (entries.empty() ? std::string("1970-01-01") : entries.front().first) + "T00:00:00Z");
  set(d, "home_href", links.home());
  set(d, "feed_href", links.feed());
  return impl_->templates.render("feed", d);
}

}  // namespace kb::pages
