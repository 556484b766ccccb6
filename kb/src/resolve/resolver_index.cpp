// NameIndex: exact lookup by normalised key, fuzzy lookup through q-gram posting lists.

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "core/similarity.h"
#include "kb/resolver.h"
#include "resolve/resolver_internal.h"

namespace kb {
namespace {

// Only this many entries per query, those sharing the most q-grams with it, are scored
// with the (quadratic) similarity; everything else is ranked by posting-list counts alone.
constexpr std::size_t kScored = 64;
// A q-gram held by more than this share of a namespace's names says little about any of
// them; skipping it bounds the work per query at large sizes.
constexpr double kStopGramShare = 0.25;

int rank(MatchKind m) {
  switch (m) {
    case MatchKind::id:
      return 0;
    case MatchKind::former_id:
      return 1;
    case MatchKind::alias:
      return 2;
    case MatchKind::name:
      return 3;
    case MatchKind::repo:
      return 4;
  }
  return 5;
}

using Gram = std::uint32_t;

// Queries shorter than this are looked up by bigrams: a swap in a short name (`nxil` for
// `nixl`) leaves it no trigram in common with the name, but still the padded first and
// last bigrams.
constexpr std::size_t kTrigramFrom = 8;

// Appends the q-grams (q = 2 or 3) of `key` padded with one start and one end marker;
// the size is folded into the top byte so both kinds share one posting table.
void append_grams(std::string_view key, std::size_t q, std::vector<Gram>& out) {
  auto at = [&](std::size_t i) -> Gram {
    if (i == 0) return 0x02;
    if (i == key.size() + 1) return 0x03;
    return static_cast<unsigned char>(key[i - 1]);
  };
  for (std::size_t i = 0; i + q <= key.size() + 2; ++i) {
    Gram g = static_cast<Gram>(q) << 24;
    for (std::size_t j = 0; j < q; ++j) g |= at(i + j) << (8 * (q - 1 - j));
    out.push_back(g);
  }
}

// Grams are hashed into a table sized to the namespace: building it is two linear passes
// instead of a sort, and a collision only adds names to a posting list, which the
// similarity then scores exactly.
struct GramTable {
  unsigned shift = 32;
  std::vector<std::uint32_t> offsets;   ///< bucket b's names: postings[offsets[b], offsets[b+1])
  std::vector<std::uint32_t> postings;  ///< name indexes, ascending per bucket

  std::uint32_t bucket(Gram g) const { return (g * 2654435761u) >> shift; }

  // The distinct buckets of `key`'s grams: bigrams for short names, trigrams for all.
  void buckets(std::string_view key, bool bigrams, bool trigrams, std::vector<Gram>& scratch,
               std::vector<std::uint32_t>& out) const {
    scratch.clear();
    if (bigrams) append_grams(key, 2, scratch);
    if (trigrams) append_grams(key, 3, scratch);
    const std::size_t first = out.size();
    for (Gram g : scratch) out.push_back(bucket(g));
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
  }
};

}  // namespace

std::string_view to_string(MatchKind m) {
  switch (m) {
    case MatchKind::id:
      return "id";
    case MatchKind::alias:
      return "alias";
    case MatchKind::former_id:
      return "former-id";
    case MatchKind::name:
      return "name";
    case MatchKind::repo:
      return "repo";
  }
  return "?";
}

struct NameIndex::Impl {
  struct Entry {
    Str key;
    Str id;
    MatchKind how;
    std::uint32_t seq;  ///< order of adding
  };
  struct Space {
    /// Sorted by key, then rank, then order of adding, by finish(); a record's second
    /// name with the same key is dropped there. Exact lookups are binary searches: a
    /// hash map from key to entries cost ~200 bytes a name more (bench/RESULTS.md, round 9).
    std::vector<Entry> entries;
    // Posting lists, built on the first fuzzy query: most snapshots never need them, and
    // building them costs more than loading the names.
    std::once_flag postings_built;
    GramTable table;

    void build_postings() {
      std::size_t estimate = 0;
      for (const auto& e : entries) estimate += 2 * (e.key.size() + 1);
      unsigned bits = 12;
      while (bits < 20 && (std::size_t{1} << bits) < estimate / 2) ++bits;
      table.shift = 32 - bits;
      std::vector<std::uint32_t> flat;
      std::vector<std::uint32_t> ends;
      std::vector<Gram> scratch;
      flat.reserve(estimate);
      ends.reserve(entries.size());
      for (const auto& e : entries) {
        // Bigram queries are short, and names much longer than them never score high.
        table.buckets(e.key, e.key.size() < kTrigramFrom + 4, true, scratch, flat);
        ends.push_back(static_cast<std::uint32_t>(flat.size()));
      }
      table.offsets.assign((std::size_t{1} << bits) + 1, 0);
      for (std::uint32_t b : flat) ++table.offsets[b + 1];
      for (std::size_t b = 1; b < table.offsets.size(); ++b) {
        table.offsets[b] += table.offsets[b - 1];
      }
      std::vector<std::uint32_t> cursor(table.offsets.begin(), table.offsets.end() - 1);
      table.postings.resize(flat.size());
      std::size_t i = 0;
      for (std::uint32_t e = 0; e < entries.size(); ++e) {
        for (; i < ends[e]; ++i) table.postings[cursor[flat[i]]++] = e;
      }
    }
  };
  std::array<Space, kKindCount> spaces;

  void add(Kind k, std::string_view raw, std::string_view id, MatchKind how) {
    std::string key = normalize_name(raw);
    if (key.empty()) return;
    auto& entries = spaces[static_cast<std::size_t>(k)].entries;
    entries.push_back(Entry{key, id, how, static_cast<std::uint32_t>(entries.size())});
  }

  /// The entries whose key is `key`, best rank first.
  static std::pair<const Entry*, const Entry*> with_key(const Space& s, std::string_view key) {
    auto [lo, hi] =
        std::equal_range(s.entries.begin(), s.entries.end(), key,
                         [](const auto& a, const auto& b) { return key_of(a) < key_of(b); });
    return {s.entries.data() + (lo - s.entries.begin()),
            s.entries.data() + (hi - s.entries.begin())};
  }
  static std::string_view key_of(const Entry& e) { return e.key.view(); }
  static std::string_view key_of(std::string_view k) { return k; }
};

NameIndex::NameIndex() : impl_(std::make_unique<Impl>()) {}
NameIndex::~NameIndex() = default;
NameIndex::NameIndex(NameIndex&&) noexcept = default;
NameIndex& NameIndex::operator=(NameIndex&&) noexcept = default;

void NameIndex::add(const Record& r) {
  impl_->add(r.kind, r.id, r.id, MatchKind::id);
  const MatchKind alias_kind = r.kind == Kind::engine ? MatchKind::alias : MatchKind::former_id;
  for (const auto& a : r.aliases) impl_->add(r.kind, a, r.id, alias_kind);
  if (!r.engine->name.empty()) impl_->add(r.kind, r.engine->name, r.id, MatchKind::name);
  if (!r.engine->repo.empty()) impl_->add(r.kind, r.engine->repo, r.id, MatchKind::repo);
  if (r.kind == Kind::setting) {
    impl_->add(r.kind, r.setting->key, r.id, MatchKind::name);
    for (const auto& s : r.setting->synonyms) impl_->add(r.kind, s, r.id, MatchKind::alias);
  }
}

bool same_names(const Record& a, const Record& b) {
  return a.kind == b.kind && a.id == b.id && a.aliases == b.aliases &&
         a.engine->name == b.engine->name && a.engine->repo == b.engine->repo &&
         a.setting->key == b.setting->key && a.setting->synonyms == b.setting->synonyms;
}

void NameIndex::finish() {
  for (auto& s : impl_->spaces) {
    auto& entries = s.entries;
    // A record's first name with a key stands for it; later ones with the same key go.
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      if (a.key != b.key) return a.key < b.key;
      if (a.id != b.id) return a.id < b.id;
      return a.seq < b.seq;
    });
    entries.erase(
        std::unique(entries.begin(), entries.end(),
                    [](const auto& a, const auto& b) { return a.key == b.key && a.id == b.id; }),
        entries.end());
    // Within a key, the best kind of name first, then the order of adding.
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      if (a.key != b.key) return a.key < b.key;
      if (rank(a.how) != rank(b.how)) return rank(a.how) < rank(b.how);
      return a.seq < b.seq;
    });
    entries.shrink_to_fit();
  }
}

std::vector<std::string> NameIndex::exact(Kind ns, std::string_view raw, MatchKind* how) const {
  if (auto prefix = namespace_prefix(raw); prefix && *prefix != ns) return {};
  const Impl::Space& s = impl_->spaces[static_cast<std::size_t>(ns)];
  const std::string key = normalize_name(raw);
  auto [first, last] = Impl::with_key(s, key);
  std::vector<std::string> ids;
  for (const Impl::Entry* e = first; e != last; ++e) {
    if (ids.empty() && how != nullptr) *how = e->how;
    if (std::find(ids.begin(), ids.end(), e->id.view()) == ids.end()) ids.push_back(e->id.str());
  }
  return ids;
}

std::string_view NameIndex::unique(Kind ns, std::string_view raw) const {
  if (auto prefix = namespace_prefix(raw); prefix && *prefix != ns) return {};
  const Impl::Space& s = impl_->spaces[static_cast<std::size_t>(ns)];
  auto [first, last] = Impl::with_key(s, normalize_name(raw));
  if (first == last) return {};
  for (const Impl::Entry* e = first + 1; e != last; ++e) {
    if (e->id.view() != first->id.view()) return {};
  }
  return first->id.view();
}

std::vector<Candidate> NameIndex::candidates(Kind ns, std::string_view raw, std::size_t max) const {
  Impl::Space& s = impl_->spaces[static_cast<std::size_t>(ns)];
  const std::string key = normalize_name(raw);
  if (key.empty() || s.entries.empty() || max == 0) return {};
  std::call_once(s.postings_built, [&s] { s.build_postings(); });

  const auto stop =
      static_cast<std::size_t>(kStopGramShare * static_cast<double>(s.entries.size()));
  std::vector<std::uint32_t> shared(s.entries.size(), 0);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> ranked;
  std::vector<Gram> scratch;
  std::vector<std::uint32_t> buckets;
  const bool short_key = key.size() < kTrigramFrom;
  s.table.buckets(key, short_key, !short_key, scratch, buckets);
  for (std::uint32_t b : buckets) {
    const std::uint32_t begin = s.table.offsets[b];
    const std::uint32_t end = s.table.offsets[b + 1];
    if (s.entries.size() > kScored && end - begin > stop) continue;
    for (std::uint32_t i = begin; i < end; ++i) {
      const std::uint32_t e = s.table.postings[i];
      if (shared[e]++ == 0) ranked.emplace_back(e, 0);
    }
  }
  for (auto& [e, count] : ranked) count = shared[e];
  auto length_gap = [&](std::uint32_t e) {
    const auto a = s.entries[e].key.size();
    return a > key.size() ? a - key.size() : key.size() - a;
  };
  auto more_shared = [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    if (length_gap(a.first) != length_gap(b.first))
      return length_gap(a.first) < length_gap(b.first);
    return a.first < b.first;
  };
  if (ranked.size() > kScored) {
    std::partial_sort(ranked.begin(), ranked.begin() + kScored, ranked.end(), more_shared);
    ranked.resize(kScored);
  }

  std::unordered_map<std::string_view, Candidate> best_per_id;
  for (const auto& [e, count] : ranked) {
    const Impl::Entry& entry = s.entries[e];
    const double score = name_similarity(key, entry.key);
    auto [it, fresh] = best_per_id.try_emplace(entry.id, Candidate{entry.id, score, entry.key});
    if (!fresh && score > it->second.score) it->second = Candidate{entry.id, score, entry.key};
  }
  std::vector<Candidate> out;
  out.reserve(best_per_id.size());
  for (auto& [id, c] : best_per_id) out.push_back(std::move(c));
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    return a.id < b.id;
  });
  if (out.size() > max) out.resize(max);
  return out;
}

}  // namespace kb
