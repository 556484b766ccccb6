#include "pages_internal.h"

#include <algorithm>
#include <exception>
#include <thread>

namespace kb::pages {

ReferenceMap::ReferenceMap(const Corpus& corpus) {
  // Resolving is the cost (a name lookup per reference), and nothing else runs yet: it
  // runs on every core, each a stripe of the records; the lists are filled after, in
  // record order.
  const auto& records = corpus.records();
  std::vector<std::vector<std::string>> targets(records.size());
  const std::size_t stripes = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  std::vector<std::exception_ptr> failures(stripes);
  {
    std::vector<std::jthread> pool;
    for (std::size_t t = 0; t < stripes; ++t) {
      pool.emplace_back([&, t] {
        try {
          for (std::size_t i = t; i < records.size(); i += stripes) {
            for (const auto& slot : reference_slots(*records[i])) {
              if (auto id = corpus.target(slot.target, slot.ref->raw)) {
                targets[i].push_back(std::move(*id));
              }
            }
          }
        } catch (...) {
          failures[t] = std::current_exception();
        }
      });
    }
  }
  for (const auto& f : failures) {
    if (f) std::rethrow_exception(f);
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (const auto& id : targets[i]) {
      auto& list = by_target_[id];
      if (list.empty() || list.back() != records[i].get()) list.push_back(records[i].get());
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
              {},
              std::make_shared<ViewCache>()};
}

}  // namespace kb::pages
