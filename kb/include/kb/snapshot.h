#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/diagnostic_list.h"
#include "kb/evidence.h"
#include "kb/lint.h"
#include "kb/store.h"

namespace kb {

class CheckIndex;
struct RecordClaims;

/// Filters, sort and page of `GET /api/v1/gotchas`. Every filter but `q` takes one value
/// or several separated by commas (any of them matches).
struct GotchaQuery {
  std::string engine;    ///< engine id or any name resolving to it; empty: any
  std::string severity;  ///< empty: any
  std::string status;
  std::string family;
  std::string reproduced;  ///< reproduced | not-reproduced | no-evidence
  std::string q;           ///< full-text filter
  bool include_withdrawn = false;
  std::string sort = "severity";  ///< severity | id | updated
  std::size_t limit = 50;         ///< capped by the caller
  std::string page_token;         ///< opaque keyset token from the previous page
};

/// One facet: (value, count) pairs, most frequent first, then by value.
using FacetCounts = std::vector<std::pair<std::string, std::size_t>>;

/// One page of gotchas with facet counts over the whole filtered set.
struct GotchaPage {
  std::vector<const Record*> items;
  std::string next_page_token;  ///< empty on the last page
  std::size_t total = 0;        ///< matching records, all pages
  /// facet name -> counts, for engine, severity, status, family, reproduced, in that order.
  std::vector<std::pair<std::string, FacetCounts>> facets;
};

/// One page of the records of one type, by id.
struct RecordPage {
  std::vector<const Record*> items;
  std::string next_page_token;  ///< empty on the last page
  std::size_t total = 0;        ///< records of the type, all pages
};

/// When a record was first seen and last changed, for `GET /api/v1/changes`.
struct ChangeStamp {
  std::string id;
  std::int64_t changed_at_ms = 0;  ///< unix ms
  bool deleted = false;
};

/// How a Snapshot derives what it is not handed ready-made.
struct SnapshotOptions {
  std::chrono::milliseconds query_budget{2000};  ///< time limit of one full-text query
  /// When set, `Linted::diagnostics` lacks the evidence claim checks: they run with these
  /// options on the first call of diagnostics(), off the reload path.
  std::optional<LintOptions> deferred_claims;
};

/// The sort orders `GotchaQuery::sort` accepts.
inline constexpr std::string_view kGotchaSorts[] = {"severity", "id", "updated"};

/// One whole, immutable view of the knowledge base: every request is answered from
/// exactly one snapshot, held by shared_ptr until the request finishes.
class Snapshot {
 public:
  /// Everything derived from a linted corpus, plus the full-text index in `store` (may be
  /// null: no full-text search). `previous` (may be null) carries change stamps forward
  /// and lets unchanged parts be shared instead of recomputed: when only a few records
  /// changed and no name did, construction costs what those records cost.
  Snapshot(Linted linted, std::shared_ptr<const Store> store, std::uint64_t generation,
           const Snapshot* previous, SnapshotOptions options = {});
  ~Snapshot();
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  const Corpus& corpus() const { return *linted_.corpus; }
  /// The corpus, shared, for holders that outlive this snapshot.
  const std::shared_ptr<const Corpus>& corpus_ptr() const { return linted_.corpus; }
  const EvidenceIndex& evidence() const { return linted_.evidence; }
  /// Every diagnostic, as `kb lint` reports them (claim checks run on first use).
  const DiagnosticList& diagnostics() const;
  /// The compiled applicability of every gotcha, built on first use; from the previous
  /// snapshot's when that one was built, so it costs only the records that changed.
  const CheckIndex& checks() const;
  /// Content hash of the corpus: the ETag of every response from this snapshot.
  const std::string& etag() const { return linted_.corpus->content_hash(); }
  std::uint64_t generation() const { return generation_; }
  /// knowledge_base_date() of the corpus (kb/record_dates.h), kept with the snapshot.
  const std::string& knowledge_base_date() const;
  std::chrono::system_clock::time_point loaded_at() const { return loaded_at_; }

  /// Gotchas matching `q`, keyset-paginated; throws Error(invalid_argument) on a bad
  /// token, sort or filter value (an engine that resolves to nothing, an unknown severity).
  GotchaPage gotchas(const GotchaQuery& q) const;
  /// Records of `kind` in id order after `page_token`; throws Error(invalid_argument) on
  /// a token this listing did not hand out.
  RecordPage records(Kind kind, std::string_view page_token, std::size_t limit) const;
  /// Records whose reference fields name `id` (resolved), sorted by id.
  std::vector<const Record*> referencing(std::string_view id) const;
  /// Full-text hits whose record is in this snapshot, unchanged since it was indexed;
  /// throws Error(timeout) past the query budget.
  /// `found`: the query's terms some record holds (Store::search), for finds().
  /// `records`: each hit's record, in the hits' order (looked up once here, where the
  /// hit is checked against it).
  std::vector<SearchHit> search(std::string_view q, std::size_t limit,
                                std::vector<std::string>* found = nullptr,
                                std::vector<const Record*>* records = nullptr) const;
  /// How search ranks now (Store::search_ranking); "none" without an index.
  std::string_view search_ranking() const;
  /// Whether searching `word` alone finds any record (as written, as a prefix, or by a
  /// synonym): the first matching row ends it, nothing is ranked.
  /// `found`: terms a search() of this snapshot reported found.
  bool finds(std::string_view word, const std::vector<std::string>* found = nullptr) const;
  /// Records added, changed or deleted after `since_ms`, oldest first.
  std::vector<ChangeStamp> changes_since(std::int64_t since_ms) const;
  /// This snapshot's load time in unix ms, never older than any change stamp: the cursor
  /// for the next `changes_since` call.
  std::int64_t changes_cursor() const;
  /// Counts of diagnostics by severity: error, warning, note.
  std::size_t diagnostics_of(Severity s) const;

 private:
  struct Impl;
  /// The deferred claims of every record, reusing the previous snapshot's where they hold.
  std::shared_ptr<const RecordClaims> record_claims(const std::string& today,
                                                    int stale_after_days) const;
  Linted linted_;
  std::shared_ptr<const Store> store_;
  std::unique_ptr<Impl> impl_;
  std::uint64_t generation_;
  std::chrono::system_clock::time_point loaded_at_;
  SnapshotOptions options_;
};

/// Where a live knowledge base comes from.
struct LiveOptions {
  std::filesystem::path records;  ///< watch and reload this tree ...
  std::filesystem::path db;       ///< ... or serve this prebuilt index read-only
  LintOptions lint;
  std::chrono::milliseconds poll_interval{250};  ///< fallback when inotify is unavailable
  std::chrono::milliseconds debounce{50};        ///< quiet time after a change before reloading
  std::chrono::milliseconds query_budget{2000};  ///< time limit of one full-text query
  bool force_polling = false;                    ///< do not use inotify (tests)
  /// Receives one line per reload problem or watcher fallback; may be empty.
  std::function<void(const std::string&)> log;
  /// Called at the start of every reload, on the thread doing it; may be empty (tests
  /// hold a reload here to see it running).
  std::function<void()> on_reload;
};

/// What the reloading side of a LiveKb is doing.
enum class ReloadState {
  idle,     ///< waiting for changes; the last reload (if any) succeeded
  running,  ///< a reload is reading the tree now
  failing,  ///< the last reload failed; the last good snapshot is served
};

/// "idle", "running", "failing".
std::string_view to_string(ReloadState s);

/// The reload state with its times, for /healthz and /metrics.
struct ReloadStatus {
  ReloadState state = ReloadState::idle;
  /// When the state began: the running reload's start, the first failure of a failing
  /// streak, or the last success.
  std::chrono::system_clock::time_point since;
  /// The end of the last reload that succeeded (the first load counts).
  std::chrono::system_clock::time_point last_success;
  std::string last_error;      ///< why the last reload failed; empty once one succeeds
  std::uint64_t failures = 0;  ///< reloads that failed since start
  /// Seconds the running reload has taken so far; 0 unless running.
  double running_seconds(std::chrono::system_clock::time_point now) const {
    return state == ReloadState::running ? std::chrono::duration<double>(now - since).count() : 0;
  }
};

/// Holds the current snapshot and replaces it atomically when files change.
class LiveKb {
 public:
  /// Loads the first snapshot; throws kb::Error when the source cannot be read.
  explicit LiveKb(LiveOptions options);
  ~LiveKb();
  LiveKb(const LiveKb&) = delete;
  LiveKb& operator=(const LiveKb&) = delete;
  /// The current snapshot; never null.
  std::shared_ptr<const Snapshot> current() const;
  /// Re-reads changed files now; true when a new snapshot was swapped in. Throws
  /// kb::Error when the tree cannot be read (the current snapshot stays).
  bool reload();
  /// Starts a thread that watches `records` (inotify, polling fallback) and reloads;
  /// does nothing for a database.
  void start_watching();
  /// Stops the watcher; idempotent.
  void stop();
  /// Number of snapshots swapped in since start.
  std::uint64_t reloads() const;
  /// Number of reloads that failed (the tree could not be read) since start.
  std::uint64_t reload_failures() const;
  /// Whether a reload is running, has failed, or all is well, and since when.
  ReloadStatus reload_status() const;
  /// Whether this serves a prebuilt database (read-only, never reloads).
  bool read_only() const;
  /// Whether the watcher uses inotify (false: polling, or not watching).
  bool uses_inotify() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kb
