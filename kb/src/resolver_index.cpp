// NameIndex: exact lookup by normalised key, fuzzy lookup through q-gram posting lists.

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "kb/resolver.h"
#include "resolver_internal.h"
#include "similarity.h"

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

// Distinct q-grams (q = 2 or 3) of `key` padded with one start and one end marker; the
// size is folded into the top byte so both kinds share one posting map.
std::vector<Gram> grams(std::string_view key, std::size_t q) {
  std::string padded;
  padded.reserve(key.size() + 2);
  padded += '\x02';
  padded += key;
  padded += '\x03';
  std::vector<Gram> out;
  for (std::size_t i = 0; i + q <= padded.size(); ++i) {
    Gram g = static_cast<Gram>(q) << 24;
    for (std::size_t j = 0; j < q; ++j) {
      g |= static_cast<Gram>(static_cast<unsigned char>(padded[i + j])) << (8 * (q - 1 - j));
    }
    out.push_back(g);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

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
    std::string key;
    std::string id;
    MatchKind how;
  };
  struct Space {
    std::vector<Entry> entries;
    std::unordered_map<std::string, std::vector<std::uint32_t>> by_key;
    // Posting lists in one sorted array, built on the first fuzzy query: most snapshots
    // never need one, and building it costs more than loading the names.
    std::once_flag postings_built;
    std::vector<Gram> gram_keys;         ///< sorted, distinct
    std::vector<std::uint32_t> offsets;  ///< gram_keys[i]'s entries: [offsets[i], offsets[i+1])
    std::vector<std::uint32_t> postings;

    void build_postings() {
      std::vector<std::pair<Gram, std::uint32_t>> pairs;
      for (std::uint32_t e = 0; e < entries.size(); ++e) {
        const std::string& key = entries[e].key;
        // Bigram queries are short, and names much longer than them never score high.
        if (key.size() < kTrigramFrom + 4) {
          for (Gram g : grams(key, 2)) pairs.emplace_back(g, e);
        }
        for (Gram g : grams(key, 3)) pairs.emplace_back(g, e);
      }
      std::sort(pairs.begin(), pairs.end());
      postings.reserve(pairs.size());
      for (const auto& [g, e] : pairs) {
        if (gram_keys.empty() || gram_keys.back() != g) {
          gram_keys.push_back(g);
          offsets.push_back(static_cast<std::uint32_t>(postings.size()));
        }
        postings.push_back(e);
      }
      offsets.push_back(static_cast<std::uint32_t>(postings.size()));
    }
    const std::uint32_t* posting(Gram g, std::size_t& size) const {
      auto it = std::lower_bound(gram_keys.begin(), gram_keys.end(), g);
      if (it == gram_keys.end() || *it != g) {
        size = 0;
        return nullptr;
      }
      const auto i = static_cast<std::size_t>(it - gram_keys.begin());
      size = offsets[i + 1] - offsets[i];
      return postings.data() + offsets[i];
    }
  };
  std::array<Space, 4> spaces;

  void add(Kind k, std::string_view raw, const std::string& id, MatchKind how) {
    std::string key = normalize_name(raw);
    if (key.empty()) return;
    Space& s = spaces[static_cast<std::size_t>(k)];
    auto& slots = s.by_key[key];
    for (std::uint32_t e : slots) {
      if (s.entries[e].id == id) return;  // a second name of the same record, same key
    }
    slots.push_back(static_cast<std::uint32_t>(s.entries.size()));
    s.entries.push_back(Entry{std::move(key), id, how});
  }
};

NameIndex::NameIndex() : impl_(std::make_unique<Impl>()) {}
NameIndex::~NameIndex() = default;
NameIndex::NameIndex(NameIndex&&) noexcept = default;
NameIndex& NameIndex::operator=(NameIndex&&) noexcept = default;

void NameIndex::add(const Record& r) {
  impl_->add(r.kind, r.id, r.id, MatchKind::id);
  const MatchKind alias_kind = r.kind == Kind::engine ? MatchKind::alias : MatchKind::former_id;
  for (const auto& a : r.aliases) impl_->add(r.kind, a, r.id, alias_kind);
  if (!r.name.empty()) impl_->add(r.kind, r.name, r.id, MatchKind::name);
  if (!r.repo.empty()) impl_->add(r.kind, r.repo, r.id, MatchKind::repo);
}

void NameIndex::finish() {
  for (auto& s : impl_->spaces) {
    for (auto& [key, slots] : s.by_key) {
      std::stable_sort(slots.begin(), slots.end(), [&](std::uint32_t a, std::uint32_t b) {
        return rank(s.entries[a].how) < rank(s.entries[b].how);
      });
    }
  }
}

std::vector<std::string> NameIndex::exact(Kind ns, std::string_view raw, MatchKind* how) const {
  if (auto prefix = namespace_prefix(raw); prefix && *prefix != ns) return {};
  const Impl::Space& s = impl_->spaces[static_cast<std::size_t>(ns)];
  auto it = s.by_key.find(normalize_name(raw));
  if (it == s.by_key.end()) return {};
  std::vector<std::string> ids;
  for (std::uint32_t e : it->second) {
    if (ids.empty() && how != nullptr) *how = s.entries[e].how;
    if (std::find(ids.begin(), ids.end(), s.entries[e].id) == ids.end()) {
      ids.push_back(s.entries[e].id);
    }
  }
  return ids;
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
  for (Gram g : grams(key, key.size() < kTrigramFrom ? 2 : 3)) {
    std::size_t size = 0;
    const std::uint32_t* list = s.posting(g, size);
    if (s.entries.size() > kScored && size > stop) continue;
    for (std::size_t i = 0; i < size; ++i) {
      if (shared[list[i]]++ == 0) ranked.emplace_back(list[i], 0);
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
