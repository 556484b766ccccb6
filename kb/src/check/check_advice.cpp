// What a finding says to do: the record's workaround and symptom in plain words, its
// tags, and per engine of the hit service what the fix chain says ("upgrade vllm from
// 0.26.0 to 0.28.0 or later").

#include <algorithm>
#include <memory>

#include "check/check_index_impl.h"
#include "core/lru_cache.h"
#include "core/text_util.h"
#include "kb/corpus.h"
#include "kb/version.h"

namespace kb {
namespace {

std::string slug(std::string_view id) {
  return std::string(text::id_slug(id));
}

std::string engine_slug(const Corpus& corpus, const RefValue& ref) {
  auto id = corpus.target(Kind::engine, ref.raw);
  return slug(id ? std::string_view(*id) : ref.raw.view());
}

std::string advice_text(const FixAdvice& a) {
  const std::string& e = a.engine;
  if (a.resolution == fix_resolution::kDocumented) {
    return "no release of " + e + " changes it; avoid it as the documentation" +
           (a.fixed_in.empty() ? std::string() : " of " + a.fixed_in) + " says";
  }
  if (a.fixed_in.empty()) {
    if (a.resolution == fix_resolution::kWontfix) return e + " will not fix it";
    if (a.resolution == fix_resolution::kWorkaround)
      return "no fixed release of " + e + "; apply the workaround";
    return "no fixed release of " + e + " yet";
  }
  auto running = Version::parse(a.running);
  auto fixed = Version::parse(a.fixed_in);
  const bool behind = running && fixed && running->compare(*fixed) < 0;
  std::string what = a.resolution == fix_resolution::kFixed || a.resolution.empty() ||
                             a.resolution == fix_resolution::kNone
                         ? "fixed"
                     : a.resolution == fix_resolution::kDisabled ? "the feature is turned off"
                     : a.resolution == fix_resolution::kWarned   ? "a warning was added"
                                                                 : a.resolution;
  if (behind) {
    return "upgrade " + e + " from " + a.running + " to " + a.fixed_in + " or later (" + what +
           " there)";
  }
  if (a.running.empty()) {
    return "upgrade " + e + " to " + a.fixed_in + " or later (" + what +
           " there); the running version is not known";
  }
  return e + " " + a.fixed_in + " and later: " + what;
}

/// What a finding shows of its gotcha's Markdown bodies.
struct BodyAdvice {
  std::string symptom;              ///< first paragraph, plain
  std::string workaround;           ///< first paragraph, plain
  std::string workaround_markdown;  ///< whole, trimmed
};

// A slim corpus (`kb serve`) reads a gotcha's bodies back from the index and parses its
// file again: ~60 us a finding, most of a check's time at 100k records, where one
// deployment can hit a thousand gotchas, more than the whole-record cache keeps. What a
// finding shows of them is a few hundred bytes: those are kept for the gotchas checks hit
// most recently, keyed by id and content hash, so an unchanged record keeps its entry
// across reloads.
constexpr std::size_t kAdviceCached = 4096;

std::shared_ptr<const BodyAdvice> body_advice(const Corpus& corpus, const Record& gotcha) {
  static const LruCache<std::shared_ptr<const BodyAdvice>> cache(kAdviceCached);
  std::string key = gotcha.id + '\n' + gotcha.content_hash;
  if (auto hit = cache.get(key)) return *hit;
  const auto whole = corpus.whole(gotcha);
  auto made = std::make_shared<BodyAdvice>();
  made->symptom = first_paragraph_plain(whole->symptom);
  made->workaround = first_paragraph_plain(whole->workaround);
  made->workaround_markdown = std::string(text::trim(whole->workaround));
  // Only what was read back whole: a record that is its own whole version (a corpus
  // loaded whole, or a slim one whose index no longer holds it) is not kept.
  if (whole.get() == &gotcha) return made;
  return cache.put(std::move(key), std::move(made));
}

}  // namespace

std::string first_paragraph_plain(std::string_view markdown) {
  std::string para;
  std::size_t i = 0;
  const std::string_view t = text::trim(markdown);
  while (i < t.size()) {
    std::size_t nl = t.find('\n', i);
    std::string_view line = text::trim(t.substr(i, nl == std::string_view::npos ? nl : nl - i));
    if (line.empty()) break;
    if (!para.empty()) para += ' ';
    para += line;
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
  std::string out;
  for (std::size_t k = 0; k < para.size(); ++k) {
    const char c = para[k];
    if (c == '`' || c == '*') continue;
    if (c == '[') {
      // [text](url) -> text
      auto close = para.find("](", k);
      auto end = close == std::string::npos ? std::string::npos : para.find(')', close);
      if (end != std::string::npos) {
        out += para.substr(k + 1, close - k - 1);
        k = end;
        continue;
      }
    }
    out += c;
  }
  return out;
}

void advise(const Corpus& corpus, const Record& gotcha, const std::vector<const Service*>& hits,
            Finding& f) {
  {
    const auto bodies = body_advice(corpus, gotcha);
    f.symptom = bodies->symptom;
    f.workaround = bodies->workaround;
    f.workaround_markdown = bodies->workaround_markdown;
  }
  // SARIF 2.1.0 requires a rule's tags to be unique (GitHub's upload rejects duplicates):
  // a family and a category of the same name are one tag.
  for (const Str* t : {&gotcha.family, &gotcha.category}) {
    if (!t->empty() && std::find(f.tags.begin(), f.tags.end(), t->str()) == f.tags.end())
      f.tags.push_back(t->str());
  }
  for (const std::string& t : gotcha.tags) {
    if (std::find(f.tags.begin(), f.tags.end(), t) == f.tags.end()) f.tags.push_back(t);
  }
  // Per fix chain, one advice for each version the hit services run (two services on two
  // versions need two upgrades).
  for (const FixChain& chain : gotcha.fixes) {
    const std::string engine = engine_slug(corpus, chain.engine);
    for (const Service* hit : hits) {
      auto runs = std::find_if(
          hit->engines.begin(), hit->engines.end(),
          [&](const DeployedEngine& e) { return !e.id.empty() && slug(e.id) == engine; });
      if (runs == hit->engines.end()) continue;
      const bool seen = std::any_of(f.fixes.begin(), f.fixes.end(), [&](const FixAdvice& x) {
        return x.engine == engine && x.running == runs->version && x.cause == chain.cause.str();
      });
      if (seen) continue;
      // A cause whose own range leaves out the running version does not hit this service.
      if (!chain.affected.empty() && !runs->version.empty()) {
        auto range = VersionRange::parse(chain.affected.view());
        auto running = Version::parse(runs->version);
        if (range && running && !range->contains(*running)) continue;
      }
      FixAdvice a;
      a.engine = engine;
      a.running = runs->version;
      a.fixed_in = chain.fixed_in;
      a.resolution =
          chain.resolution.empty() ? std::string(fix_resolution::kNone) : chain.resolution.str();
      a.cause = chain.cause.str();
      for (const RefValue& r : gotcha.affects) {
        if (engine_slug(corpus, r) == engine) a.affected = r.versions;
      }
      if (!chain.affected.empty()) a.affected = chain.affected.str();
      a.advice = advice_text(a);
      if (!a.cause.empty()) a.advice = a.cause + ": " + a.advice;
      f.fixes.push_back(std::move(a));
    }
  }
}

}  // namespace kb
