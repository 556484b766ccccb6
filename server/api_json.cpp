#include "evidence_json.h"
#include "http_api.h"
#include "json.h"
#include "kb/record_dates.h"
#include "kb/resolver.h"

namespace kb::http {

using nlohmann::json;

std::string api_url(std::string_view id) {
  return "/api/v1/" + std::string(id);
}

json record_link(const Record& r) {
  return {{"id", r.id},
          {"type", kind_name(r.kind)},
          {"title", std::string(display_name(r))},
          {"url", api_url(r.id)}};
}

json gotcha_summary(const Snapshot& snap, const Record& r) {
  const auto& corpus = snap.corpus();
  json engines = json::array();
  for (const auto& a : r.affects) {
    if (auto id = corpus.target(Kind::engine, a.raw)) engines.push_back(*id);
  }
  const EvidenceSummary& ev = snap.evidence().for_gotcha(r.id);
  json j = {{"id", r.id},
            {"title", r.title},
            {"severity", std::string(to_string(r.severity))},
            {"status", std::string(to_string(r.status))},
            {"engines", std::move(engines)},
            {"evidence", {{"state", to_string(ev.state)}, {"summary", summary_line(ev)}}},
            {"url", api_url(r.id)}};
  if (!r.category.empty()) j["kind"] = r.category;
  if (!r.family.empty()) j["family"] = r.family;
  if (!r.updated.empty()) j["updated"] = r.updated;
  if (corpus.is_stale(r.id)) j["stale"] = true;
  return j;
}

namespace {

// Which fields of `from` name `id`, e.g. ["affects[0]", "applies_when.all[1].engine"].
json referencing_fields(const Corpus& corpus, const Record& from, std::string_view id) {
  json fields = json::array();
  for (const auto& slot : reference_slots(from)) {
    auto target = corpus.target(slot.target, slot.ref->raw);
    if (target && *target == id) fields.push_back(slot.ref->field);
  }
  return fields;
}

}  // namespace

json record_detail(const Snapshot& snap, const Record& r) {
  const auto& corpus = snap.corpus();
  json j = kb::json::record(corpus, r, snap.evidence());
  j["url"] = api_url(r.id);
  j["stale"] = corpus.is_stale(r.id);
  put_dates(snap, r, j);
  json referenced_by = json::array();
  json related_by = json::array();
  json gotchas = json::array();
  json results = json::array();
  for (const Record* from : snap.referencing(r.id)) {
    json link = record_link(*from);
    link["fields"] = referencing_fields(corpus, *from, r.id);
    referenced_by.push_back(link);
    if (from->kind == Kind::gotcha && r.kind == Kind::gotcha)
      related_by.push_back(record_link(*from));
    if (from->kind == Kind::gotcha && r.kind == Kind::engine)
      gotchas.push_back(gotcha_summary(snap, *from));
    if (from->kind == Kind::result && r.kind == Kind::oracle) results.push_back(record_link(*from));
  }
  j["referenced_by"] = std::move(referenced_by);
  switch (r.kind) {
    case Kind::gotcha:
      j["related_by"] = std::move(related_by);
      break;
    case Kind::engine:
      j["gotchas"] = std::move(gotchas);
      break;
    case Kind::oracle:
      j["results"] = std::move(results);
      break;
    case Kind::result:
    case Kind::setting:
    case Kind::model:
      break;
  }
  return j;
}

void put_dates(const Snapshot& snap, const Record& r, json& j) {
  const RecordDates d = record_dates(r, snap.evidence(), snap.knowledge_base_date());
  j["published"] = d.published;
  j["modified"] = d.modified;
}

json candidates_json(const Snapshot& snap, Kind kind, std::string_view raw) {
  json out = json::array();
  for (const auto& c : snap.corpus().names().candidates(kind, raw, 5)) {
    json item = {{"id", c.id}, {"score", c.score}, {"url", api_url(c.id)}};
    if (const Record* r = snap.corpus().find(c.id)) item["title"] = std::string(display_name(*r));
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace kb::http
