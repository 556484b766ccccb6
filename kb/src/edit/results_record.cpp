// The result record `kb results import` writes: parsing the subject flags, resolving
// names against the corpus, and emitting the YAML.

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <string>

#include "kb/atomic_write.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/results_import.h"
#include "kb/text.h"
#include "kb/version.h"
#include "yaml/yaml_scalar.h"

namespace kb {
namespace {

constexpr std::size_t kMaxNotedNames = 20;
// Below this, a "did you mean" names records that merely share a few letters.
constexpr double kMinSuggestionScore = 0.6;

using text::trim;

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(sep, start);
    out.push_back(trim(s.substr(start, end == std::string_view::npos ? end : end - start)));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string slugify(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string after_slash(std::string_view id) {
  return std::string(text::id_slug(id));
}

// One-line scalars go through the one YAML scalar writer.
using yaml_out::scalar;

// Multi-line text as a literal block when it reads back unchanged, else double-quoted.
// `|` keeps exactly one final line break, so the text must end with exactly one.
std::string text_block(std::string_view text) {
  bool literal = text.size() >= 2 && text.back() == '\n' && text[text.size() - 2] != '\n' &&
                 text.front() != ' ' && text.front() != '\n';
  for (char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') literal = false;
  }
  if (!literal) return scalar(text) + "\n";
  std::string out = "|\n";
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line = text.substr(start, end - start);
    out += line.empty() ? "\n" : "  " + std::string(line) + "\n";
    start = end + 1;
  }
  return out;
}

std::string citation_yaml(const Citation& c) {
  std::string out = "{type: " + scalar(c.type);
  if (!c.repo.empty()) out += ", repo: " + scalar(c.repo);
  if (c.number > 0) out += ", number: " + std::to_string(c.number);
  if (!c.ref.empty()) out += ", ref: " + scalar(c.ref);
  if (!c.url.empty()) out += ", url: " + scalar(c.url);
  return out + "}";
}

std::string failure_yaml(const Failure& f) {
  std::string out = "{prompt: " + std::to_string(f.prompt);
  if (f.trial > 0) out += ", trial: " + std::to_string(f.trial);
  if (f.run > 0) out += ", run: " + std::to_string(f.run);
  out += ", position: " + std::to_string(f.position);
  if (!f.compared.empty()) out += ", compared: " + scalar(f.compared);
  out += ", expected: " + scalar(f.expected) + ", got: " + scalar(f.got);
  return out + "}";
}

std::string import_notes(const ResultSpec& spec) {
  std::string notes = spec.notes;
  const auto& names = spec.counts.failing;
  if (names.empty()) return notes;
  if (!notes.empty() && notes.back() != '\n') notes += '\n';
  notes += "Failed or errored:\n";
  const std::size_t shown = std::min(names.size(), kMaxNotedNames);
  for (std::size_t i = 0; i < shown; ++i) {
    std::string name;
    for (char c : names[i]) name += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    notes += "- " + std::string(trim(name)) + "\n";
  }
  if (names.size() > shown) notes += "- and " + std::to_string(names.size() - shown) + " more\n";
  return notes;
}

void append_candidates(const Corpus& corpus, Kind ns, std::string_view raw, std::string& msg) {
  std::vector<std::string> close;
  for (const auto& c : corpus.names().candidates(ns, raw, 3)) {
    if (c.score >= kMinSuggestionScore) close.push_back(c.id);
  }
  if (close.empty()) return;
  msg += " (did you mean";
  for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : " ") + close[i];
  msg += "?)";
}

}  // namespace

std::vector<RefValue> parse_subject_spec(std::string_view spec) {
  std::vector<RefValue> out;
  if (trim(spec).empty()) throw Error(Errc::invalid_argument, "subject: no engine given");
  for (std::string_view item : split(spec, ',')) {
    const auto at = item.find('@');
    RefValue ref;
    ref.raw = std::string(trim(item.substr(0, at)));
    if (at != std::string_view::npos) ref.versions = std::string(trim(item.substr(at + 1)));
    if (ref.raw.empty()) {
      throw Error(Errc::invalid_argument, "subject: '" + std::string(item) + "' names no engine");
    }
    if (at != std::string_view::npos) {
      if (auto parsed = Version::parse_or_error(ref.versions); !parsed.value) {
        throw Error(Errc::invalid_argument,
                    "subject: '" + std::string(item) + "': " + parsed.error.message);
      }
    }
    ref.field = "subject.engines[" + std::to_string(out.size()) + "]";
    out.push_back(std::move(ref));
  }
  return out;
}

std::vector<ConfigEntry> parse_config_spec(std::string_view spec) {
  std::vector<ConfigEntry> out;
  std::set<std::string> keys;
  for (std::string_view item : split(spec, ',')) {
    const auto eq = item.find('=');
    std::string key(trim(item.substr(0, eq)));
    if (eq == std::string_view::npos || key.empty()) {
      throw Error(Errc::invalid_argument, "config: '" + std::string(item) + "' is not KEY=VALUE");
    }
    if (!keys.insert(key).second) {
      throw Error(Errc::invalid_argument, "config: key '" + key + "' given twice");
    }
    out.emplace_back(std::move(key), std::string(trim(item.substr(eq + 1))));
  }
  return out;
}

Citation citation_from_url(std::string_view url) {
  Citation c;
  url = trim(url);
  const auto hash = url.find('#');
  if (url.find("://") == std::string_view::npos && hash != std::string_view::npos &&
      std::count(url.begin(), url.end(), '/') == 1 && all_digits(url.substr(hash + 1))) {
    c.type = "issue";
    c.repo = std::string(url.substr(0, hash));
    c.number = std::stoll(std::string(url.substr(hash + 1)));
    return c;
  }
  for (std::string_view prefix : {"https://github.com/", "http://github.com/"}) {
    if (!url.starts_with(prefix)) continue;
    auto parts = split(url.substr(prefix.size()), '/');
    // owner / repo / issues|pull|commit / number-or-sha [/ ...]
    if (parts.size() < 4 || parts[0].empty() || parts[1].empty()) break;
    const std::string_view what = parts[2];
    const std::string_view tail = parts[3].substr(0, parts[3].find_first_of("?#"));
    const std::string repo = std::string(parts[0]) + "/" + std::string(parts[1]);
    if ((what == "issues" || what == "pull") && all_digits(tail)) {
      c.type = what == "issues" ? "issue" : "pr";
      c.repo = repo;
      c.number = std::stoll(std::string(tail));
      return c;
    }
    if (what == "commit" && !tail.empty()) {
      c.type = "commit";
      c.repo = repo;
      c.ref = std::string(tail);
      return c;
    }
    break;
  }
  c.type = "url";
  c.url = std::string(url);
  return c;
}

std::string default_result_id(const ResultSpec& spec) {
  std::string text = after_slash(spec.oracle);
  for (const auto& e : spec.subject.engines) {
    text.append("-").append(after_slash(e.raw));
    if (!e.versions.empty()) text.append("-").append(e.versions);
  }
  text += "-" + spec.date;
  return "results/" + slugify(text);
}

std::vector<std::string> canonicalize(const Corpus& corpus, ResultSpec& spec) {
  std::vector<std::string> problems;
  auto resolve = [&](Kind ns, auto& raw, const std::string& what) {
    if (auto id = corpus.target(ns, raw)) {
      raw = ns == Kind::engine ? after_slash(*id) : *id;
      return;
    }
    std::string msg =
        what + ": no " + std::string(kind_name(ns)) + " '" + raw + "' in " + corpus.dir().string();
    append_candidates(corpus, ns, raw, msg);
    problems.push_back(std::move(msg));
  };
  resolve(Kind::oracle, spec.oracle, "oracle");
  for (auto& e : spec.subject.engines) resolve(Kind::engine, e.raw, "subject");
  for (auto& g : spec.evidence_for) resolve(Kind::gotcha, g, "evidence-for");
  if (!date_to_days(spec.date)) problems.push_back("date: '" + spec.date + "' is not YYYY-MM-DD");
  if (spec.id.empty()) {
    spec.id = default_result_id(spec);
  } else {
    std::string slug = spec.id.starts_with("results/") ? spec.id.substr(8) : spec.id;
    bool ok = !slug.empty() && std::isalnum(static_cast<unsigned char>(slug.front()));
    for (char c : slug) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && std::strchr("-_.", c) == nullptr)
        ok = false;
    }
    if (!ok) {
      problems.push_back("id: '" + spec.id +
                         "' is not a result id (letters, digits, '-', '_', '.')");
    }
    spec.id = "results/" + slug;
  }
  return problems;
}

std::string result_record_yaml(const ResultSpec& spec) {
  std::string y = "id: " + scalar(spec.id) + "\n";
  if (!spec.title.empty()) y += "title: " + scalar(spec.title) + "\n";
  y += "oracle: " + scalar(spec.oracle) + "\n";
  y += "date: " + scalar(spec.date) + "\n";
  y += spec.subject.engines.empty() ? "subject:\n  engines: []\n" : "subject:\n  engines:\n";
  for (const auto& e : spec.subject.engines) {
    y += "    - {engine: " + scalar(e.raw);
    if (!e.versions.empty()) y += ", version: " + scalar(e.versions);
    y += "}\n";
  }
  if (!spec.subject.model.empty()) y += "  model: " + scalar(spec.subject.model) + "\n";
  if (!spec.subject.config.empty()) {
    y += "  config:\n";
    for (const auto& [k, v] : spec.subject.config)
      y += "    " + scalar(k) + ": " + yaml_out::typed_scalar(v) + "\n";
  }
  y += "passed: " + std::to_string(spec.counts.passed) + "\n";
  y += "failed: " + std::to_string(spec.counts.failed) + "\n";
  y += "errors: " + std::to_string(spec.counts.errors) + "\n";
  y += "skipped: " + std::to_string(spec.counts.skipped) + "\n";
  if (!spec.evidence_for.empty()) {
    y += "evidence_for:\n";
    for (const auto& g : spec.evidence_for) y += "  - " + scalar(g) + "\n";
  }
  if (spec.source) y += "source: " + citation_yaml(*spec.source) + "\n";
  if (spec.incomplete) y += "incomplete: true\n";
  if (!spec.failures.empty()) {
    y += "failures:\n";
    for (const auto& f : spec.failures) y += "  - " + failure_yaml(f) + "\n";
  }
  const std::string notes = import_notes(spec);
  if (!notes.empty()) y += "notes: " + text_block(notes);
  return y;
}

bool write_new_file(const std::filesystem::path& path, std::string_view text) {
  return write_atomic(path, text, IfExists::keep);
}

}  // namespace kb
