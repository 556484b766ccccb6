#include <malloc.h>
#include <stdlib.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "core/parallel.h"
#include "kb/error.h"
#include "kb/snapshot.h"
#include "live/snapshot_impl.h"
#include "live/watch.h"

namespace kb {
namespace fs = std::filesystem;
namespace {

// The private full-text index of a records tree lives in a fresh directory under the
// system temp directory, removed again when the server stops.
fs::path make_temp_dir() {
  std::string pattern = (fs::temp_directory_path() / "kb-serve-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw Error(Errc::io, "cannot create a temporary directory for the search index");
  return pattern;
}

// The corpus with its evidence but without the claim checks, which the snapshot runs on
// first use: they are the slowest part of linting and no reload needs them to serve.
Linted evidence_only(std::shared_ptr<const Corpus> corpus) {
  Linted out;
  out.evidence = EvidenceIndex::build(*corpus);
  out.diagnostics = corpus->diagnostics();
  out.corpus = std::move(corpus);
  return out;
}

// Loading parses every file on every core and drops most of each record once indexed:
// hand the freed pages back instead of keeping the load's high-water mark for good.
void release_free_memory() {
  ::malloc_trim(0);
}

}  // namespace

std::string_view to_string(ReloadState s) {
  switch (s) {
    case ReloadState::idle:
      return "idle";
    case ReloadState::running:
      return "running";
    case ReloadState::failing:
      return "failing";
  }
  return "idle";
}

// Parsed a batch at a time on every core, so that a slim load never holds every file.
std::shared_ptr<const Corpus> Corpus::from_store(const Store& store, const fs::path& db,
                                                 const LoadOptions& options) {
  std::vector<FileResult> files;
  store.each_source([&](std::vector<StoredSource>& batch) {
    const std::size_t first = files.size();
    files.resize(first + batch.size());
    parallel_for(batch.size(), options.threads, [&](std::size_t i) {
      FileResult& f = files[first + i];
      f = load_record_text(batch[i].file, batch[i].bytes, options);
      std::string().swap(batch[i].bytes);
      f.stale = batch[i].stale;
      after_load(f, options);
    });
  });
  return Corpus::from_files(db.parent_path(), std::move(files), options);
}

struct LiveKb::Impl {
  LiveOptions options;
  fs::path temp_dir;
  std::shared_ptr<Store> store;
  bool read_only_store = false;
  std::shared_ptr<const RecordBodies> bodies;  ///< read back from `store`
  mutable std::mutex current_mu;
  std::shared_ptr<const Snapshot> current;
  std::mutex reload_mu;  // one reload at a time; readers never wait for it
  std::atomic<std::uint64_t> generation{1};
  std::atomic<std::uint64_t> reloads{0};
  std::atomic<std::uint64_t> failures{0};
  std::atomic<bool> inotify{false};
  std::unique_ptr<DirWatcher> watcher;
  std::thread thread;
  bool rescan_next = false;  // a failed reload may have missed the files it was told about
  std::optional<std::chrono::system_clock::time_point> failing_since;  // under reload_mu

  // What /healthz reports; written by whichever thread reloads.
  mutable std::mutex status_mu;
  ReloadStatus status;

  SnapshotOptions snapshot_options() const { return {options.query_budget, options.lint}; }

  // Records are written to the index as they load and kept slim; their bodies are read
  // back from it.
  LoadOptions load_options(std::shared_ptr<const RecordBodies> bodies) const {
    LoadOptions o = options.lint.load;
    o.bodies = std::move(bodies);
    if (!read_only_store) {
      Store* s = store.get();
      o.on_loaded = [s](const FileResult& f) { s->put(f); };
    }
    return o;
  }

  void log(const std::string& line) const {
    if (options.log) options.log(line);
  }

  void swap_in(std::shared_ptr<const Snapshot> next) {
    std::lock_guard<std::mutex> lock(current_mu);
    current.swap(next);
    // `next` now holds the old snapshot; it is released here unless a request holds it.
  }

  // The check index and the claim checks are built here, after the swap, rather than by
  // whichever request first needs them: the edit is served without waiting for them, and
  // their memory comes from this thread's heap, not from one worker's after another
  // (glibc keeps a freed high-water mark per arena). Each builds on the previous
  // snapshot's, so after a one-file edit they cost that file.
  static void warm(const Snapshot& s) {
    s.checks();
    s.diagnostics();
  }

  std::shared_ptr<const Snapshot> get() const {
    std::lock_guard<std::mutex> lock(current_mu);
    return current;
  }

  void watch_loop() {
    for (;;) {
      auto ev = watcher->wait(options.poll_interval, options.debounce);
      if (ev == WatchEvent::stopped) return;
      bool was_inotify = inotify.exchange(watcher->uses_inotify());
      if (was_inotify && !watcher->uses_inotify()) {
        log("watching " + options.records.string() + " by polling: " + watcher->fallback_reason());
      }
      if (ev != WatchEvent::changed) continue;
      auto changes = watcher->take_changes();
      reload_logged(changes && !rescan_next ? &*changes : nullptr);
    }
  }

  // A tree that stays unreadable would otherwise log the same line on every poll.
  void reload_logged(const std::vector<std::string>* only = nullptr) {
    const std::string before = reload_status().last_error;
    try {
      reload_tracked(only);
      rescan_next = false;
    } catch (const std::exception& e) {
      rescan_next = true;
      if (before != e.what())
        log(std::string("reload failed, still serving the previous snapshot: ") + e.what());
    }
  }

  ReloadStatus reload_status() const {
    std::lock_guard<std::mutex> lock(status_mu);
    ReloadStatus out = status;
    out.failures = failures;
    return out;
  }

  // reload_now with its state kept for /healthz: running from start to end, then idle or
  // failing (since the first failure of a streak).
  bool reload_tracked(const std::vector<std::string>* only = nullptr) {
    std::lock_guard<std::mutex> one_at_a_time(reload_mu);
    set_status([](ReloadStatus& st, auto now) {
      st.state = ReloadState::running;
      st.since = now;
    });
    try {
      if (options.on_reload) options.on_reload();
      const bool swapped = reload_now(only);
      failing_since.reset();
      set_status([](ReloadStatus& st, auto now) {
        st.state = ReloadState::idle;
        st.since = st.last_success = now;
        st.last_error.clear();
      });
      return swapped;
    } catch (const std::exception& e) {
      ++failures;
      if (!failing_since) failing_since = std::chrono::system_clock::now();
      set_status([&](ReloadStatus& st, auto) {
        st.state = ReloadState::failing;
        st.since = *failing_since;
        st.last_error = e.what();
      });
      throw;
    }
  }

  template <class Change>
  void set_status(Change change) {
    const auto now = std::chrono::system_clock::now();
    std::lock_guard<std::mutex> lock(status_mu);
    change(status, now);
  }

  // `only`: the files a watcher saw change; null rescans the whole tree. Called with
  // reload_mu held.
  bool reload_now(const std::vector<std::string>* only) {
    auto prev = get();
    Linted linted;
    store->begin_update();
    try {
      auto corpus = Corpus::reload(prev->corpus(), load_options(bodies), only);
      if (corpus->content_hash() == prev->etag()) {
        store->abort_update();
        return false;
      }
      if (same_evidence(prev->corpus(), *corpus)) {
        linted.evidence = prev->evidence();
        linted.diagnostics = corpus->diagnostics();
        linted.corpus = std::move(corpus);
      } else {
        linted = evidence_only(std::move(corpus));
      }
      store->finish_update(&prev->corpus(), *linted.corpus, linted.evidence, false);
    } catch (...) {
      store->abort_update();
      throw;
    }
    auto next = std::make_shared<const Snapshot>(std::move(linted), store, ++generation, prev.get(),
                                                 snapshot_options());
    swap_in(next);
    ++reloads;
    warm(*next);
    store->prepare_search();
    return true;
  }
};

LiveKb::LiveKb(LiveOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->status.since = impl_->status.last_success = std::chrono::system_clock::now();
  auto& o = impl_->options;
  if (!o.db.empty()) {
    impl_->store = std::make_shared<Store>(Store::open_readonly(o.db));
    impl_->read_only_store = true;
    impl_->bodies = record_bodies(impl_->store);
    Linted linted =
        evidence_only(Corpus::from_store(*impl_->store, o.db, impl_->load_options(impl_->bodies)));
    impl_->current = std::make_shared<const Snapshot>(std::move(linted), impl_->store, 1, nullptr,
                                                      impl_->snapshot_options());
    impl_->warm(*impl_->current);
    impl_->store->prepare_search();
    release_free_memory();
    return;
  }
  impl_->temp_dir = make_temp_dir();
  try {
    impl_->store = std::make_shared<Store>(Store::open_writable(impl_->temp_dir / "search.db"));
    impl_->bodies = record_bodies(impl_->store);
    Linted linted;
    impl_->store->begin_update();
    try {
      LoadOptions first = impl_->load_options(impl_->bodies);
      first.threads = loaders_beside_writer(first.threads);  // one core is the writer's
      linted = evidence_only(Corpus::load(o.records, first));
      impl_->store->finish_update(nullptr, *linted.corpus, linted.evidence, false);
    } catch (...) {
      impl_->store->abort_update();
      throw;
    }
    impl_->current = std::make_shared<const Snapshot>(std::move(linted), impl_->store, 1, nullptr,
                                                      impl_->snapshot_options());
    impl_->warm(*impl_->current);
    impl_->store->prepare_search();
    release_free_memory();
  } catch (...) {
    impl_->store.reset();
    std::error_code ec;
    fs::remove_all(impl_->temp_dir, ec);
    throw;
  }
}

LiveKb::~LiveKb() {
  stop();
  impl_->current.reset();
  impl_->bodies.reset();
  impl_->store.reset();
  if (!impl_->temp_dir.empty()) {
    std::error_code ec;
    fs::remove_all(impl_->temp_dir, ec);
  }
}

std::shared_ptr<const Snapshot> LiveKb::current() const {
  return impl_->get();
}

bool LiveKb::reload() {
  if (read_only()) return false;
  return impl_->reload_tracked();
}

void LiveKb::start_watching() {
  if (read_only() || impl_->thread.joinable()) return;
  impl_->watcher =
      std::make_unique<DirWatcher>(impl_->options.records, impl_->options.force_polling);
  impl_->inotify = impl_->watcher->uses_inotify();
  if (!impl_->watcher->uses_inotify() && !impl_->watcher->fallback_reason().empty()) {
    impl_->log("watching " + impl_->options.records.string() +
               " by polling: " + impl_->watcher->fallback_reason());
  }
  // Changes made between the first load and the first watch would otherwise go unseen.
  impl_->reload_logged();
  // That rescan stats every file and plans a reload over all of them: at 100k records,
  // ~85 MiB taken and freed again, which glibc would otherwise keep (bench/RESULTS.md,
  // round 9).
  release_free_memory();
  impl_->thread = std::thread([this] { impl_->watch_loop(); });
}

void LiveKb::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->watcher->stop();
  impl_->thread.join();
  impl_->watcher.reset();
  impl_->inotify = false;
}

std::uint64_t LiveKb::reloads() const {
  return impl_->reloads;
}
std::uint64_t LiveKb::reload_failures() const {
  return impl_->failures;
}
ReloadStatus LiveKb::reload_status() const {
  return impl_->reload_status();
}
bool LiveKb::read_only() const {
  return !impl_->options.db.empty();
}
bool LiveKb::uses_inotify() const {
  return impl_->inotify;
}

}  // namespace kb
