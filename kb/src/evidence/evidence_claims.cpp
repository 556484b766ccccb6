#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "corpus/claim_phrases.h"
#include "evidence/evidence_internal.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/record_dates.h"
#include "kb/version.h"

namespace kb {
namespace {

using evidence_detail::find_phrase;
using evidence_detail::offset_to_pos;
using evidence_detail::top_level_key_offset;
using evidence_detail::top_level_key_pos;

}  // namespace

namespace {

struct TextField {
  std::string_view key;
  const Str* text;
};

Diagnostic make(Severity sev, std::string code, const Record& r, Pos pos, std::string message,
                std::string hint) {
  Diagnostic d;
  d.severity = sev;
  d.code = std::move(code);
  d.file = r.file;
  d.line = pos.line;
  d.column = pos.column;
  d.message = std::move(message);
  d.hint = std::move(hint);
  d.record = r.id;
  return d;
}

std::string list_ids(const std::vector<std::string>& ids) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(ids.size(), 3);
  for (std::size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + ids[i];
  if (ids.size() > shown) out += " and " + std::to_string(ids.size() - shown) + " more";
  return out;
}

void check_unreproduced(const Corpus& corpus, const Record& g, const EvidenceSummary& s,
                        std::vector<Diagnostic>& out) {
  if (s.failed == 0) return;
  const std::array<TextField, 5> fields = {{{"title", &g.title},
                                            {"symptom", &g.symptom},
                                            {"root_cause", &g.root_cause},
                                            {"workaround", &g.workaround},
                                            {"notes", &g.notes}}};
  for (const auto& field : fields) {
    // The earliest phrase in the field; the longest where two start together.
    std::optional<std::size_t> first;
    std::string_view phrase;
    if (!may_hold_phrase(*field.text)) continue;
    for (std::string_view p : unreproduced_phrases()) {
      auto at = find_phrase(*field.text, p);
      if (at && (!first || *at < *first)) {
        first = at;
        phrase = p;
      }
    }
    if (!first) continue;
    // Quote the phrase's own position when it is written plainly in the field.
    Pos pos;
    const std::string source = corpus.source_text(g);
    if (auto key_at = top_level_key_offset(source, field.key)) {
      pos = offset_to_pos(source, *key_at);
      std::string_view rest = std::string_view(source).substr(*key_at);
      if (auto at = find_phrase(rest, phrase)) pos = offset_to_pos(source, *key_at + *at);
    }
    std::vector<std::string> failing;
    for (const auto& grp : s.groups) {
      if (grp.failed > 0) failing.insert(failing.end(), grp.results.begin(), grp.results.end());
    }
    std::sort(failing.begin(), failing.end());
    out.push_back(make(Severity::warning, diag_code("evidence.unreproduced-claim"), g, pos,
                       std::string(field.key) + " says \"" + std::string(phrase) +
                           "\" but linked results record " + std::to_string(s.failed) + " failure" +
                           (s.failed == 1 ? "" : "s") + ": " + list_ids(failing),
                       "say that it was reproduced (and revisit severity), or correct the "
                       "results' evidence_for"));
    return;
  }
}

// The version of `engine` a result ran, or "" when it does not name it.
std::optional<std::string> subject_version(const Corpus& corpus, const Record& result,
                                           const std::string& engine) {
  for (const auto& e : result.result->subject.engines) {
    if (corpus.target(Kind::engine, e.raw) == engine) return e.versions;
  }
  return std::nullopt;
}

// Orders candidates for "newest result": highest version (unparseable or absent lowest),
// then latest date, then id.
bool older(const Record& a, const std::string& va, const Record& b, const std::string& vb) {
  auto pa = Version::parse(va), pb = Version::parse(vb);
  if (pa.has_value() != pb.has_value()) return !pa.has_value();
  if (pa && pb) {
    const int c = pa->compare(*pb);
    if (c != 0) return c < 0;
  }
  return std::tie(a.result->date, a.id) < std::tie(b.result->date, b.id);
}

void check_fixed(const Corpus& corpus, const Record& g, const EvidenceSummary& s,
                 std::vector<Diagnostic>& out) {
  if (g.status != GotchaStatus::fixed || s.groups.empty()) return;
  // Affected engine id -> its version ranges ("" when an entry gives none).
  std::map<std::string, std::vector<std::string>> affected;
  for (const auto& a : g.affects) {
    if (auto id = corpus.target(Kind::engine, a.raw)) affected[*id].push_back(a.versions);
  }
  if (affected.empty()) affected[""].push_back("");

  // Looked up only when something is reported: a slim record reads its file back for it.
  std::optional<Pos> status_at;
  auto status_pos = [&] {
    if (!status_at) status_at = top_level_key_pos(corpus.source_text(g), "status");
    return *status_at;
  };
  // One diagnostic per (oracle, result): the most severe of its engines'.
  std::map<std::pair<std::string, std::string>, Diagnostic> found;
  auto report = [&](const std::string& oracle, const Record& r, Diagnostic d) {
    auto [it, inserted] = found.try_emplace({oracle, r.id}, d);
    if (!inserted && d.severity == Severity::error) it->second = std::move(d);
  };
  for (const auto& [engine, ranges] : affected) {
    // Per oracle, the newest result that ran this engine.
    std::map<std::string, std::pair<const Record*, std::string>> newest;
    for (const auto& grp : s.groups) {
      for (const auto& id : grp.results) {
        const Record* r = corpus.find(id);
        if (r == nullptr) continue;
        std::string version;
        if (!engine.empty()) {
          auto v = subject_version(corpus, *r, engine);
          if (!v) continue;
          version = *v;
        }
        auto& slot = newest[grp.oracle];
        if (slot.first == nullptr || older(*slot.first, slot.second, *r, version)) {
          slot = {r, version};
        }
      }
    }
    for (const auto& [oracle, pick] : newest) {
      const Record& r = *pick.first;
      if (r.result->failed == 0) continue;
      const std::string& version = pick.second;
      bool inside = version.empty();
      bool ranged = false;
      for (const auto& text : ranges) {
        if (text.empty()) continue;
        ranged = true;
        auto range = VersionRange::parse(text);
        auto v = Version::parse(version);
        if (!range || !v || range->contains(*v)) inside = true;
      }
      if (!ranged) inside = true;
      const std::string what = engine.empty()
                                   ? std::string("the newest result")
                                   : "the newest result for " + engine +
                                         (version.empty() ? std::string() : " " + version);
      std::string message = "status is fixed but " + what + " on " + oracle + ", " + r.id + " (" +
                            r.result->date + "), still fails: " + std::to_string(r.result->failed) +
                            "/" + std::to_string(r.result->passed + r.result->failed) + " failed";
      if (inside) {
        report(oracle, r,
               make(Severity::warning, diag_code("evidence.fixed-but-failing"), g, status_pos(),
                    std::move(message),
                    "no result shows the fix yet: add a passing result on a fixed "
                    "version, or set status back to open"));
      } else {
        report(oracle, r,
               make(Severity::error, diag_code("evidence.fixed-but-failing"), g, status_pos(),
                    message + "; " + version + " is outside every affects range of " + engine,
                    "the fix should cover this version: reopen the gotcha, or widen "
                    "affects to include it"));
      }
    }
  }
  for (auto& [key, d] : found) out.push_back(std::move(d));
}

void check_stale(const Corpus& corpus, const Record& r, const EvidenceSummary* s,
                 std::int64_t today, const std::string& today_text, int stale_after_days,
                 std::vector<Diagnostic>& out) {
  const CitationDates cited = reference_dates(r);
  std::string newest = cited.newest_as_of.str();
  Pos pos = cited.newest_as_of_pos;
  bool from_results = false;
  if (s != nullptr && s->newest_date > newest && date_to_days(s->newest_date)) {
    newest = s->newest_date;
    from_results = true;
  }
  if (newest.empty()) return;
  const std::int64_t age = today - *date_to_days(newest);
  if (age <= stale_after_days) return;
  if (from_results) pos = top_level_key_pos(corpus.source_text(r), "references");
  out.push_back(make(Severity::warning, diag_code("evidence.stale"), r, pos,
                     "newest verification is " + newest + ", " + std::to_string(age) +
                         " days before " + today_text + " (limit " +
                         std::to_string(stale_after_days) + " days)",
                     "re-check the references and update their as_of, or add a newer result"));
}

}  // namespace

std::int64_t evidence_detail::claims_day(const std::string& today) {
  auto days = date_to_days(today);
  if (!days) throw Error(Errc::invalid_argument, "today: '" + today + "' is not a YYYY-MM-DD date");
  return *days;
}

std::vector<Diagnostic> EvidenceIndex::check_claims(const Corpus& corpus, const std::string& today,
                                                    int stale_after_days) const {
  const std::int64_t today_days = evidence_detail::claims_day(today);
  std::vector<Diagnostic> out;
  for (const auto& rec : corpus.records()) {
    auto mine = check_claims_of(corpus, *rec, today, today_days, stale_after_days);
    out.insert(out.end(), std::make_move_iterator(mine.begin()),
               std::make_move_iterator(mine.end()));
  }
  sort_diagnostics(out);
  return out;
}

std::vector<Diagnostic> EvidenceIndex::check_claims_of(const Corpus& corpus, const Record& r,
                                                       const std::string& today,
                                                       std::int64_t today_days,
                                                       int stale_after_days) const {
  std::vector<Diagnostic> out;
  // A stale record is the last good version of a file that is broken now: its positions
  // no longer match the file, and the file reports its own errors.
  if (r.kind == Kind::result || corpus.is_stale(r.id)) return out;
  const EvidenceSummary* s = nullptr;
  if (r.kind == Kind::gotcha) {
    s = &for_gotcha(r.id);
    check_unreproduced(corpus, r, *s, out);
    check_fixed(corpus, r, *s, out);
  }
  if (stale_after_days > 0) check_stale(corpus, r, s, today_days, today, stale_after_days, out);
  return out;
}

}  // namespace kb
