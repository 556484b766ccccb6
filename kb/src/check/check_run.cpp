// Running a deployment through a CheckIndex, applying an ignore list, and severities.

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "check/check_index_impl.h"
#include "check/check_resolve.h"
#include "core/text_util.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/evidence.h"

namespace kb {

using check::Truth;

void prepare_env(const CheckIndex::Impl& impl, const std::vector<Service>& services,
                 check::Env& env) {
  env.vocab = impl.vocab.get();
  env.services.resize(services.size());
  for (std::size_t i = 0; i < services.size(); ++i) {
    check::ServiceEnv& s = env.services[i];
    s.service = &services[i];
    s.by_slot.resize(impl.slots->size());
    for (const DeployedEngine& e : services[i].engines) {
      if (e.id.empty()) continue;
      auto slot = impl.slots->find(e.id);
      if (slot == impl.slots->end()) continue;
      s.by_slot[static_cast<std::size_t>(slot->second)].push_back(
          {&e, e.version.empty() ? std::nullopt : Version::parse(e.version)});
    }
    for (const auto& list : s.by_slot) {
      for (const auto& inst : list) s.instances.push_back(&inst);
    }
    for (const Setting& st : services[i].config) {
      if (!st.setting.empty() || st.derived) s.config.emplace(st.key, &st);
    }
  }
}

CheckReport CheckIndex::run(const Deployment& deployment, const CheckOptions& options) const {
  CheckReport report;
  report.deployment = deployment;
  if (!impl_) return report;
  const Corpus& corpus = *impl_->corpus;
  const CheckTables& tables = *impl_->tables;
  resolve_deployment(report.deployment, corpus, *impl_->vocab, options.allow_unknown,
                     report.diagnostics);
  // `report.deployment` is not changed below, so pointers into it stay valid.
  const auto& services = report.deployment.services;
  check::Env env;
  prepare_env(*impl_, services, env);
  std::vector<std::uint32_t> candidates = tables.always;
  auto add = [&candidates](const std::vector<std::uint32_t>& more) {
    candidates.insert(candidates.end(), more.begin(), more.end());
  };
  for (std::size_t i = 0; i < services.size(); ++i) {
    const check::ServiceEnv& s = env.services[i];
    // Shared tables may predate the newest slots, which then trigger nothing.
    for (std::size_t slot = 0; slot < std::min(s.by_slot.size(), tables.by_slot.size()); ++slot) {
      if (!s.by_slot[slot].empty()) add(tables.by_slot[slot]);
    }
    for (const auto& [key, st] : s.config) {
      auto it = tables.by_key.find(key);
      if (it != tables.by_key.end()) add(it->second);
    }
  }
  // In table order, so findings come out worst severity first, then by id.
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  for (std::uint32_t pos : candidates) {
    if (options.stop && options.stop()) break;
    const CompiledGotcha& g = *impl_->compiled[tables.order[pos]];
    // Every service it holds for, as surely as it holds anywhere: the first is explained.
    Truth best = Truth::no;
    std::vector<const check::ServiceEnv*> hit;
    for (const auto& s : env.services) {
      Truth t = check::eval(g.root, env, s);
      if (t == Truth::no || t < best) continue;
      if (t > best) hit.clear();
      best = t;
      hit.push_back(&s);
    }
    if (best == Truth::no) continue;
    const check::ServiceEnv* where = hit.front();
    const Record& r = *g.record;
    Finding f;
    f.id = r.id;
    f.title = r.title;
    f.severity = std::string(to_string(r.severity));
    f.status = std::string(to_string(r.status));
    f.evidence = std::string(to_string(impl_->evidence.for_gotcha(r.id).state));
    f.possible = best == Truth::maybe;
    f.service = services.size() > 1 ? where->service->name : std::string();
    for (const check::ServiceEnv* s : hit)
      f.services.push_back({s->service->name, s->service->role});
    std::vector<check::Why> why;
    check::explain(g.root, env, *where, why);
    for (auto& w : why) {
      f.why.push_back(std::move(w.text));
      if (w.pos.line == 0) continue;
      const bool seen = std::any_of(f.locations.begin(), f.locations.end(), [&](const Location& l) {
        return l.file == w.file && l.pos.line == w.pos.line && l.pos.column == w.pos.column;
      });
      if (!seen) f.locations.push_back({w.file, w.pos, w.end});
    }
    if (!f.locations.empty()) f.pos = f.locations.front().pos;
    std::vector<const Service*> hit_services;
    for (const check::ServiceEnv* s : hit) hit_services.push_back(s->service);
    advise(corpus, r, hit_services, f);
    report.findings.push_back(std::move(f));
  }
  return report;
}

namespace {

// Whether `path` matches `pattern`: the same path, a directory prefix ending in '/', or a
// glob with `*` (any run of characters but '/'), `**` (any run) and `?`. Both are compared
// without a leading "./".
bool path_matches(std::string_view pattern, std::string_view input) {
  auto bare = [](std::string_view s) {
    while (s.starts_with("./")) s.remove_prefix(2);
    return s;
  };
  // An absolute pattern (an ignore file's entry, anchored at its directory) is compared
  // with the input's absolute path.
  std::string absolute;
  if (pattern.starts_with('/') && !input.starts_with('/') && input != "-") {
    std::error_code ec;
    absolute = std::filesystem::absolute(std::filesystem::path(input), ec)
                   .lexically_normal()
                   .generic_string();
    if (!ec) input = absolute;
  }
  pattern = bare(pattern);
  std::string_view path = bare(input);
  if (pattern.ends_with('/')) return path.starts_with(pattern);
  // Iterative glob match with backtracking over the last star.
  std::size_t p = 0, s = 0, star = std::string_view::npos, mark = 0;
  bool star_any = false;
  while (s < path.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_any = p + 1 < pattern.size() && pattern[p + 1] == '*';
      p += star_any ? 2 : 1;
      star = p;
      mark = s;
    } else if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == path[s]) &&
               !(pattern[p] == '?' && path[s] == '/')) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos && (star_any || path[mark] != '/')) {
      p = star;
      s = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

// Whether an ignore entry covers a finding: everywhere, or at one of its paths (any
// location of the finding).
bool at_paths(const IgnoreEntry& e, const Finding& f, const std::string& deployment_file) {
  if (e.paths.empty()) return true;
  for (const Location& l : f.locations) {
    for (const std::string& p : e.paths) {
      if (path_matches(p, l.file.empty() ? deployment_file : l.file)) return true;
    }
  }
  return false;
}

}  // namespace

void CheckIndex::apply_ignores(CheckReport& report, const IgnoreList& ignores,
                               std::string_view today) const {
  const std::string date = today.empty() ? text::today_utc() : std::string(today);
  if (!text::valid_date(date)) {
    throw Error(Errc::invalid_argument, "'" + date + "' is not a date (YYYY-MM-DD)");
  }
  auto warn = [&](const IgnoreEntry& e, std::string code, std::string message, std::string hint) {
    report.diagnostics.push_back({Severity::warning, std::move(code), ignores.file, e.pos.line,
                                  e.pos.column, std::move(message), std::move(hint), ""});
  };
  for (const IgnoreEntry& e : ignores.entries) {
    std::optional<std::string> id =
        impl_ ? impl_->corpus->target(Kind::gotcha, e.id) : std::nullopt;
    if (!e.expires.empty() && date >= e.expires) {
      warn(e, diag_code("check.ignore-expired"),
           "the ignore of '" + e.id + "' expired on " + e.expires + "; it no longer applies",
           "re-check the gotcha, then renew the date or remove the entry");
      continue;
    }
    auto is_it = [&](const Finding& f) {
      return id && f.id == *id && at_paths(e, f, report.deployment.file);
    };
    auto it = std::stable_partition(report.findings.begin(), report.findings.end(),
                                    [&](const Finding& f) { return !is_it(f); });
    bool matched = it != report.findings.end() ||
                   std::any_of(report.ignored.begin(), report.ignored.end(), is_it);
    for (auto moved = it; moved != report.findings.end(); ++moved) {
      moved->ignore_reason = e.reason;
      moved->ignore_expires = e.expires;
      report.ignored.push_back(std::move(*moved));
    }
    report.findings.erase(it, report.findings.end());
    if (matched) continue;
    if (!id) {
      warn(e, diag_code("check.ignore-unused"), "the ignore of '" + e.id + "' names no gotcha",
           "write the id of a gotcha, such as gotchas/NAME");
    } else {
      warn(e, diag_code("check.ignore-unused"),
           "the ignore of '" + e.id + "' matched no finding of this deployment",
           "remove it if the gotcha no longer applies");
    }
  }
  std::stable_sort(report.ignored.begin(), report.ignored.end(),
                   [](const Finding& a, const Finding& b) {
                     int ra = severity_rank(a.severity), rb = severity_rank(b.severity);
                     return ra != rb ? ra < rb : a.id < b.id;
                   });
}

bool fails(const CheckReport& report, GotchaSeverity threshold) {
  return std::any_of(report.findings.begin(), report.findings.end(), [&](const Finding& f) {
    return severity_rank(f.severity) <= static_cast<int>(threshold);
  });
}

}  // namespace kb
