// The parts of a gotcha page that say where it stands: the fix chain per engine (where
// "disabled" is shown as what it is, not a fix), how it is detected and what it costs.

#include <iterator>

#include "markdown.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

struct Resolution {
  std::string_view value;
  std::string_view label;
  bool fixed;
};

// What each `resolution` means to an operator. Only `fixed` is a fix.
constexpr Resolution kResolutions[] = {
    {fix_resolution::kFixed, "fixed", true},
    {fix_resolution::kDisabled,
     "disabled, not fixed: the feature is turned off, the bug is still there", false},
    {fix_resolution::kWarned, "warned, not fixed: the engine only warns", false},
    {fix_resolution::kWorkaround, "workaround only, not fixed", false},
    {fix_resolution::kWontfix, "won't fix", false},
    {fix_resolution::kNone, "not fixed", false},
    {fix_resolution::kDocumented, "documented: the docs say how to avoid it, the code is unchanged",
     true},
};
static_assert(std::size(kResolutions) == std::size(fix_resolution::kAll),
              "every resolution the schema table declares has a label");

// Health signals as an operator reads them: each looks fine while the gotcha happens.
constexpr std::pair<std::string_view, std::string_view> kSignals[] = {
    {"http-200", "HTTP 200"},
    {"health-endpoint", "health endpoint OK"},
    {"cached-tokens", "full cached_tokens"},
    {"hit-rate", "normal hit rate"},
    {"finish-reason", "normal finish_reason"},
    {"logs", "clean logs"},
    {"metrics", "normal metrics"},
    {"startup", "clean startup"},
};

List fix_rows(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& f : r.fixes) {
    const std::string value =
        f.resolution.empty() ? std::string(fix_resolution::kNone) : f.resolution.str();
    Resolution res{value, value, false};
    for (const auto& known : kResolutions) {
      if (known.value == value) res = known;
    }
    Data row;
    set(row, "engine", engine_ref(v, links, f.engine));
    set(row, "issues", citation_list(f.issues));
    set(row, "has_issues", !f.issues.empty());
    set(row, "prs", citation_list(f.prs));
    set(row, "has_prs", !f.prs.empty());
    put(row, "fixed_in", f.fixed_in);
    set(row, "resolution", std::string(res.value));
    set(row, "resolution_label", std::string(res.label));
    set(row, "is_fixed", res.fixed);
    put(row, "fix_note", f.note);
    put(row, "cause", f.cause);
    put(row, "cause_affected", f.affected);
    out.push_back(std::move(row));
  }
  return out;
}

Data detection_data(const View& v, const Links& links, const Detection& det) {
  Data d;
  set(d, "silent", det.silent.value_or(false));
  set(d, "not_silent", det.silent.has_value() && !*det.silent);
  List signals;
  for (const auto& s : det.lying_signals) {
    std::string label = s;
    for (const auto& [value, text] : kSignals) {
      if (value == s) label = text;
    }
    Data item;
    set(item, "value", s);
    set(item, "label", label);
    signals.push_back(std::move(item));
  }
  set(d, "has_signals", !signals.empty());
  set(d, "signals", std::move(signals));
  List oracles;
  for (const auto& ref : det.oracles) {
    const std::string id = target_id(v, ref, Kind::oracle);
    const Record* o = id.empty() ? nullptr : v.corpus.find(id);
    Data item;
    set(item, "name", o != nullptr ? std::string(display_name(*o)) : ref.raw.str());
    set(item, "resolved", o != nullptr);
    set(item, "href", o != nullptr ? links.page(id) : std::string());
    oracles.push_back(std::move(item));
  }
  set(d, "has_oracles", !oracles.empty());
  set(d, "oracles", std::move(oracles));
  if (!det.canary.empty()) set(d, "canary", render_markdown(det.canary));
  return d;
}

List impact_rows(const Record& r) {
  List out;
  for (const auto& i : r.impact) {
    Data row;
    set(row, "metric", i.metric.str());
    put(row, "change", i.change);
    put(row, "note", i.note);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

void gotcha_facts(const View& v, const Links& links, const Record& r, Data& d) {
  List fixes = fix_rows(v, links, r);
  set(d, "has_fixes", !fixes.empty());
  set(d, "fixes", std::move(fixes));
  if (r.detection) set(d, "detection", detection_data(v, links, *r.detection));
  List impact = impact_rows(r);
  set(d, "has_impact", !impact.empty());
  set(d, "impact", std::move(impact));
  put(d, "as_of", r.as_of);
  if (!r.confidence.empty()) {
    std::string label = r.confidence;
    for (char& c : label) c = c == '-' ? ' ' : c;
    set(d, "confidence", r.confidence.str());
    set(d, "confidence_label", label);
  }
  List tags;
  for (const auto& t : r.tags) {
    SearchParams p;
    p.q = t;
    Data item;
    set(item, "value", t);
    set(item, "href", links.search(p));
    tags.push_back(std::move(item));
  }
  set(d, "has_tags", !tags.empty());
  set(d, "tags", std::move(tags));
}

}  // namespace kb::pages
