#include <algorithm>
#include <utility>
#include <vector>

#include "evidence/evidence_internal.h"
#include "kb/error.h"
#include "kb/snapshot.h"
#include "live/snapshot_impl.h"

namespace kb {

Snapshot::Snapshot(Linted linted, std::shared_ptr<const Store> store, std::uint64_t generation,
                   const Snapshot* previous, SnapshotOptions options)
    : linted_(std::move(linted)),
      store_(std::move(store)),
      impl_(std::make_unique<Impl>()),
      generation_(generation),
      loaded_at_(std::chrono::system_clock::now()),
      options_(std::move(options)) {
  if (!linted_.corpus) throw Error(Errc::internal, "a snapshot needs a corpus");
  impl_->loaded_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(loaded_at_.time_since_epoch()).count();
  // Stamps must grow from one snapshot to the next even within one millisecond.
  if (previous) impl_->loaded_ms = std::max(impl_->loaded_ms, previous->impl_->loaded_ms + 1);
  build_snapshot_data(*impl_, corpus(), evidence(), previous ? previous->impl_.get() : nullptr,
                      previous ? &previous->corpus() : nullptr);
  if (!previous) return;
  if (const CheckIndex* before = previous->impl_->checks_ready.load(std::memory_order_acquire)) {
    impl_->checks_base = *before;
    impl_->checks_base_corpus = previous->corpus_ptr();
  }
  // Claims read a record, its evidence, the results and the names: with the same names
  // and evidence, an unchanged record's claims are the previous snapshot's.
  if (options_.deferred_claims && previous->impl_->claims_ready.load(std::memory_order_acquire) &&
      &previous->corpus().names() == &corpus().names() &&
      same_evidence(previous->corpus(), corpus())) {
    impl_->claims_base = previous->impl_->claims;
    impl_->claims_base_corpus = previous->corpus_ptr();
  }
}

std::shared_ptr<const RecordClaims> Snapshot::record_claims(const std::string& today,
                                                            int stale_after_days) const {
  const std::int64_t today_days = evidence_detail::claims_day(today);
  const auto& recs = corpus().records();
  const RecordClaims* base = impl_->claims_base.get();
  const Corpus* base_corpus = impl_->claims_base_corpus.get();
  if (base && (base->today != today || base->stale_after_days != stale_after_days ||
               base_corpus->records().size() != recs.size()))
    base = nullptr;
  // Packed as they are made, each with its owner, then put in order: unpacked, the
  // claims of a tree whose verifications went stale were ~17 MiB at 100k records, freed
  // right after, and the holes they left stayed in the server's memory.
  DiagnosticList::Builder packed;
  std::vector<std::uint32_t> owners;
  const auto add = [&](std::uint32_t owner, const Diagnostic& d) {
    packed.add(d);
    owners.push_back(owner);
  };
  // The lint's diagnostics first, so that of two at one place the lint's comes first.
  for (const auto& d : linted_.diagnostics) add(RecordClaims::kLint, d);
  // An unchanged record, stale as it was, has the claims it had.
  std::vector<bool> reused(recs.size(), false);
  if (base) {
    for (std::size_t i = 0; i < recs.size(); ++i) {
      reused[i] = base_corpus->records()[i] == recs[i] &&
                  base_corpus->is_stale(recs[i]->id) == corpus().is_stale(recs[i]->id);
    }
    for (std::size_t k = 0; k < base->all.size(); ++k) {
      const std::uint32_t owner = base->owner[k];
      if (owner != RecordClaims::kLint && reused[owner]) add(owner, base->all[k]);
    }
  }
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (reused[i]) continue;
    for (const auto& d :
         evidence().check_claims_of(corpus(), *recs[i], today, today_days, stale_after_days))
      add(static_cast<std::uint32_t>(i), d);
  }
  auto out = std::make_shared<RecordClaims>();
  out->today = today;
  out->stale_after_days = stale_after_days;
  out->all = packed.finish();
  // sort_diagnostics' order, carrying each diagnostic's owner along.
  std::vector<std::uint32_t> order(out->all.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return out->all.before(a, b); });
  out->all.reorder(order);
  out->owner.reserve(order.size());
  for (std::uint32_t k : order) out->owner.push_back(owners[k]);
  return out;
}

Snapshot::~Snapshot() = default;

const DiagnosticList& Snapshot::diagnostics() const {
  std::call_once(impl_->claims_once, [this] {
    if (!options_.deferred_claims) {
      auto packed = std::make_shared<RecordClaims>();
      packed->all = DiagnosticList(linted_.diagnostics);
      packed->owner.assign(packed->all.size(), RecordClaims::kLint);
      impl_->claims = std::move(packed);  // not claims_ready: there are no claims to reuse
      return;
    }
    const LintOptions& o = *options_.deferred_claims;
    impl_->claims = record_claims(o.today.empty() ? today_date() : o.today, o.stale_after_days);
    impl_->claims_base.reset();
    impl_->claims_base_corpus.reset();
    impl_->claims_ready.store(true, std::memory_order_release);
  });
  return impl_->claims->all;
}

const CheckIndex& Snapshot::checks() const {
  std::call_once(impl_->checks_once, [this] {
    const CheckIndex* base = impl_->checks_base ? &*impl_->checks_base : nullptr;
    impl_->checks =
        std::make_unique<const CheckIndex>(CheckIndex::build(corpus(), evidence(), base));
    impl_->checks_base.reset();
    impl_->checks_base_corpus.reset();
    impl_->checks_ready.store(impl_->checks.get(), std::memory_order_release);
  });
  return *impl_->checks;
}

std::vector<const Record*> Snapshot::referencing(std::string_view id) const {
  auto it = impl_->referencing->find(std::string(id));
  if (it == impl_->referencing->end()) return {};
  std::vector<const Record*> out;
  out.reserve(it->second.size());
  for (auto i : it->second) out.push_back(corpus().records()[i].get());
  return out;
}

const std::string& Snapshot::knowledge_base_date() const {
  return impl_->kb_date;
}

namespace {

// Search's synonyms for this snapshot's records, made at its first search.
const SearchSynonyms& synonyms(SnapshotData& data, const Corpus& corpus) {
  std::call_once(data.synonyms_once, [&] { data.synonyms = search_synonyms(corpus.records()); });
  return data.synonyms;
}

}  // namespace

bool Snapshot::finds(std::string_view word, const std::vector<std::string>* found) const {
  if (!store_) return false;
  return store_->finds(word, &synonyms(*impl_, corpus()), options_.query_budget, found);
}

std::string_view Snapshot::search_ranking() const {
  return store_ ? store_->search_ranking() : std::string_view("none");
}

std::vector<SearchHit> Snapshot::search(std::string_view q, std::size_t limit,
                                        std::vector<std::string>* found,
                                        std::vector<const Record*>* records) const {
  if (found) found->clear();
  if (records) records->clear();
  if (!store_ || limit == 0) return {};
  const SearchSynonyms& syn = synonyms(*impl_, corpus());
  // Hits a reload changed after this snapshot are dropped; when any were, ask again for
  // more (the ranking is kept, so that costs only the rows read back and snippeted).
  std::size_t want = limit;
  std::vector<SearchHit> out;
  for (int round = 0; round < 4; ++round) {
    auto hits = store_->search(q, want, options_.query_budget, &syn, found);
    out.clear();
    if (records) records->clear();
    for (auto& h : hits) {
      const Record* r = corpus().find(h.id);
      if (!r || r->content_hash != h.content_hash) continue;
      out.push_back(std::move(h));
      if (records) records->push_back(r);
      if (out.size() == limit) break;
    }
    if (out.size() == limit || hits.size() < want) break;  // enough, or no more to ask for
    want += (limit - out.size()) + 16;
  }
  return out;
}

std::vector<ChangeStamp> Snapshot::changes_since(std::int64_t since_ms) const {
  std::vector<ChangeStamp> out;
  const auto& recs = corpus().records();
  for (std::size_t i = 0; i < recs.size(); ++i) {
    if (impl_->stamps[i] > since_ms) out.push_back({recs[i]->id, impl_->stamps[i], false});
  }
  const auto& tombs = *impl_->tombstones;
  auto first =
      std::upper_bound(tombs.begin(), tombs.end(), since_ms,
                       [](std::int64_t t, const ChangeStamp& s) { return t < s.changed_at_ms; });
  out.insert(out.end(), first, tombs.end());
  std::sort(out.begin(), out.end(), [](const ChangeStamp& a, const ChangeStamp& b) {
    return a.changed_at_ms != b.changed_at_ms ? a.changed_at_ms < b.changed_at_ms : a.id < b.id;
  });
  return out;
}

std::int64_t Snapshot::changes_cursor() const {
  return impl_->loaded_ms;
}

std::size_t Snapshot::diagnostics_of(Severity s) const {
  return count_severity(diagnostics(), s);
}

}  // namespace kb
