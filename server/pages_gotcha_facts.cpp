// The parts of a gotcha page that say where it stands: the fix chain per engine (where
// "disabled" is shown as what it is, not a fix), how it is detected and what it costs.

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
    {"fixed", "fixed", true},
    {"disabled", "disabled, not fixed: the feature is turned off, the bug is still there", false},
    {"warned", "warned, not fixed: the engine only warns", false},
    {"workaround", "workaround only, not fixed", false},
    {"wontfix", "won't fix", false},
    {"none", "not fixed", false},
};

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
    const std::string value = f.resolution.empty() ? "none" : f.resolution;
    Resolution res{value, value, false};
    for (const auto& known : kResolutions) {
      if (known.value == value) res = known;
    }
    Data row;
    row.set("engine", engine_ref(v, links, f.engine));
    row.set("issues", citation_list(f.issues));
    row.set("has_issues", !f.issues.empty());
    row.set("prs", citation_list(f.prs));
    row.set("has_prs", !f.prs.empty());
    put(row, "fixed_in", f.fixed_in);
    row.set("resolution", std::string(res.value));
    row.set("resolution_label", std::string(res.label));
    row.set("is_fixed", res.fixed);
    put(row, "fix_note", f.note);
    out.push_back(row);
  }
  return out;
}

Data detection_data(const View& v, const Links& links, const Detection& det) {
  Data d;
  d.set("silent", det.silent.value_or(false));
  d.set("not_silent", det.silent.has_value() && !*det.silent);
  List signals;
  for (const auto& s : det.lying_signals) {
    std::string label = s;
    for (const auto& [value, text] : kSignals) {
      if (value == s) label = text;
    }
    Data item;
    item.set("value", s);
    item.set("label", label);
    signals.push_back(item);
  }
  d.set("signals", signals);
  d.set("has_signals", !signals.empty());
  List oracles;
  for (const auto& ref : det.oracles) {
    const std::string id = target_id(v, ref, Kind::oracle);
    const Record* o = id.empty() ? nullptr : v.corpus.find(id);
    Data item;
    item.set("name", o != nullptr ? std::string(display_name(*o)) : ref.raw.str());
    item.set("resolved", o != nullptr);
    item.set("href", o != nullptr ? links.page(id) : std::string());
    oracles.push_back(item);
  }
  d.set("oracles", oracles);
  d.set("has_oracles", !oracles.empty());
  if (!det.canary.empty()) d.set("canary", render_markdown(det.canary));
  return d;
}

List impact_rows(const Record& r) {
  List out;
  for (const auto& i : r.impact) {
    Data row;
    row.set("metric", i.metric.str());
    put(row, "change", i.change);
    put(row, "note", i.note);
    out.push_back(row);
  }
  return out;
}

}  // namespace

void gotcha_facts(const View& v, const Links& links, const Record& r, Data& d) {
  const List fixes = fix_rows(v, links, r);
  d.set("fixes", fixes);
  d.set("has_fixes", !fixes.empty());
  if (r.detection) d.set("detection", detection_data(v, links, *r.detection));
  const List impact = impact_rows(r);
  d.set("impact", impact);
  d.set("has_impact", !impact.empty());
  put(d, "as_of", r.as_of);
  if (!r.confidence.empty()) {
    std::string label = r.confidence;
    for (char& c : label) c = c == '-' ? ' ' : c;
    d.set("confidence", r.confidence.str());
    d.set("confidence_label", label);
  }
  List tags;
  for (const auto& t : r.tags) {
    SearchParams p;
    p.q = t;
    Data item;
    item.set("value", t);
    item.set("href", links.search(p));
    tags.push_back(item);
  }
  d.set("tags", tags);
  d.set("has_tags", !tags.empty());
}

}  // namespace kb::pages
