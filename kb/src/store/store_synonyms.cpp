// The spellings search takes as one word (kb/store.h SearchSynonyms), from the records.

#include <algorithm>
#include <cctype>
#include <set>

#include "kb/corpus.h"
#include "kb/store.h"

namespace kb {

std::string search_fold(std::string_view word) {
  std::string out;
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    out += c == '-' || std::isspace(u) ? '_' : static_cast<char>(std::tolower(u));
  }
  return out;
}

std::string search_join(std::string_view word) {
  std::string out;
  for (char c : word) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isalnum(u) || u >= 0x80) return {};
    out += static_cast<char>(std::tolower(u));
  }
  return out;
}

SearchSynonyms search_synonyms(const std::vector<std::shared_ptr<const Record>>& records) {
  SearchSynonyms out;
  auto add = [&](std::vector<std::string> group) {
    std::vector<std::string> kept;
    std::set<std::string> folded;
    for (auto& w : group) {
      if (!w.empty() && folded.insert(search_fold(w)).second) kept.push_back(std::move(w));
    }
    if (kept.size() < 2) return;
    const auto at = static_cast<std::uint32_t>(out.groups.size());
    for (const auto& f : folded) out.by_word[f].push_back(at);
    out.groups.push_back(std::move(kept));
  };
  // Hardware settings that are enums (gpu_arch): what a hardware value implies of them is
  // searched too (a card's architecture).
  std::set<std::string, std::less<>> hardware_enums;
  for (const auto& rp : records) {
    if (rp->kind == Kind::setting && rp->setting->scope == setting_scope::kHardware &&
        rp->setting->type == "enum")
      hardware_enums.insert(rp->setting->key.str());
  }
  // Names of one word, long enough that two query words joining into one by chance is
  // unlikely (`lmcache`, `MultiConnector`).
  auto name = [&](std::string_view n) {
    std::string k = search_join(n);
    if (k.size() >= 6) out.joined.emplace(std::move(k), std::string(n));
  };
  for (const auto& rp : records) {
    const Record& r = *rp;
    if (r.kind == Kind::engine) {
      const std::string_view id = r.id.view();
      name(id.substr(id.find('/') + 1));
      for (const auto& a : r.aliases) name(a);
    } else if (r.kind == Kind::setting) {
      name(r.setting->key.view());
      for (const auto& syn : r.setting->synonyms) name(syn);
      for (const auto& v : r.setting->values) {
        name(v.value.view());
        for (const auto& syn : v.synonyms) name(syn);
      }
    }
  }
  for (const auto& rp : records) {
    const Record& r = *rp;
    if (r.kind == Kind::setting && r.setting->scope == setting_scope::kHardware) {
      // A card by its other names (`A100-80GB` ~ `a100`; patterns are not words), and
      // toward what it implies (`a100` -> `sm80`, never back: an architecture holds many).
      for (const auto& v : r.setting->values) {
        std::vector<std::string> g{v.value.str()};
        for (const auto& syn : v.synonyms) {
          if (syn.find('*') == std::string::npos) g.push_back(syn);
        }
        add(std::move(g));
        for (const auto& kv : v.implies) {
          if (hardware_enums.contains(kv.key.raw.view())) add({kv.value.str(), v.value.str()});
        }
      }
    }
    if (r.kind == Kind::engine) {
      const std::string_view id = r.id.view();
      std::vector<std::string> g{std::string(id.substr(id.find('/') + 1))};
      for (const auto& a : r.aliases) g.push_back(a);
      add(std::move(g));
    } else if (r.kind == Kind::setting && r.setting->scope == setting_scope::kSymptom) {
      for (const auto& v : r.setting->values) {
        std::vector<std::string> g{v.value.str()};
        for (const auto& syn : v.synonyms) g.push_back(syn);
        add(std::move(g));
      }
    } else if (r.kind == Kind::setting) {
      std::vector<std::string> g{r.setting->key.str()};
      for (const auto& syn : r.setting->synonyms) g.push_back(syn);
      add(std::move(g));
    }
  }
  return out;
}

std::vector<std::string> SearchSynonyms::alternatives(std::string_view term) const {
  std::vector<std::string> out{std::string(term)};
  const std::string f = search_fold(term);
  auto it = by_word.find(f);
  if (it == by_word.end() && f.size() > 4 && f.ends_with("es"))
    it = by_word.find(f.substr(0, f.size() - 2));
  if (it == by_word.end() && f.size() > 3 && f.ends_with('s'))
    it = by_word.find(f.substr(0, f.size() - 1));
  if (it == by_word.end()) return out;
  // Toward the group's own word only: its other spellings would dilute a word the
  // records use as written (bm25 weighs every phrase of a query alike).
  std::set<std::string> seen{f, it->first};  // `hangs` is searched as `hang` already (stems)
  for (std::uint32_t g : it->second) {
    if (out.size() == 16) break;
    if (seen.insert(search_fold(groups[g].front())).second) out.push_back(groups[g].front());
  }
  return out;
}

void SearchSynonyms::join_pairs(const std::vector<std::string>& terms,
                                std::vector<std::vector<std::string>>& groups) const {
  for (std::size_t i = 0; i + 1 < terms.size() && i < groups.size(); ++i) {
    const std::string a = search_join(terms[i]), b = search_join(terms[i + 1]);
    if (a.empty() || b.empty()) continue;
    auto it = joined.find(a + b);
    if (it == joined.end() || groups[i].size() >= 16) continue;
    const std::string f = search_fold(it->second);
    const bool there = std::any_of(groups[i].begin(), groups[i].end(),
                                   [&](const std::string& w) { return search_fold(w) == f; });
    if (!there) groups[i].push_back(it->second);
  }
}

}  // namespace kb
