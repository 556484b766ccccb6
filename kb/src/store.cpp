#include "kb/store.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <ctime>
#include <unordered_map>
#include <unordered_set>

#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "store_impl.h"

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
CREATE INDEX IF NOT EXISTS refs_record ON refs(record_id);
CREATE INDEX IF NOT EXISTS refs_target ON refs(target);
CREATE VIEW IF NOT EXISTS relations AS
  SELECT record_id AS source, field, target FROM refs WHERE target IS NOT NULL;
CREATE TABLE IF NOT EXISTS evidence(gotcha_id TEXT PRIMARY KEY, state TEXT NOT NULL,
  passed INTEGER, failed INTEGER, runs INTEGER, newest_date TEXT);
CREATE TABLE IF NOT EXISTS evidence_groups(gotcha_id TEXT NOT NULL, role TEXT NOT NULL,
  oracle TEXT, subject TEXT, passed INTEGER, failed INTEGER, runs INTEGER,
  newest_date TEXT, summary TEXT);
CREATE INDEX IF NOT EXISTS evidence_groups_gotcha ON evidence_groups(gotcha_id);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
  id UNINDEXED, content_hash UNINDEXED, title, symptom, root_cause, workaround, notes, other,
  tokenize = 'porter unicode61 remove_diacritics 2');
)sql";

std::string subject_text(const Record& r) {
  std::string s;
  for (const auto& e : r.subject.engines) {
    if (!s.empty()) s += " + ";
    s += e.raw;
    if (!e.versions.empty()) s += " " + e.versions;
  }
  for (const auto& [k, v] : r.subject.config) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s;
}

void fsync_path(const fs::path& p) {
  int fd = ::open(p.c_str(), O_RDONLY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

// Ids of the records in files that differ between two corpora (added, removed, re-read
// or turned stale): the only ids whose rows sync() can have to rewrite.
std::unordered_set<std::string> touched_ids(const Corpus& prev, const Corpus& next) {
  std::unordered_set<std::string> out;
  const auto& a = prev.files();
  const auto& b = next.files();
  auto add = [&](const std::shared_ptr<const FileResult>& f) {
    if (f->record) out.insert(f->record->id);
  };
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && j < b.size() && a[i] == b[j]) {  // shared by a reload: unchanged
      ++i;
      ++j;
    } else if (j == b.size() || (i < a.size() && a[i]->file < b[j]->file)) {
      add(a[i++]);
    } else if (i == a.size() || b[j]->file < a[i]->file) {
      add(b[j++]);
    } else {
      if (a[i]->record != b[j]->record || a[i]->stale != b[j]->stale) {
        add(a[i]);
        add(b[j]);
      }
      ++i;
      ++j;
    }
  }
  return out;
}

}  // namespace

Store::Store(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open_writable(const fs::path& path) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  int rc = sqlite3_open_v2(path.c_str(), &impl->writer,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    throw Error(Errc::io, "cannot create index '" + path.string() + "': " +
                              (impl->writer ? sqlite3_errmsg(impl->writer) : sqlite3_errstr(rc)));
  }
  sqlite3_busy_timeout(impl->writer, 5000);
  if (path != ":memory:") sql::exec(impl->writer, "PRAGMA journal_mode=WAL;");
  sql::exec(impl->writer, "PRAGMA synchronous=NORMAL;");
  sql::exec(impl->writer, kSchema);
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

void Store::sync(const Corpus* prev, const Corpus& next, const EvidenceIndex& evidence,
                 bool derived) {
  if (!impl_->writer) throw Error(Errc::invalid_argument, "index opened read-only");
  sqlite3* db = impl_->writer;
  sql::exec(db, "BEGIN IMMEDIATE;");
  try {
    // Only ids whose files changed can differ: comparing every record would cost a
    // live reload at 100k records more than everything else it does.
    struct Row {
      const Record* record;
      bool stale;
    };
    std::unordered_map<std::string, std::string> before;  // id -> hash+stale
    std::unordered_map<std::string, Row> after;
    if (prev) {
      for (const auto& id : touched_ids(*prev, next)) {
        if (const Record* r = prev->find(id)) before[id] = r->content_hash + (prev->is_stale(id) ? "s" : "");
        if (const Record* r = next.find(id)) after[id] = {r, next.is_stale(id)};
      }
    } else {
      for (const auto& r : next.records()) after[r->id] = {r.get(), next.is_stale(r->id)};
    }
    sql::Stmt del_rec(db, "DELETE FROM records WHERE id=?");
    sql::Stmt del_alias(db, "DELETE FROM aliases WHERE record_id=?");
    sql::Stmt del_cit(db, "DELETE FROM citations WHERE record_id=?");
    sql::Stmt del_rep(db, "DELETE FROM repairs WHERE record_id=?");
    sql::Stmt del_res(db, "DELETE FROM results WHERE id=?");
    // The full-text row shares the record row's rowid: FTS5 finds a row by rowid at once,
    // while `WHERE id=?` would read the whole full-text table for every removed record.
    sql::Stmt del_fts(db, "DELETE FROM fts WHERE rowid=(SELECT rowid FROM records WHERE id=?)");
    auto remove = [&](const std::string& id) {
      for (auto* s : {&del_fts, &del_rec, &del_alias, &del_cit, &del_rep, &del_res}) s->bind(1, id).run();
    };
    for (const auto& [id, hash] : before) {
      auto it = after.find(id);
      if (it == after.end() || it->second.record->content_hash + (it->second.stale ? "s" : "") != hash) {
        remove(id);
      }
    }
    sql::Stmt ins_rec(db,
        "INSERT INTO records(id,kind,file,title,name,severity,status,category,family,created,"
        "updated,repo,url,content_hash,stale,source) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
    sql::Stmt ins_alias(db, "INSERT INTO aliases(record_id,alias) VALUES(?,?)");
    sql::Stmt ins_cit(db,
        "INSERT INTO citations(record_id,type,repo,number,ref,url,title,state,as_of,note) "
        "VALUES(?,?,?,?,?,?,?,?,?,?)");
    sql::Stmt ins_rep(db,
        "INSERT INTO repairs(record_id,date,field,from_value,to_value,reason,confidence) "
        "VALUES(?,?,?,?,?,?,?)");
    sql::Stmt ins_res(db,
        "INSERT INTO results(id,oracle,date,passed,failed,errors,skipped,subject) "
        "VALUES(?,?,?,?,?,?,?,?)");
    sql::Stmt ins_fts(db,
        "INSERT INTO fts(rowid,id,content_hash,title,symptom,root_cause,workaround,notes,other) "
        "VALUES((SELECT rowid FROM records WHERE id=?1),?1,?2,?3,?4,?5,?6,?7,?8)");
    for (const auto& [id, f] : after) {
      auto old = before.find(id);
      if (old != before.end() && old->second == f.record->content_hash + (f.stale ? "s" : "")) continue;
      const Record& r = *f.record;
      ins_rec.bind(1, r.id).bind(2, kind_name(r.kind)).bind(3, r.file).bind(4, r.title)
          .bind(5, r.name).bind(6, r.severity).bind(7, r.status).bind(8, r.category)
          .bind(9, r.family).bind(10, r.created).bind(11, r.updated).bind(12, r.repo)
          .bind(13, r.url).bind(14, r.content_hash).bind(15, std::int64_t{f.stale ? 1 : 0})
          .bind(16, r.source_text).run();
      for (const auto& a : r.aliases) ins_alias.bind(1, r.id).bind(2, a).run();
      auto cite = [&](const Citation& c) {
        ins_cit.bind(1, r.id).bind(2, c.type).bind(3, c.repo).bind(4, c.number).bind(5, c.ref)
            .bind(6, c.url).bind(7, c.title).bind(8, c.state).bind(9, c.as_of).bind(10, c.note).run();
      };
      for (const auto& c : r.references) cite(c);
      if (r.source) cite(*r.source);
      for (const auto& e : r.repairs) {
        ins_rep.bind(1, r.id).bind(2, e.date).bind(3, e.field).bind(4, e.from).bind(5, e.to)
            .bind(6, e.reason).bind(7, e.confidence).run();
      }
      if (r.kind == Kind::result) {
        ins_res.bind(1, r.id).bind(2, r.oracle.raw).bind(3, r.date).bind(4, r.passed)
            .bind(5, r.failed).bind(6, r.errors).bind(7, r.skipped).bind(8, subject_text(r)).run();
      }
      std::string other = r.name + "\n" + r.description + "\n" + r.method + "\n" + r.pass_criterion +
                          "\n" + r.repo + "\n" + r.family + "\n" + r.category;
      for (const auto& a : r.aliases) other += "\n" + a;
      // Searching an engine's name finds the gotchas that affect it.
      for (const auto& a : r.affects) other += "\n" + a.raw;
      ins_fts.bind(1, r.id).bind(2, r.content_hash).bind(3, std::string(display_name(r)))
          .bind(4, r.symptom).bind(5, r.root_cause).bind(6, r.workaround).bind(7, r.notes)
          .bind(8, other).run();
    }

    // References and evidence depend on other records too: rewrite them whole.
    if (derived) sql::exec(db, "DELETE FROM refs; DELETE FROM evidence; DELETE FROM evidence_groups;");
    sql::Stmt ins_ref(db,
        "INSERT INTO refs(record_id,field,raw,target,target_kind,versions,line,col) "
        "VALUES(?,?,?,?,?,?,?,?)");
    sql::Stmt ins_ev(db,
        "INSERT INTO evidence(gotcha_id,state,passed,failed,runs,newest_date) VALUES(?,?,?,?,?,?)");
    sql::Stmt ins_grp(db,
        "INSERT INTO evidence_groups(gotcha_id,role,oracle,subject,passed,failed,runs,"
        "newest_date,summary) VALUES(?,?,?,?,?,?,?,?,?)");
    static const std::vector<std::shared_ptr<const Record>> kNone;
    for (const auto& rp : derived ? next.records() : kNone) {
      const Record& r = *rp;
      for (const auto& slot : reference_slots(r)) {
        auto target = next.target(slot.target, slot.ref->raw);
        ins_ref.bind(1, r.id).bind(2, slot.ref->field).bind(3, slot.ref->raw);
        if (target) ins_ref.bind(4, *target); else ins_ref.bind_null(4);
        ins_ref.bind(5, kind_name(slot.target)).bind(6, slot.ref->versions)
            .bind(7, std::int64_t{slot.ref->pos.line}).bind(8, std::int64_t{slot.ref->pos.column}).run();
      }
      if (r.kind != Kind::gotcha) continue;
      const EvidenceSummary& ev = evidence.for_gotcha(r.id);
      ins_ev.bind(1, r.id).bind(2, to_string(ev.state)).bind(3, ev.passed).bind(4, ev.failed)
          .bind(5, ev.runs).bind(6, ev.newest_date).run();
      auto group = [&](const EvidenceGroup& g, const char* role) {
        ins_grp.bind(1, r.id).bind(2, role).bind(3, g.oracle).bind(4, g.subject).bind(5, g.passed)
            .bind(6, g.failed).bind(7, g.runs)
            .bind(8, g.newest_date).bind(9, g.summary).run();
      };
      for (const auto& g : ev.groups) group(g, "evidence");
      for (const auto& g : ev.controls) group(g, "control");
    }

    sql::Stmt meta(db, "INSERT OR REPLACE INTO meta(key,value) VALUES(?,?)");
    char built[32];
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::strftime(built, sizeof built, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta.bind(1, std::string_view("schema_version")).bind(2, std::to_string(kSchemaVersion)).run();
    meta.bind(1, std::string_view("content_hash")).bind(2, next.content_hash()).run();
    meta.bind(1, std::string_view("built_at")).bind(2, std::string_view(built)).run();
    meta.bind(1, std::string_view("records")).bind(2, std::to_string(next.records().size())).run();
    sql::exec(db, "COMMIT;");
  } catch (...) {
    sqlite3_exec(db, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
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

std::vector<StoredSource> Store::sources() const {
  Lease lease(impl_.get(), false);
  sqlite3* db = lease.get();
  sql::Stmt st(db, "SELECT file, source, stale FROM records ORDER BY file");
  std::vector<StoredSource> out;
  while (st.step()) out.push_back({st.text(0), st.text(1), st.int64(2) != 0});
  return out;
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
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    std::size_t digits = prefix.size();
    while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits]))) ++digits;
    const std::string rest = name.substr(digits);
    if (digits == prefix.size() || digits - prefix.size() > 9 ||
        !(rest.empty() || rest == "-journal" || rest == "-wal" || rest == "-shm"))
      continue;
    const auto pid = static_cast<pid_t>(std::stol(name.substr(prefix.size(), digits - prefix.size())));
    if (::kill(pid, 0) != 0 && errno == ESRCH) {
      std::error_code rm;
      fs::remove(it->path(), rm);
    }
  }
}

}  // namespace

void write_index_file(const Corpus& corpus, const EvidenceIndex& evidence, const fs::path& path) {
  remove_dead_temp_files(path);
  fs::path tmp = path;
  tmp += ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove(tmp, ec);
  try {
    {
      Store s = Store::open_writable(tmp);
      sql::exec(s.impl_->writer, "PRAGMA journal_mode=DELETE;");
      s.sync(nullptr, corpus, evidence);
      sql::exec(s.impl_->writer, "PRAGMA optimize;");
    }
    fsync_path(tmp);
    fs::rename(tmp, path, ec);
    if (ec) throw Error(Errc::io, "cannot write index '" + path.string() + "': " + ec.message());
    fsync_path(path.parent_path().empty() ? fs::path(".") : path.parent_path());
  } catch (...) {
    fs::remove(tmp, ec);
    fs::path wal = tmp;
    wal += "-wal";
    fs::remove(wal, ec);
    throw;
  }
}

}  // namespace kb
