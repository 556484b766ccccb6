// `kb triage`: the gotchas whose log signatures match lines of a log, streamed.

#include "kb/triage.h"

#include <algorithm>
#include <map>

#include "check/check_index_impl.h"
#include "core/log_signature.h"
#include "core/text_util.h"
#include "kb/corpus.h"

namespace kb {

namespace {

// The line as valid UTF-8 (a log may hold any bytes; a cut may split a character): each
// invalid byte becomes U+FFFD.
std::string shown_line(std::string_view s) {
  std::string out;
  while (!s.empty()) {
    const std::size_t bad = text::invalid_utf8_offset(s);
    if (bad == std::string_view::npos) {
      out.append(s);
      break;
    }
    out.append(s.substr(0, bad));
    out.append("\xEF\xBF\xBD");
    s.remove_prefix(bad + 1);
  }
  return out;
}

struct Compiled {
  const Record* gotcha = nullptr;
  std::string shown;   ///< the signature as written
  std::string engine;  ///< "nixl >=0.4.0"; "" any
  LineMatcher matcher;
};

}  // namespace

struct Triage::Impl {
  const Corpus* corpus = nullptr;
  TriageOptions options;
  std::vector<Compiled> sigs;
  std::string line;       ///< the current line, at most max_line_bytes
  bool line_cut = false;  ///< the current line is longer than what `line` holds
  bool any_byte = false;  ///< the current line has started
  TriageReport report;
  std::map<const Record*, TriageMatch> hits;

  void end_line() {
    ++report.lines;
    if (line_cut) ++report.long_lines;
    std::string_view text = line;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    const Record* last = nullptr;
    for (const Compiled& c : sigs) {
      if (!c.matcher.matches(text)) continue;
      TriageMatch& m = hits[c.gotcha];
      if (std::find(m.signatures.begin(), m.signatures.end(), c.shown) == m.signatures.end()) {
        m.signatures.push_back(c.shown);
        m.engines.push_back(c.engine);
      }
      if (last == c.gotcha) continue;  // one line counts once per gotcha
      last = c.gotcha;
      ++m.count;
      if (m.lines.size() < options.lines_per_gotcha) {
        m.lines.push_back({report.lines, shown_line(text)});
      }
    }
    line.clear();
    line_cut = false;
    any_byte = false;
  }
};

Triage::Triage(const Corpus& corpus, TriageOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->corpus = &corpus;
  impl_->options = options;
  if (impl_->options.max_line_bytes == 0) impl_->options.max_line_bytes = 1;
  for (const auto& r : corpus.records()) {
    if (r->kind != Kind::gotcha || r->status == GotchaStatus::withdrawn || !r->detection) continue;
    // The signatures of records sorted by severity then id, so matches come out in order.
    for (const Signature& s : r->detection->signatures) {
      const bool regex = !s.regex.empty();
      const std::string pattern = regex ? s.regex.str() : s.literal.str();
      if (pattern.empty()) continue;
      std::string engine;
      if (!s.engine.raw.empty()) {
        auto id = corpus.target(Kind::engine, s.engine.raw);
        engine = id ? std::string(text::id_slug(*id)) : s.engine.raw.str();
        if (!s.versions.empty()) engine += " " + s.versions.str();
      }
      impl_->sigs.push_back({r.get(), regex ? "/" + pattern + "/" : pattern, std::move(engine),
                             LineMatcher(pattern, regex)});
    }
  }
  impl_->report.signatures = impl_->sigs.size();
}

Triage::~Triage() = default;

void Triage::feed(std::string_view bytes) {
  Impl& t = *impl_;
  t.report.bytes += bytes.size();
  while (!bytes.empty()) {
    const std::size_t nl = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, nl);
    const std::size_t room =
        t.options.max_line_bytes - std::min(t.options.max_line_bytes, t.line.size());
    if (piece.size() > room) t.line_cut = true;
    t.line.append(piece.substr(0, std::min(room, piece.size())));
    if (!piece.empty()) t.any_byte = true;
    if (nl == std::string_view::npos) break;
    t.end_line();
    bytes.remove_prefix(nl + 1);
  }
}

TriageReport Triage::finish() {
  Impl& t = *impl_;
  if (t.any_byte) t.end_line();
  for (auto& [rec, m] : t.hits) {
    m.id = rec->id;
    m.title = rec->title;
    m.severity = std::string(to_string(rec->severity));
    m.status = std::string(to_string(rec->status));
    m.workaround = first_paragraph_plain(t.corpus->whole(*rec)->workaround);
    t.report.matches.push_back(std::move(m));
  }
  std::sort(t.report.matches.begin(), t.report.matches.end(),
            [](const TriageMatch& a, const TriageMatch& b) {
              const int ra = severity_rank(a.severity), rb = severity_rank(b.severity);
              return ra != rb ? ra < rb : a.id < b.id;
            });
  t.hits.clear();
  return std::move(t.report);
}

}  // namespace kb
