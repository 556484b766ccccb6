#include <algorithm>
#include <unordered_map>

#include "kb/check.h"
#include "kb/error.h"
#include "kb/snapshot.h"
#include "snapshot_impl.h"

namespace kb {
namespace {

std::int64_t to_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

void index_references(SnapshotData& impl, const Corpus& corpus) {
  for (const auto& rp : corpus.records()) {
    for (const auto& slot : reference_slots(*rp)) {
      auto target = corpus.target(slot.target, slot.ref->raw);
      if (!target || *target == rp->id) continue;
      auto& list = impl.referencing[*target];
      // Records are visited in id order, so each list is sorted and a repeat is adjacent.
      if (list.empty() || list.back() != rp.get()) list.push_back(rp.get());
    }
  }
}

// A record keeps its stamp while its bytes stay the same; anything new, changed or gone
// since `previous` is stamped with this snapshot's load time. The first snapshot uses
// file modification times, so `changes?since=` means something across restarts.
void stamp_changes(SnapshotData& impl, const Corpus& corpus, const SnapshotData* previous,
                   const Corpus* previous_corpus) {
  std::unordered_map<std::string, std::int64_t> mtimes;
  if (!previous) {
    for (const auto& f : corpus.files()) {
      if (f.record && f.mtime_ns > 0) mtimes[f.record->id] = f.mtime_ns / 1000000;
    }
  }
  for (const auto& rp : corpus.records()) {
    ChangeStamp st{rp->id, impl.loaded_ms, false};
    if (previous) {
      const Record* old = previous_corpus->find(rp->id);
      auto s = previous->stamps.find(rp->id);
      if (old && old->content_hash == rp->content_hash && s != previous->stamps.end() &&
          !s->second.deleted) {
        st.changed_at_ms = s->second.changed_at_ms;
      }
    } else if (auto m = mtimes.find(rp->id); m != mtimes.end()) {
      st.changed_at_ms = std::min(m->second, impl.loaded_ms);
    }
    impl.stamps.emplace(rp->id, st);
  }
  if (previous) {
    for (const auto& [id, old] : previous->stamps) {
      if (impl.stamps.count(id)) continue;
      ChangeStamp gone = old;
      if (!gone.deleted) gone = {id, impl.loaded_ms, true};
      impl.stamps.emplace(id, gone);
    }
  }
  impl.by_time.reserve(impl.stamps.size());
  for (const auto& [id, st] : impl.stamps) impl.by_time.push_back(st);
  std::sort(impl.by_time.begin(), impl.by_time.end(), [](const ChangeStamp& a, const ChangeStamp& b) {
    return a.changed_at_ms != b.changed_at_ms ? a.changed_at_ms < b.changed_at_ms : a.id < b.id;
  });
}

}  // namespace

Snapshot::Snapshot(Linted linted, std::shared_ptr<const Store> store, std::uint64_t generation,
                   const Snapshot* previous, std::chrono::milliseconds query_budget)
    : linted_(std::move(linted)),
      store_(std::move(store)),
      impl_(std::make_unique<Impl>()),
      generation_(generation),
      loaded_at_(std::chrono::system_clock::now()),
      query_budget_(query_budget) {
  if (!linted_.corpus) throw Error(Errc::internal, "a snapshot needs a corpus");
  checks_ = std::make_unique<const CheckIndex>(CheckIndex::build(*linted_.corpus, linted_.evidence));
  impl_->loaded_ms = to_ms(loaded_at_);
  // Stamps must grow from one snapshot to the next even within one millisecond.
  if (previous) impl_->loaded_ms = std::max(impl_->loaded_ms, previous->impl_->loaded_ms + 1);
  index_gotchas(*impl_, corpus(), evidence());
  index_references(*impl_, corpus());
  stamp_changes(*impl_, corpus(), previous ? previous->impl_.get() : nullptr,
                previous ? &previous->corpus() : nullptr);
  impl_->severity_counts = {count_severity(diagnostics(), Severity::error),
                            count_severity(diagnostics(), Severity::warning),
                            count_severity(diagnostics(), Severity::note)};
}

Snapshot::~Snapshot() = default;

std::vector<const Record*> Snapshot::referencing(std::string_view id) const {
  auto it = impl_->referencing.find(std::string(id));
  return it == impl_->referencing.end() ? std::vector<const Record*>{} : it->second;
}

std::vector<SearchHit> Snapshot::search(std::string_view q, std::size_t limit) const {
  if (!store_ || limit == 0) return {};
  // A few spare hits make up for ones dropped below because a reload changed them.
  auto hits = store_->search(q, limit + 16, query_budget_);
  std::vector<SearchHit> out;
  for (auto& h : hits) {
    const Record* r = corpus().find(h.id);
    if (!r || r->content_hash != h.content_hash) continue;
    out.push_back(std::move(h));
    if (out.size() == limit) break;
  }
  return out;
}

std::vector<ChangeStamp> Snapshot::changes_since(std::int64_t since_ms) const {
  const auto& all = impl_->by_time;
  auto it = std::upper_bound(all.begin(), all.end(), since_ms,
                             [](std::int64_t t, const ChangeStamp& s) { return t < s.changed_at_ms; });
  return {it, all.end()};
}

std::int64_t Snapshot::changes_cursor() const {
  std::int64_t newest = impl_->by_time.empty() ? 0 : impl_->by_time.back().changed_at_ms;
  return std::max(newest, impl_->loaded_ms);
}

std::size_t Snapshot::diagnostics_of(Severity s) const {
  switch (s) {
    case Severity::error: return impl_->severity_counts[0];
    case Severity::warning: return impl_->severity_counts[1];
    case Severity::note: return impl_->severity_counts[2];
  }
  return 0;
}

}  // namespace kb
