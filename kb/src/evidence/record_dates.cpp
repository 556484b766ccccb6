#include "kb/record_dates.h"

#include <algorithm>

namespace kb {
namespace {

// Calls `add` with every date field of `r` (valid or not), with the newest result
// evidencing a gotcha.
template <class Add>
void each_date(const Record& r, const EvidenceIndex* evidence, Add&& add) {
  add(r.created);
  add(r.updated);
  add(r.as_of);
  add(r.result->date);
  if (r.kept_reference_dates || !r.references.empty()) {
    const CitationDates cited = reference_dates(r);
    add(cited.earliest);
    add(cited.latest);
  }
  for (const auto& rel : r.engine->releases) add(rel.date);
  for (const auto& e : r.repairs) add(e.date);
  if (evidence && r.kind == Kind::gotcha) add(evidence->for_gotcha(r.id).newest_date);
}

// The newest valid date of `r` (evidence aside) if newer than `floor`, else `floor`.
std::string_view newest_in(const Record& r, std::string_view floor) {
  std::string_view newest = floor;
  each_date(r, nullptr, [&](std::string_view d) {
    if (d > newest && date_to_days(d)) newest = d;
  });
  return newest;
}

// Every valid date `r` holds, with the newest result evidencing a gotcha.
std::vector<std::string> dates_of(const Record& r, const EvidenceIndex* evidence) {
  std::vector<std::string> out;
  each_date(r, evidence, [&](std::string_view d) {
    if (date_to_days(d)) out.emplace_back(d);
  });
  return out;
}

}  // namespace

std::string knowledge_base_date(const Corpus& corpus) {
  // Evidence only links results, whose own dates are read here already.
  // Compared in place, a date checked only when it would be the newest: this reads every
  // record (a copy per date cost ~50 ms at 100k records).
  std::string_view newest = "1970-01-01";
  for (const auto& r : corpus.records()) newest = std::max(newest, newest_in(*r, newest));
  return std::string(newest);
}

std::string newest_date(const Record& r) {
  return std::string(newest_in(r, ""));
}

RecordDates record_dates(const Record& r, const EvidenceIndex& evidence,
                         const std::string& kb_date) {
  const auto dates = dates_of(r, &evidence);
  if (dates.empty()) return {kb_date, kb_date, false};
  RecordDates out;
  out.own = true;
  out.modified = *std::max_element(dates.begin(), dates.end());
  const std::string& own = r.kind == Kind::gotcha ? r.created : r.result->date;
  out.published = date_to_days(own) ? own : *std::min_element(dates.begin(), dates.end());
  out.published = std::min(out.published, out.modified);
  return out;
}

}  // namespace kb
