#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "evidence/evidence_internal.h"
#include "kb/corpus.h"
#include "kb/evidence.h"
#include "kb/text.h"

namespace kb {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// Results of one oracle on one subject, over the whole corpus or linked to one gotcha.
struct Tally {
  std::vector<std::pair<std::string, std::string>> dated;  // (date, result id)
  std::int64_t passed = 0;
  std::int64_t failed = 0;
  std::int64_t errors = 0;
  std::int64_t skipped = 0;

  void add(const Record& r) {
    dated.emplace_back(r.result->date, r.id);
    passed += r.result->passed;
    failed += r.result->failed;
    errors += r.result->errors;
    skipped += r.result->skipped;
  }
  bool all_passed() const { return passed > 0 && failed == 0 && errors == 0; }
};

struct SubjectGroup {
  std::string oracle;
  std::string engine_label;
  std::string label;    // engine_label, plus the config when another group shares it
  SharedPairs engines;  // shared by every EvidenceGroup made from this one
  SharedPairs config;
  Tally all;
};

std::string join_pairs(const Pairs& pairs, std::string_view inner, std::string_view outer) {
  std::string out;
  for (const auto& [a, b] : pairs) {
    if (!out.empty()) out += outer;
    out += a;
    if (!b.empty()) {
      out += inner;
      out += b;
    }
  }
  return out;
}

std::string plural(std::int64_t n, std::string_view word) {
  std::string out = std::to_string(n) + " " + std::string(word);
  if (n != 1) out += "s";
  return out;
}

std::string tally_text(std::int64_t passed, std::int64_t failed, std::int64_t errors,
                       std::int64_t skipped, std::int64_t runs) {
  std::string out;
  const std::int64_t decided = passed + failed;
  if (failed > 0) {
    out = std::to_string(failed) + "/" + std::to_string(decided) + " failed";
  } else if (passed > 0) {
    out = std::to_string(passed) + "/" + std::to_string(decided) + " passed";
  } else {
    out = "nothing passed or failed";
  }
  out += " in " + plural(runs, "run");
  if (errors > 0) out += ", " + plural(errors, "error");
  if (skipped > 0) out += ", " + std::to_string(skipped) + " skipped";
  return out;
}

std::string oracle_slug(std::string_view oracle) {
  return std::string(text::id_slug(oracle));
}

// `keep` bounds the result ids listed (the newest are kept); counts cover them all.
EvidenceGroup make_group(const SubjectGroup& g, Tally t, std::size_t keep = SIZE_MAX) {
  std::sort(t.dated.begin(), t.dated.end());
  const auto runs = static_cast<std::int64_t>(t.dated.size());
  EvidenceGroup out;
  out.oracle = g.oracle;
  out.subject = g.label;
  out.engines = g.engines;
  out.config = g.config;
  out.passed = t.passed;
  out.failed = t.failed;
  out.errors = t.errors;
  out.skipped = t.skipped;
  out.runs = runs;
  const std::size_t first = t.dated.size() > keep ? t.dated.size() - keep : 0;
  for (std::size_t i = first; i < t.dated.size(); ++i) out.results.push_back(t.dated[i].second);
  if (!t.dated.empty()) out.newest_date = t.dated.back().first;
  return out;
}

class Builder {
 public:
  explicit Builder(const Corpus& corpus) : corpus_(corpus) {}

  evidence_detail::IndexData run() {
    for (const auto& rec : corpus_.records()) {
      if (rec->kind == Kind::result) add_result(*rec);
      if (rec->kind == Kind::gotcha) add_declared_oracles(*rec);
    }
    label_groups();
    collect_controls();
    evidence_detail::IndexData out;
    for (auto& [gotcha, tallies] : linked_)
      out.by_gotcha.emplace(gotcha, summarise(gotcha, tallies));
    for (auto& [oracle, dated] : oracle_results_) {
      std::sort(dated.begin(), dated.end());
      auto& ids = out.by_oracle[oracle];
      for (auto& [date, id] : dated) ids.push_back(std::move(id));
    }
    return out;
  }

 private:
  // Resolution is the costly part of a pass; the same few oracle and engine names
  // recur in every result, so each is resolved once.
  const std::optional<std::string>& target(Kind ns, const std::string& raw) {
    auto& memo = memo_[static_cast<std::size_t>(ns)];
    auto it = memo.find(raw);
    if (it == memo.end()) it = memo.emplace(raw, corpus_.target(ns, raw)).first;
    return it->second;
  }

  std::string engine_slug(const RefValue& ref) {
    const auto& id = target(Kind::engine, ref.raw);
    if (!id) return ref.raw;
    return std::string(text::id_slug(*id));
  }

  void add_result(const Record& r) {
    std::string oracle = target(Kind::oracle, r.result->oracle.raw).value_or(r.result->oracle.raw);
    Pairs engines;
    for (const auto& e : r.result->subject.engines)
      engines.emplace_back(engine_slug(e), e.versions);
    // Versioned engines first ("vllm 0.26.0 + lmcache"), then by name.
    std::sort(engines.begin(), engines.end(), [](const auto& a, const auto& b) {
      return std::make_tuple(a.second.empty(), a.first, a.second) <
             std::make_tuple(b.second.empty(), b.first, b.second);
    });
    Pairs config(r.result->subject.config.begin(), r.result->subject.config.end());
    std::sort(config.begin(), config.end());
    std::string key = oracle + '\x1f' + join_pairs(engines, "\x1e", "\x1d") + '\x1f' +
                      join_pairs(config, "\x1e", "\x1d");

    auto [it, inserted] = group_index_.try_emplace(key, groups_.size());
    if (inserted) {
      SubjectGroup g;
      g.oracle = oracle;
      g.engines = SharedPairs(std::move(engines));
      g.config = SharedPairs(std::move(config));
      groups_.push_back(std::move(g));
    }
    const std::size_t gi = it->second;
    groups_[gi].all.add(r);
    oracle_results_[oracle].emplace_back(r.result->date, r.id);

    std::unordered_set<std::string> seen;
    for (const auto& ref : r.result->evidence_for) {
      const auto& gotcha = target(Kind::gotcha, ref.raw);
      if (!gotcha || !seen.insert(*gotcha).second) continue;
      linked_[*gotcha][gi].add(r);
    }
  }

  void add_declared_oracles(const Record& g) {
    for (const auto& ref : g.oracles) {
      if (const auto& oracle = target(Kind::oracle, ref.raw)) declared_[g.id].insert(*oracle);
    }
  }

  // "vllm 0.26.0 + lmcache"; the config joins the label only where two groups of one
  // oracle would otherwise read the same.
  void label_groups() {
    std::unordered_map<std::string, int> seen;
    for (auto& g : groups_) {
      std::string text;
      for (const auto& [engine, version] : g.engines) {
        if (!text.empty()) text += " + ";
        text += engine;
        if (!version.empty()) text += " " + version;
      }
      g.engine_label = text;
      ++seen[g.oracle + '\x1f' + text];
    }
    for (auto& g : groups_) {
      const std::string config = join_pairs(g.config, "=", ", ");
      g.label = g.engine_label;
      bool ambiguous = seen[g.oracle + '\x1f' + g.engine_label] > 1;
      if ((ambiguous || g.label.empty()) && !config.empty()) {
        g.label += g.label.empty() ? "[" + config + "]" : " [" + config + "]";
      }
      if (g.label.empty()) g.label = "unspecified subject";
    }
  }

  // Per oracle, the groups whose every result passed, ordered by label.
  void collect_controls() {
    for (std::size_t i = 0; i < groups_.size(); ++i) {
      if (groups_[i].all.all_passed()) passing_[groups_[i].oracle].push_back(i);
    }
    for (auto& [oracle, list] : passing_) {
      std::sort(list.begin(), list.end(),
                [&](std::size_t a, std::size_t b) { return groups_[a].label < groups_[b].label; });
    }
  }

  EvidenceSummary summarise(const std::string& gotcha,
                            const std::unordered_map<std::size_t, Tally>& tallies) {
    EvidenceSummary s;
    std::map<std::string, OracleTally> per_oracle;
    for (const auto& [gi, t] : tallies) {
      s.groups.push_back(make_group(groups_[gi], t));
      const auto& g = s.groups.back();
      s.passed += g.passed;
      s.failed += g.failed;
      s.errors += g.errors;
      s.runs += g.runs;
      s.newest_date = std::max(s.newest_date, g.newest_date);
      auto& o = per_oracle[g.oracle];
      o.oracle = g.oracle;
      o.passed += g.passed;
      o.failed += g.failed;
      o.errors += g.errors;
      o.runs += g.runs;
    }
    std::sort(s.groups.begin(), s.groups.end(), [](const EvidenceGroup& a, const EvidenceGroup& b) {
      return std::tie(a.oracle, a.subject) < std::tie(b.oracle, b.subject);
    });
    for (auto& [id, o] : per_oracle) s.by_oracle.push_back(std::move(o));
    if (s.failed > 0) {
      s.state = Reproduction::reproduced;
    } else if (s.passed > 0) {
      s.state = Reproduction::not_reproduced;
    }

    std::set<std::string> oracles;
    for (const auto& o : s.by_oracle) oracles.insert(o.oracle);
    if (auto it = declared_.find(gotcha); it != declared_.end()) {
      oracles.insert(it->second.begin(), it->second.end());
    }
    for (const auto& oracle : oracles) {
      auto it = passing_.find(oracle);
      if (it == passing_.end()) continue;
      for (std::size_t gi : it->second) {
        if (tallies.count(gi) != 0) continue;
        if (s.controls.size() < kMaxControls) {
          s.controls.push_back(control(gi));
        } else {
          ++s.controls_omitted;
        }
      }
    }
    return s;
  }

  // A passing group as a control; derived and held once, however many gotchas show it.
  const SharedGroups::Ptr& control(std::size_t gi) {
    auto& slot = controls_[gi];
    if (!slot)
      slot = std::make_shared<const EvidenceGroup>(
          make_group(groups_[gi], groups_[gi].all, kMaxControlResults));
    return slot;
  }

  const Corpus& corpus_;
  std::array<std::unordered_map<std::string, std::optional<std::string>>, 4> memo_;
  std::vector<SubjectGroup> groups_;
  std::unordered_map<std::size_t, SharedGroups::Ptr> controls_;
  std::unordered_map<std::string, std::size_t> group_index_;
  // gotcha id -> group index -> the part of that group linked to the gotcha
  std::unordered_map<std::string, std::unordered_map<std::size_t, Tally>> linked_;
  std::unordered_map<std::string, std::set<std::string>> declared_;
  std::unordered_map<std::string, std::vector<std::size_t>> passing_;
  std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>> oracle_results_;
};

}  // namespace

std::string EvidenceGroup::summary() const {
  return subject + ": " + tally_text(passed, failed, errors, skipped, runs);
}

std::string_view to_string(Reproduction r) {
  switch (r) {
    case Reproduction::reproduced:
      return "reproduced";
    case Reproduction::not_reproduced:
      return "not-reproduced";
    case Reproduction::no_evidence:
      return "no-evidence";
  }
  return "no-evidence";
}

std::string summary_line(const EvidenceSummary& s) {
  if (s.state == Reproduction::no_evidence) {
    if (s.runs == 0) return "no evidence";
    return "no evidence: " + plural(s.runs, "linked run") + ", none passed or failed";
  }
  std::string out = s.state == Reproduction::reproduced ? "reproduced: " : "not reproduced: ";
  out += tally_text(s.passed, s.failed, s.errors, 0, s.runs);
  if (s.by_oracle.size() > 1) {
    std::string parts;
    for (const auto& o : s.by_oracle) {
      if (!parts.empty()) parts += ", ";
      const std::int64_t shown = s.failed > 0 ? o.failed : o.passed;
      parts += oracle_slug(o.oracle) + " " + std::to_string(shown) + "/" +
               std::to_string(o.passed + o.failed);
    }
    out += " (" + parts + ")";
  }
  const std::size_t controls = s.controls.size() + s.controls_omitted;
  if (controls > 0) out += "; " + plural(static_cast<std::int64_t>(controls), "passing control");
  return out;
}

EvidenceIndex EvidenceIndex::build(const Corpus& corpus) {
  EvidenceIndex index;
  auto impl = std::make_shared<Impl>();
  static_cast<evidence_detail::IndexData&>(*impl) = Builder(corpus).run();
  index.impl_ = std::move(impl);
  return index;
}

const EvidenceSummary& EvidenceIndex::for_gotcha(std::string_view id) const {
  static const EvidenceSummary kEmpty;
  if (!impl_) return kEmpty;
  auto it = impl_->by_gotcha.find(std::string(id));
  return it == impl_->by_gotcha.end() ? kEmpty : it->second;
}

std::vector<std::string> EvidenceIndex::results_for_oracle(std::string_view oracle_id) const {
  if (!impl_) return {};
  auto it = impl_->by_oracle.find(std::string(oracle_id));
  return it == impl_->by_oracle.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace kb
