#include "pages_internal.h"

namespace kb::pages {

ReferenceMap::ReferenceMap(const Corpus& corpus) {
  for (const auto& r : corpus.records()) {
    for (const auto& slot : reference_slots(*r)) {
      auto target = corpus.target(slot.target, slot.ref->raw);
      if (!target) continue;
      auto& list = by_target_[*target];
      if (list.empty() || list.back() != r.get()) list.push_back(r.get());
    }
  }
  // Records come sorted by id, so each list already is.
}

std::vector<const Record*> ReferenceMap::referencing(std::string_view id) const {
  auto it = by_target_.find(std::string(id));
  return it == by_target_.end() ? std::vector<const Record*>{} : it->second;
}

View make_view(const Linted& linted, const ReferenceMap& refs, const DiagnosticList& diags) {
  return View{*linted.corpus,
              linted.evidence,
              diags,
              [&refs](std::string_view id) { return refs.referencing(id); },
              {},
              std::make_shared<ViewCache>()};
}

}  // namespace kb::pages
