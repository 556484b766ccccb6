#include <map>

#include "markdown.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

List markdown_sections(const Record& r) {
  const std::pair<const char*, const Str*> fields[] = {{"Symptom", &r.symptom},
                                                       {"Root cause", &r.root_cause},
                                                       {"Workaround", &r.workaround},
                                                       {"Notes", &r.notes}};
  const char* anchors[] = {"symptom", "root-cause", "workaround", "notes"};
  List out;
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    if (fields[i].second->empty()) continue;
    Data s;
    s.set("heading", fields[i].first);
    s.set("anchor", anchors[i]);
    s.set("html", render_markdown(*fields[i].second));
    out.push_back(s);
  }
  return out;
}

// One row per result record of each group, newest last, as the groups list them: linked
// groups (a vector) or controls (SharedGroups).
template <class Groups>
List evidence_rows(const View& v, const Links& links, const Groups& groups) {
  List rows;
  for (const auto& g : groups) {
    const Record* oracle = v.corpus.find(g.oracle);
    for (const auto& id : g.results) {
      const Record* r = v.corpus.find(id);
      if (r == nullptr) continue;
      Data row;
      row.set("oracle", oracle != nullptr ? std::string(display_name(*oracle)) : g.oracle);
      row.set("oracle_href", links.page(g.oracle));
      row.set("subject", g.subject);
      row.set("result", id);
      row.set("result_href", links.json(id));
      row.set("passed", std::to_string(r->result->passed));
      row.set("failed", std::to_string(r->result->failed));
      row.set("outcome",
              r->result->failed > 0 ? "failed" : (r->result->passed > 0 ? "passed" : "none"));
      row.set("date", r->result->date.str());
      // What `kb oracle run` measured: where the first divergence was, whether it finished.
      std::string detail;
      if (!r->result->failures.empty()) {
        const Failure& f = r->result->failures.front();
        detail = "first divergence: prompt " + std::to_string(f.prompt) + ", " +
                 (f.compared == "text" ? "character " : "token ") + std::to_string(f.position);
      }
      if (r->result->incomplete)
        detail += std::string(detail.empty() ? "" : "; ") + "interrupted run";
      row.set("detail", detail);
      row.set("has_detail", !detail.empty());
      List sources;
      if (r->result->source) sources.push_back(citation_item(*r->result->source));
      row.set("sources", sources);
      rows.push_back(row);
    }
  }
  return rows;
}

// Related gotchas both ways: those this record lists, and those listing it.
List related_items(const View& v, const Links& links, const Record& r) {
  std::map<std::string, std::pair<bool, bool>> ids;  // id -> (listed here, lists this one)
  List unresolved;
  for (const auto& ref : r.related) {
    const std::string id = target_id(v, ref, Kind::gotcha);
    if (!id.empty() && id != r.id) ids[id].first = true;
  }
  for (const Record* other : v.referencing(r.id)) {
    if (other->kind != Kind::gotcha || other->id == r.id) continue;
    for (const auto& ref : other->related) {
      if (target_id(v, ref, Kind::gotcha) == r.id) ids[other->id].second = true;
    }
  }
  List out;
  for (const auto& [id, dir] : ids) {
    const Record* g = v.corpus.find(id);
    if (g == nullptr) continue;
    Data d = gotcha_item(v, links, *g);
    d.set("direction", dir.first && dir.second ? "both ways"
                       : dir.first             ? "listed here"
                                               : "lists this one");
    out.push_back(d);
  }
  return out;
}

List repair_items(const Record& r) {
  List out;
  for (const auto& e : r.repairs) {
    Data d;
    d.set("date", e.date.str());
    d.set("field", e.field.str());
    d.set("from", e.from.str());
    d.set("to", e.to.str());
    d.set("reason", e.reason.str());
    if (e.confidence > 0) d.set("confidence", std::to_string(e.confidence).substr(0, 4));
    out.push_back(d);
  }
  return out;
}

List oracle_items(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& ref : r.oracles) {
    const std::string id = target_id(v, ref, Kind::oracle);
    const Record* o = id.empty() ? nullptr : v.corpus.find(id);
    Data d;
    d.set("name", o != nullptr ? std::string(display_name(*o)) : ref.raw.str());
    d.set("resolved", o != nullptr);
    d.set("href", o != nullptr ? links.page(id) : std::string());
    out.push_back(d);
  }
  return out;
}

}  // namespace

std::string render_gotcha(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  const EvidenceSummary& e = v.evidence.for_gotcha(r.id);
  Data d = page_data(links, display_name(r));
  d.set("gotcha", gotcha_item(v, links, r));
  put(d, "category", r.category);
  put(d, "family", r.family);
  List affects;
  for (const auto& ref : r.affects) affects.push_back(engine_ref(v, links, ref));
  d.set("affects", affects);
  d.set("has_affects", !r.affects.empty());
  if (r.applies_when) d.set("applies_when", predicate_clauses(v, links, *r.applies_when));
  d.set("has_applies_when", r.applies_when.has_value());
  gotcha_facts(v, links, r, d);
  d.set("sections", markdown_sections(r));
  const List rows = evidence_rows(v, links, e.groups);
  const List controls = evidence_rows(v, links, e.controls);
  d.set("evidence_rows_data", Data("rows", rows));
  d.set("has_evidence", !rows.empty());
  d.set("control_rows_data", Data("rows", controls));
  d.set("has_controls", !controls.empty());
  if (e.controls_omitted > 0) d.set("controls_omitted", std::to_string(e.controls_omitted));
  const List related = related_items(v, links, r);
  d.set("related", item_list(related));
  const List oracles = oracle_items(v, links, r);
  d.set("oracles", oracles);
  d.set("has_oracles", !oracles.empty());
  List refs;
  for (const auto& c : r.references) refs.push_back(citation_item(c));
  d.set("references", refs);
  d.set("has_references", !r.references.empty());
  d.set("repairs", repair_items(r));
  d.set("has_repairs", !r.repairs.empty());
  d.set("source_href", links.source(r.id));
  d.set("source_file", r.file.str());
  d.set("json_href", links.json(r.id));
  put(d, "created", r.created);
  put(d, "updated", r.updated);
  return impl.templates.render("gotcha", d);
}

}  // namespace kb::pages
