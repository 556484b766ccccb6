#include <map>

#include "kb/text.h"
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
    set(s, "heading", fields[i].first);
    set(s, "anchor", anchors[i]);
    set(s, "html", render_markdown(*fields[i].second));
    out.push_back(std::move(s));
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
      set(row, "oracle", oracle != nullptr ? std::string(display_name(*oracle)) : g.oracle);
      set(row, "oracle_href", links.page(g.oracle));
      set(row, "subject", g.subject);
      set(row, "result", id);
      set(row, "result_href", links.page(id));
      set(row, "passed", std::to_string(r->result->passed));
      set(row, "failed", std::to_string(r->result->failed));
      set(row, "outcome",
          r->result->failed > 0 ? "failed" : (r->result->passed > 0 ? "passed" : "none"));
      set(row, "date", r->result->date.str());
      // What `kb oracle run` measured: where the first divergence was, whether it finished.
      std::string detail;
      if (!r->result->failures.empty()) {
        const Failure& f = r->result->failures.front();
        detail = "first divergence: prompt " + std::to_string(f.prompt) + ", " +
                 (f.compared == failure_compared::kText ? "character " : "token ") +
                 std::to_string(f.position);
      }
      if (r->result->incomplete)
        detail += std::string(detail.empty() ? "" : "; ") + "interrupted run";
      set(row, "detail", detail);
      set(row, "has_detail", !detail.empty());
      List sources;
      if (r->result->source) sources.push_back(citation_item(*r->result->source));
      set(row, "sources", std::move(sources));
      rows.push_back(std::move(row));
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
    set(d, "direction",
        dir.first && dir.second ? "both ways"
        : dir.first             ? "listed here"
                                : "lists this one");
    out.push_back(std::move(d));
  }
  return out;
}

List repair_items(const Record& r) {
  List out;
  for (const auto& e : r.repairs) {
    Data d;
    set(d, "date", e.date.str());
    set(d, "field", e.field.str());
    set(d, "from", e.from.str());
    set(d, "to", e.to.str());
    set(d, "reason", e.reason.str());
    if (e.confidence > 0) set(d, "confidence", std::to_string(e.confidence).substr(0, 4));
    out.push_back(std::move(d));
  }
  return out;
}

List oracle_items(const View& v, const Links& links, const Record& r) {
  List out;
  for (const auto& ref : r.oracles) {
    const std::string id = target_id(v, ref, Kind::oracle);
    const Record* o = id.empty() ? nullptr : v.corpus.find(id);
    Data d;
    set(d, "name", o != nullptr ? std::string(display_name(*o)) : ref.raw.str());
    set(d, "resolved", o != nullptr);
    set(d, "href", o != nullptr ? links.page(id) : std::string());
    out.push_back(std::move(d));
  }
  return out;
}

// The first sentence of a paragraph: up to a '.', '!' or '?' followed by a blank and a
// capital letter, a backquote or a link (not "e.g. the", not "0.26.0"); the whole
// paragraph when it has one sentence.
std::string_view first_sentence(std::string_view p) {
  for (std::size_t i = 0; i + 2 < p.size(); ++i) {
    const char c = p[i];
    if (c != '.' && c != '!' && c != '?') continue;
    if (p[i + 1] != ' ' && p[i + 1] != '\n') continue;
    std::size_t j = i + 1;
    while (j < p.size() && (p[j] == ' ' || p[j] == '\n')) ++j;
    if (j >= p.size()) break;
    const char n = p[j];
    const bool starts = (n >= 'A' && n <= 'Z') || n == '`' || n == '[' || n == '*';
    const bool abbreviation =
        i >= 3 && (p.substr(i - 3, 3) == "e.g" || p.substr(i - 3, 3) == "i.e");
    if (starts && !abbreviation) return p.substr(0, i + 1);
  }
  return p;
}

// What the fix chain of `engine` says in words: "fixed in 0.28.0", "no fix yet", ...
std::string fix_words(const View& v, const Record& r, const std::string& engine_id) {
  // One phrase per chain of the engine; a gotcha with several causes names each.
  std::string out;
  for (const FixChain& f : r.fixes) {
    if (target_id(v, f.engine, Kind::engine) != engine_id) continue;
    const std::string_view res = f.resolution.empty() && !f.fixed_in.empty()
                                     ? fix_resolution::kFixed
                                     : std::string_view(f.resolution.str());
    const std::string in = f.fixed_in.empty() ? std::string() : " in " + f.fixed_in.str();
    std::string words =
        res == fix_resolution::kFixed        ? "fixed" + in
        : res == fix_resolution::kDisabled   ? "feature turned off" + in + " (not a fix)"
        : res == fix_resolution::kWarned     ? "warns" + in + " (not a fix)"
        : res == fix_resolution::kWorkaround ? "workaround only" + in
        : res == fix_resolution::kWontfix    ? std::string("will not fix")
        : res == fix_resolution::kDocumented ? "documented" + in + " (avoid it as the docs say)"
                                             : std::string("no fix yet");
    if (!f.cause.empty()) words = f.cause.str() + ": " + words;
    if (!out.empty()) out += "; ";
    out += words;
    if (f.cause.empty()) break;
  }
  if (!out.empty()) return out;
  if (r.status == GotchaStatus::fixed) return "fixed (version not recorded)";
  if (r.status == GotchaStatus::stale) return "no fix: closed upstream as stale";
  if (r.status == GotchaStatus::unknown) return "not known whether it still happens";
  return "no fix yet";
}

// The page's first screen: how bad, who is hit and what fixes it, the first thing to do.
Data act_now(const View& v, const Links& links, const Record& r) {
  Data d;
  const std::string sev(to_string(r.severity));
  const char* words = sev == "blocker" ? "Blocker: fail the rollout that has it"
                      : sev == "major" ? "Major: fix it before it bites"
                      : sev == "minor" ? "Minor: fix it when convenient"
                                       : "Info: worth knowing";
  set(d, "severity", sev);
  set(d, "severity_words", words);
  set(d, "status", std::string(to_string(r.status)));
  List engines;
  for (const auto& ref : r.affects) {
    Data e = engine_ref(v, links, ref);
    set(e, "fix", fix_words(v, r, target_id(v, ref, Kind::engine)));
    engines.push_back(std::move(e));
  }
  set(d, "has_engines", !engines.empty());
  set(d, "engines", std::move(engines));
  // The workaround's first sentence (the rest is under Workaround, linked).
  std::string_view w = text::trim(r.workaround.view());
  if (const auto blank = w.find("\n\n"); blank != std::string_view::npos) w = w.substr(0, blank);
  const std::string_view first = first_sentence(w);
  if (!first.empty()) {
    set(d, "first_step", render_markdown(first));
    set(d, "more", first.size() < w.size());
  }
  return d;
}

}  // namespace

std::string render_gotcha(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  const EvidenceSummary& e = v.evidence.for_gotcha(r.id);
  Data d = page_data(links, display_name(r));
  set(d, "gotcha", gotcha_item(v, links, r));
  set(d, "act_now", act_now(v, links, r));
  put(d, "category", r.category);
  put(d, "family", r.family);
  List affects;
  for (const auto& ref : r.affects) affects.push_back(engine_ref(v, links, ref));
  set(d, "affects", std::move(affects));
  set(d, "has_affects", !r.affects.empty());
  if (r.applies_when) set(d, "applies_when", predicate_clauses(v, links, *r.applies_when));
  set(d, "has_applies_when", r.applies_when.has_value());
  gotcha_facts(v, links, r, d);
  set(d, "sections", markdown_sections(r));
  const List rows = evidence_rows(v, links, e.groups);
  const List controls = evidence_rows(v, links, e.controls);
  set(d, "evidence_rows_data", object_of("rows", rows));
  set(d, "has_evidence", !rows.empty());
  set(d, "control_rows_data", object_of("rows", controls));
  set(d, "has_controls", !controls.empty());
  if (e.controls_omitted > 0) set(d, "controls_omitted", std::to_string(e.controls_omitted));
  const List related = related_items(v, links, r);
  set(d, "related", item_list(std::move(related)));
  List oracles = oracle_items(v, links, r);
  set(d, "has_oracles", !oracles.empty());
  set(d, "oracles", std::move(oracles));
  List refs;
  for (const auto& c : r.references) refs.push_back(citation_item(c));
  set(d, "references", std::move(refs));
  set(d, "has_references", !r.references.empty());
  set(d, "repairs", repair_items(r));
  set(d, "has_repairs", !r.repairs.empty());
  set(d, "source_href", links.source(r.id));
  set(d, "source_file", r.file.str());
  set(d, "json_href", links.json(r.id));
  put(d, "created", r.created);
  put(d, "updated", r.updated);
  return impl.templates.render("gotcha", d);
}

}  // namespace kb::pages
