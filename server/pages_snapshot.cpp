#include "kb/snapshot.h"
#include "pages_internal.h"

namespace kb::pages {

View make_view(const Snapshot& s) {
  return View{s.corpus(),
              s.evidence(),
              s.diagnostics(),
              [&s](std::string_view id) { return s.referencing(id); },
              [&s](std::string_view q, std::size_t limit) { return s.search(q, limit); },
              [&s](std::string_view word) { return s.finds(word); },
              std::make_shared<ViewCache>()};
}

}  // namespace kb::pages
