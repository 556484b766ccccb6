// Gotchas grouped for browsing: by family and by engine, the silent ones (every health
// signal says fine) first within each group, since those are the ones nobody notices.

#include <algorithm>
#include <map>
#include <set>

#include "kb/text.h"
#include "pages_internal.h"

namespace kb::pages {

bool is_silent(const Record& r) {
  return r.detection && r.detection->silent.value_or(false);
}

void order_for_list(std::vector<const Record*>& gotchas) {
  std::stable_sort(gotchas.begin(), gotchas.end(), [](const Record* a, const Record* b) {
    const bool sa = is_silent(*a), sb = is_silent(*b);
    if (sa != sb) return sa;
    const int ra = severity_rank(a->severity), rb = severity_rank(b->severity);
    if (ra != rb) return ra < rb;
    return a->id < b->id;
  });
}

Data gotcha_group(const View& v, const Links& links, const std::string& name,
                  const std::string& anchor, const std::string& href,
                  std::vector<const Record*> gotchas,
                  const std::function<std::string(const Record&)>& range_of) {
  order_for_list(gotchas);
  List items;
  std::size_t silent = 0, blockers = 0;
  for (const Record* g : gotchas) {
    Data item = gotcha_item(v, links, *g);
    if (range_of) put(item, "range", range_of(*g));
    items.push_back(std::move(item));
    silent += is_silent(*g);
    blockers += g->severity == GotchaSeverity::blocker;
  }
  Data d = item_list(std::move(items));
  set(d, "name", name);
  set(d, "anchor", anchor);
  // Absent values are false, so that a section never finds its container's value.
  auto set_or_false = [&d](const char* key, const std::string& value, bool present) {
    if (present) {
      set(d, key, value);
    } else {
      set(d, key, false);
    }
  };
  set_or_false("href", href, !href.empty());
  set(d, "count", std::to_string(gotchas.size()));
  set_or_false("silent_count", std::to_string(silent), silent > 0);
  set_or_false("blocker_count", std::to_string(blockers), blockers > 0);
  return d;
}

List groups_by_family(const View& v, const Links& links, const std::vector<const Record*>& gotchas,
                      const std::function<std::string(const Record&)>& range_of) {
  std::map<std::string, std::vector<const Record*>> by_family;
  std::vector<const Record*> none;
  for (const Record* g : gotchas) (g->family.empty() ? none : by_family[g->family]).push_back(g);
  List out;
  for (auto& [family, list] : by_family) {
    out.push_back(gotcha_group(v, links, family, "family-" + family, {}, list, range_of));
  }
  if (!none.empty()) {
    out.push_back(gotcha_group(v, links, "no family", "family--none", {}, none, range_of));
  }
  return out;
}

List groups_by_engine(const View& v, const Links& links,
                      const std::vector<const Record*>& gotchas) {
  std::map<std::string, std::vector<const Record*>> by_engine;
  std::map<std::string, std::map<std::string, std::string>> ranges;  // engine -> gotcha -> range
  for (const Record* g : gotchas) {
    std::set<std::string> seen;
    for (const auto& ref : g->affects) {
      const std::string id = target_id(v, ref, Kind::engine);
      if (id.empty()) continue;
      if (seen.insert(id).second) by_engine[id].push_back(g);
      if (!ref.versions.empty()) ranges[id][g->id] = ref.versions;
    }
  }
  std::vector<std::pair<std::string, std::string>> order;  // display name, id
  for (const auto& [id, list] : by_engine) {
    const Record* e = v.corpus.find(id);
    order.emplace_back(e != nullptr ? std::string(display_name(*e)) : id, id);
  }
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return text::lower(a.first) < text::lower(b.first);
  });
  List out;
  for (const auto& [name, id] : order) {
    const auto& r = ranges[id];
    out.push_back(gotcha_group(v, links, name, "engine-" + std::string(text::id_slug(id)),
                               links.page(id), by_engine[id], [&r](const Record& g) {
                                 auto it = r.find(g.id);
                                 return it == r.end() ? std::string() : it->second;
                               }));
  }
  return out;
}

}  // namespace kb::pages
