#include <map>
#include <set>

#include "kb/text.h"
#include "markdown.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

void record_files(Data& d, const Links& links, const Record& r) {
  set(d, "source_href", links.source(r.id));
  set(d, "source_file", r.file.str());
  set(d, "json_href", links.json(r.id));
}

void prose(Data& d, const std::string& key, const std::string& markdown) {
  if (!markdown.empty()) set(d, key, render_markdown(markdown));
}

// Gotchas naming the engine, grouped by family, silent first; each item's range is the
// version range its `affects` entry gives.
List engine_groups(const View& v, const Links& links, const Record& engine) {
  std::vector<const Record*> gotchas;
  for (const Record* g : v.referencing(engine.id)) {
    if (g->kind == Kind::gotcha) gotchas.push_back(g);
  }
  return groups_by_family(v, links, gotchas, [&](const Record& g) {
    std::string range;
    for (const auto& ref : g.affects) {
      if (target_id(v, ref, Kind::engine) == engine.id && !ref.versions.empty())
        range = ref.versions;
    }
    return range;
  });
}

std::string engine_name(const View& v, const std::string& slug) {
  const Record* e = v.corpus.find("engines/" + slug);
  return e != nullptr ? std::string(display_name(*e)) : slug;
}

// Rows: the subject without versions; columns: the versions it ran at.
Data results_matrix(const View& v, const Record& oracle) {
  struct Cell {
    std::int64_t passed = 0, failed = 0, runs = 0;
  };
  std::map<std::string, std::map<std::string, Cell>> cells;
  std::set<std::string> columns;
  for (const auto& id : v.evidence.results_for_oracle(oracle.id)) {
    const Record* r = v.corpus.find(id);
    if (r == nullptr) continue;
    std::string row, column;
    for (const auto& ref : r->result->subject.engines) {
      const std::string target = target_id(v, ref, Kind::engine);
      const std::string name =
          target.empty() ? ref.raw.str() : engine_name(v, std::string(text::id_slug(target)));
      row += (row.empty() ? "" : " + ") + name;
      if (!ref.versions.empty()) column += (column.empty() ? "" : ", ") + name + " " + ref.versions;
    }
    for (std::size_t i = 0; i < r->result->subject.config.size(); ++i) {
      row += (i == 0 ? " · " : ", ") + r->result->subject.config[i].first + "=" +
             r->result->subject.config[i].second;
    }
    if (column.empty()) column = "unversioned";
    Cell& c = cells[row][column];
    c.passed += r->result->passed;
    c.failed += r->result->failed;
    ++c.runs;
    columns.insert(column);
  }
  List header, rows;
  for (const auto& c : columns) header.push_back(object_of("name", c));
  for (const auto& [subject, by_column] : cells) {
    List row_cells;
    for (const auto& column : columns) {
      Data cell;
      auto it = by_column.find(column);
      if (it != by_column.end()) {
        const Cell& c = it->second;
        set(cell, "passed", std::to_string(c.passed));
        set(cell, "failed", std::to_string(c.failed));
        set(cell, "runs", std::to_string(c.runs) + (c.runs == 1 ? " run" : " runs"));
        set(cell, "outcome", c.failed > 0 ? "failed" : (c.passed > 0 ? "passed" : "none"));
      }
      row_cells.push_back(std::move(cell));
    }
    Data row;
    set(row, "subject", subject);
    set(row, "cells", std::move(row_cells));
    rows.push_back(std::move(row));
  }
  Data m;
  set(m, "columns", std::move(header));
  set(m, "has_rows", !rows.empty());
  set(m, "rows", std::move(rows));
  return m;
}

// Gotchas that name the oracle, or that its results are evidence for.
List oracle_gotchas(const View& v, const Links& links, const Record& oracle) {
  std::set<std::string> ids;
  for (const Record* r : v.referencing(oracle.id)) {
    if (r->kind == Kind::gotcha) ids.insert(r->id);
    if (r->kind != Kind::result) continue;
    for (const auto& ref : r->result->evidence_for) {
      const std::string id = target_id(v, ref, Kind::gotcha);
      if (!id.empty()) ids.insert(id);
    }
  }
  List out;
  for (const auto& id : ids) {
    if (const Record* g = v.corpus.find(id)) out.push_back(gotcha_item(v, links, *g));
  }
  return out;
}

}  // namespace

std::string render_engine(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  Data d = page_data(links, display_name(r));
  set(d, "name", std::string(display_name(r)));
  set(d, "id", r.id.str());
  put(d, "category", r.category);
  if (!r.engine->repo.empty()) {
    set(d, "repo", r.engine->repo.str());
    set(d, "repo_href", "https://github.com/" + encode_uri_path(r.engine->repo));
  }
  if (is_web_url(r.engine->url)) set(d, "url", r.engine->url.str());
  set(d, "aliases", value_list(r.aliases));
  set(d, "has_aliases", !r.aliases.empty());
  prose(d, "description", r.description);
  prose(d, "notes", r.notes);
  List refs = citation_list(r.references);
  set(d, "has_references", !refs.empty());
  set(d, "references", std::move(refs));
  List groups = engine_groups(v, links, r);
  set(d, "has_groups", !groups.empty());
  set(d, "groups", std::move(groups));
  engine_facts(v, links, r, d);
  record_files(d, links, r);
  return impl.templates.render("engine", d);
}

std::string render_oracle(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  Data d = page_data(links, display_name(r));
  set(d, "title", std::string(display_name(r)));
  set(d, "id", r.id.str());
  prose(d, "method", r.method);
  prose(d, "pass_criterion", r.pass_criterion);
  prose(d, "notes", r.notes);
  if (r.runner) {
    std::string params;
    for (const auto& [k, val] : r.runner->params)
      params += (params.empty() ? "" : ", ") + k + ": " + val;
    set(d, "runner", r.runner->kind + (params.empty() ? "" : " (" + params + ")"));
  }
  set(d, "has_runner", r.runner.has_value());
  set(d, "slug", std::string(text::id_slug(r.id)));
  set(d, "matrix", results_matrix(v, r));
  set(d, "gotchas", item_list(oracle_gotchas(v, links, r)));
  List refs = citation_list(r.references);
  set(d, "has_references", !refs.empty());
  set(d, "references", std::move(refs));
  record_files(d, links, r);
  return impl.templates.render("oracle", d);
}

// A result: what was run, what it found in words, and where the figures come from (a
// run of `kb oracle run` here, or transcribed from an upstream report).
std::string render_result(const Renderer::Impl& impl, const View& v, const Record& r) {
  const Links links(impl.style, depth_of(r.id));
  Data d = page_data(links, display_name(r));
  set(d, "title", std::string(display_name(r)));
  set(d, "id", r.id.str());
  const ResultInfo& res = *r.result;
  const std::string oracle_id = target_id(v, res.oracle, Kind::oracle);
  const Record* oracle = oracle_id.empty() ? nullptr : v.corpus.find(oracle_id);
  set(d, "oracle", oracle != nullptr ? std::string(display_name(*oracle)) : res.oracle.raw.str());
  put(d, "oracle_href", oracle != nullptr ? links.page(oracle_id) : std::string());
  put(d, "date", res.date.str());
  List engines;
  for (const auto& ref : res.subject.engines) engines.push_back(engine_ref(v, links, ref));
  set(d, "engines", std::move(engines));
  List config;
  for (const auto& [k, val] : res.subject.config) {
    Data item;
    set(item, "key", k);
    set(item, "value", val);
    config.push_back(std::move(item));
  }
  set(d, "has_config", !config.empty());
  set(d, "config", std::move(config));
  put(d, "model", res.subject.model.str());
  const std::int64_t cases = res.passed + res.failed + res.errors;
  set(d, "passed", std::to_string(res.passed));
  set(d, "failed", std::to_string(res.failed));
  set(d, "errors", std::to_string(res.errors));
  set(d, "skipped", std::to_string(res.skipped));
  set(d, "outcome", res.failed > 0 ? "failed" : (res.passed > 0 ? "passed" : "none"));
  // "10/10 failed" in words: what a case is and what failing means comes from the oracle.
  std::string verdict = std::to_string(res.failed) + " of " + std::to_string(cases) +
                        (cases == 1 ? " case" : " cases") + " failed the oracle's pass criterion";
  if (res.errors > 0) verdict += ", " + std::to_string(res.errors) + " could not run";
  if (res.skipped > 0) verdict += ", " + std::to_string(res.skipped) + " were skipped";
  verdict += res.failed > 0 ? ": the gotcha reproduced on this subject."
                            : ": the gotcha did not reproduce on this subject.";
  if (res.incomplete) verdict += " The run was interrupted; the counts cover part of it.";
  set(d, "verdict", verdict);
  if (oracle != nullptr) prose(d, "pass_criterion", oracle->pass_criterion);
  if (res.source) {
    set(d, "transcribed", true);
    set(d, "source", citation_item(*res.source));
  } else {
    set(d, "measured", true);
  }
  List failures;
  for (const Failure& f : res.failures) {
    Data item;
    set(item, "prompt", std::to_string(f.prompt));
    set(item, "position", std::to_string(f.position));
    put(item, "trial", f.trial > 0 ? std::to_string(f.trial) : std::string());
    put(item, "run", f.run > 0 ? std::to_string(f.run) : std::string());
    set(item, "compared", f.compared.empty() ? std::string("tokens") : f.compared.str());
    put(item, "expected", f.expected.str());
    put(item, "got", f.got.str());
    failures.push_back(std::move(item));
  }
  set(d, "has_failures", !failures.empty());
  set(d, "failures", std::move(failures));
  List gotchas;
  for (const auto& ref : res.evidence_for) {
    const std::string id = target_id(v, ref, Kind::gotcha);
    if (const Record* g = id.empty() ? nullptr : v.corpus.find(id)) {
      gotchas.push_back(gotcha_item(v, links, *g));
    }
  }
  set(d, "gotchas", item_list(std::move(gotchas)));
  prose(d, "notes", r.notes);
  List refs = citation_list(r.references);
  set(d, "has_references", !refs.empty());
  set(d, "references", std::move(refs));
  record_files(d, links, r);
  return impl.templates.render("result", d);
}

}  // namespace kb::pages
