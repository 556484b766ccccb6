#include "kb/store.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <ctime>
#include <unordered_map>
#include <unordered_set>

#include "core/parallel.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "kb/lint.h"
#include "store/store_impl.h"

namespace kb {
namespace fs = std::filesystem;
namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records(
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, file TEXT NOT NULL, title TEXT, name TEXT,
  severity TEXT, status TEXT, category TEXT, family TEXT, created TEXT, updated TEXT,
  repo TEXT, url TEXT, content_hash TEXT NOT NULL, stale INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS aliases(record_id TEXT NOT NULL, alias TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS aliases_record ON aliases(record_id);
CREATE TABLE IF NOT EXISTS citations(record_id TEXT NOT NULL, type TEXT, repo TEXT,
  number INTEGER, ref TEXT, url TEXT, title TEXT, state TEXT, as_of TEXT, note TEXT);
CREATE INDEX IF NOT EXISTS citations_record ON citations(record_id);
CREATE TABLE IF NOT EXISTS repairs(record_id TEXT NOT NULL, date TEXT, field TEXT,
  from_value TEXT, to_value TEXT, reason TEXT, confidence REAL);
CREATE INDEX IF NOT EXISTS repairs_record ON repairs(record_id);
CREATE TABLE IF NOT EXISTS results(id TEXT PRIMARY KEY, oracle TEXT, date TEXT,
  passed INTEGER, failed INTEGER, errors INTEGER, skipped INTEGER, subject TEXT);
CREATE TABLE IF NOT EXISTS refs(record_id TEXT NOT NULL, field TEXT NOT NULL,
  raw TEXT NOT NULL, target TEXT, target_kind TEXT NOT NULL, versions TEXT,
  line INTEGER, col INTEGER);
CREATE VIEW IF NOT EXISTS relations AS
  SELECT record_id AS source, field, target FROM refs WHERE target IS NOT NULL;
CREATE TABLE IF NOT EXISTS evidence(gotcha_id TEXT PRIMARY KEY, state TEXT NOT NULL,
  passed INTEGER, failed INTEGER, runs INTEGER, newest_date TEXT);
CREATE TABLE IF NOT EXISTS evidence_groups(gotcha_id TEXT NOT NULL, role TEXT NOT NULL,
  oracle TEXT, subject TEXT, passed INTEGER, failed INTEGER, runs INTEGER,
  newest_date TEXT, summary TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  id UNINDEXED, content_hash UNINDEXED, title, symptom, root_cause, workaround, notes, other,
  tokenize = 'porter unicode61 remove_diacritics 2');
)sql";

// Indexes of the tables finish_update() rewrites whole. A new index file gets them after
// its rows are in: one sort instead of ~1M inserts in random key order, 4-6 s of a 100k
// build (bench/RESULTS.md, round 7).
const char* kDerivedIndexes = R"sql(
CREATE INDEX IF NOT EXISTS refs_record ON refs(record_id);
CREATE INDEX IF NOT EXISTS refs_target ON refs(target);
CREATE INDEX IF NOT EXISTS evidence_groups_gotcha ON evidence_groups(gotcha_id);
)sql";
const char* kDropDerivedIndexes =
    "DROP INDEX refs_record; DROP INDEX refs_target; DROP INDEX evidence_groups_gotcha;";

void fsync_path(const fs::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

void configure_sqlite() {
  // SQLite counts every allocation under one process-wide mutex (its memory statistics);
  // with many searches at once that mutex was their bottleneck (futex waits in
  // sqlite3Malloc and sqlite3_free). kb reads no statistics. Refused, harmlessly, when
  // something initialised SQLite first.
  static std::once_flag once;
  std::call_once(once, [] { sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open_writable(const fs::path& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  configure_sqlite();
  int rc =
      sqlite3_open_v2(path.c_str(), &impl->writer,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    throw Error(Errc::io, "cannot create index '" + path.string() + "': " +
                              (impl->writer ? sqlite3_errmsg(impl->writer) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(impl->writer, 5000);
  if (path != ":memory:") sql::exec(impl->writer, "PRAGMA journal_mode=WAL;");
  sql::exec(impl->writer, "PRAGMA synchronous=NORMAL;");
  sql::exec(impl->writer, kSchema);
  sql::exec(impl->writer, kDerivedIndexes);
  return Store(std::move(impl));
}

Store Store::open_readonly(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw Error(Errc::io, "no index at '" + path.string() + "'");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->readonly = true;
  Store s(std::move(impl));
  auto version = s.meta("schema_version");
  if (!version) throw Error(Errc::database, "'" + path.string() + "' is not a kb index");
  if (*version != std::to_string(kSchemaVersion)) {
    throw Error(Errc::database, "index '" + path.string() + "' has schema version " + *version +
                                    "; this kb reads version " + std::to_string(kSchemaVersion) +
                                    " (rebuild it with `kb build`)");
  }
  return s;
}

std::optional<std::string> Store::meta(std::string_view key) const {
  Lease lease(impl_.get(), false);
  sqlite3* db = lease.get();
  int has = 0;
  {
    sql::Stmt t(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'");
    if (t.step()) has = static_cast<int>(t.int64(0));
  }
  if (!has) return std::nullopt;
  sql::Stmt st(db, "SELECT value FROM meta WHERE key=?");
  st.bind(1, key);
  if (st.step()) return st.text(0);
  return std::nullopt;
}

std::optional<std::string> Store::source(std::string_view id, std::string_view content_hash) const {
  Lease lease(impl_.get(), true);
  sql::Stmt st(lease.get(), "SELECT source FROM records WHERE id=? AND content_hash=?");
  st.bind(1, id).bind(2, content_hash);
  if (st.step()) return st.text(0);
  return std::nullopt;
}

void Store::each_source(const std::function<void(std::vector<StoredSource>&)>& batch) const {
  Lease lease(impl_.get(), false);
  sql::Stmt st(lease.get(), "SELECT file, source, stale FROM records ORDER BY file");
  std::vector<StoredSource> some;
  while (st.step()) {
    some.push_back({st.text(0), st.text(1), st.int64(2) != 0});
    if (some.size() == 512) {
      batch(some);
      some.clear();
    }
  }
  if (!some.empty()) batch(some);
}

bool Store::integrity_ok() const {
  Lease lease(impl_.get(), false);
  sqlite3* db = lease.get();
  sql::Stmt st(db, "PRAGMA integrity_check");
  return st.step() && st.text(0) == "ok";
}

namespace {

// A build killed before its rename leaves `<index>.tmp-<pid>` (and SQLite's -journal):
// remove those whose process is gone. A live pid is left alone, even if it was reused.
void remove_dead_temp_files(const fs::path& path) {
  const std::string prefix = path.filename().string() + ".tmp-";
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix)) continue;
    std::size_t digits = prefix.size();
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
    const std::string rest = name.substr(digits);
    if (digits == prefix.size() || digits - prefix.size() > 9 ||
        !(rest.empty() || rest == "-journal" || rest == "-wal" || rest == "-shm"))
      continue;
    const auto pid =
        static_cast<pid_t>(std::stol(name.substr(prefix.size(), digits - prefix.size())));
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
  }
}

}  // namespace

// The writer connection of an index file being built, for its pragmas.
struct IndexFileAccess {
  static sqlite3* writer(Store& s) { return s.impl_->writer; }
};

namespace {

// Fills a fresh index beside `path` with `fill` and renames it over `path` when `fill`
// returns true; a failed, refused or killed build leaves the old file as it was. Not
// write_atomic (kb/atomic_write.h): SQLite writes the temporary file itself, so there are
// no bytes in memory to hand over; the rename is the same idea.
template <class Fill>
bool replace_index_file(const fs::path& path, Fill fill) {
  remove_dead_temp_files(path);
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove(tmp, ec);
  auto remove_tmp = [&] {
    fs::remove(tmp, ec);
    fs::path wal = tmp;
    wal += "-wal";
    fs::remove(wal, ec);
  };
  try {
    {
      Store s = Store::open_writable(tmp);
      sqlite3* db = IndexFileAccess::writer(s);
      sql::exec(db, "PRAGMA journal_mode=DELETE;");
      sql::exec(db, kDropDerivedIndexes);
      if (!fill(s)) {
        s.abort_update();
        remove_tmp();
        return false;
      }
      sql::exec(db, kDerivedIndexes);
      sql::exec(db, "PRAGMA optimize;");
    }
    fsync_path(tmp);
    fs::rename(tmp, path, ec);
    if (ec) throw Error(Errc::io, "cannot write index '" + path.string() + "': " + ec.message());
    fsync_path(path.parent_path().empty() ? fs::path(".") : path.parent_path());
    return true;
  } catch (...) {
    remove_tmp();
    throw;
  }
}

}  // namespace

void write_index_file(const Corpus& corpus, const EvidenceIndex& evidence, const fs::path& path) {
  replace_index_file(path, [&](Store& s) {
    s.sync(nullptr, corpus, evidence);
    return true;
  });
}

Linted build_index_file(const fs::path& dir, const LintOptions& options, const fs::path& path) {
  Linted linted;
  replace_index_file(path, [&](Store& s) {
    LintOptions slim = options;
    // Bodies are read back from the files (the index is not committed yet).
    slim.load.bodies = record_bodies(nullptr);
    // One core is the index writer's.
    slim.load.threads = loaders_beside_writer(slim.load.threads);
    // The corpus keeps its options: the sink must not outlive this index.
    auto sink = std::make_shared<Store*>(&s);
    slim.load.on_loaded = [sink](const FileResult& f) {
      if (*sink) (*sink)->put(f);
    };
    s.begin_update();
    linted = lint_tree(dir, slim);
    *sink = nullptr;
    if (count_severity(linted.diagnostics, Severity::error) > 0) return false;
    s.finish_update(nullptr, *linted.corpus, linted.evidence);
    return true;
  });
  return linted;
}

}  // namespace kb
