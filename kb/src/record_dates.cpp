#include "kb/record_dates.h"

#include <algorithm>

namespace kb {
namespace {

// Every valid date `r` holds, with the newest result evidencing a gotcha.
std::vector<std::string> dates_of(const Record& r, const EvidenceIndex* evidence) {
  std::vector<std::string> out;
  auto add = [&](const std::string& d) {
    if (date_to_days(d)) out.push_back(d);
  };
  add(r.created);
  add(r.updated);
  add(r.as_of);
  add(r.date);
  for (const auto& c : r.references) {
    add(c.date);
    add(c.as_of);
  }
  for (const auto& rel : r.releases) add(rel.date);
  for (const auto& e : r.repairs) add(e.date);
  if (evidence && r.kind == Kind::gotcha) add(evidence->for_gotcha(r.id).newest_date);
  return out;
}

}  // namespace

std::string knowledge_base_date(const Corpus& corpus) {
  // Evidence only links results, whose own dates are read here already.
  std::string newest = "1970-01-01";
  for (const auto& r : corpus.records()) {
    for (auto& d : dates_of(*r, nullptr)) newest = std::max(newest, d);
  }
  return newest;
}

RecordDates record_dates(const Record& r, const EvidenceIndex& evidence,
                         const std::string& kb_date) {
  const auto dates = dates_of(r, &evidence);
  if (dates.empty()) return {kb_date, kb_date, false};
  RecordDates out;
  out.own = true;
  out.modified = *std::max_element(dates.begin(), dates.end());
  const std::string& own = r.kind == Kind::gotcha ? r.created : r.date;
  out.published = date_to_days(own) ? own : *std::min_element(dates.begin(), dates.end());
  out.published = std::min(out.published, out.modified);
  return out;
}

}  // namespace kb
