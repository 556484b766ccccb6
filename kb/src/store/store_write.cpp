// Writing the index: one update is one transaction; records go in as they are loaded
// (put, from the loading threads) or from a whole corpus (sync), then finish_update
// removes what is gone and rewrites the tables that depend on every record.

#include <ctime>
#include <unordered_set>

#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/evidence.h"
#include "store/store_impl.h"
#include "store/write_queue.h"

namespace kb {
namespace {

std::string subject_text(const Record& r) {
  std::string s;
  for (const auto& e : r.result->subject.engines) {
    if (!s.empty()) s += " + ";
    s += e.raw;
    if (!e.versions.empty()) s += " " + e.versions;
  }
  for (const auto& [k, v] : r.result->subject.config) s += (s.empty() ? "" : ", ") + k + "=" + v;
  return s;
}

// Ids of the records in files that differ between two corpora (added, removed, re-read
// or turned stale): the only ids whose rows an update can have to rewrite.
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

SearchColumns search_columns(const Record& r) {
  std::string other = r.engine->name + "\n" + r.description + "\n" + r.method + "\n" +
                      r.pass_criterion + "\n" + r.engine->repo + "\n" + r.family + "\n" +
                      r.category;
  // Its id (a pasted `gotchas/x-y` or `x-y` finds it) and the names it answers to.
  other += "\n" + r.id;
  for (const auto& a : r.aliases) other += "\n" + a;
  // Searching an engine's name finds the gotchas that affect it.
  for (const auto& a : r.affects) other += "\n" + a.raw;
  // Tags, and the words a log or a command line uses: a setting's key, synonyms and
  // every flag, variable and key that spells it, its values' synonyms; a signature.
  for (const auto& t : r.tags) other += "\n" + t;
  if (r.kind == Kind::setting) {
    other += "\n" + r.setting->key.str();
    for (const auto& syn : r.setting->synonyms) other += "\n" + syn;
    for (const auto& e : r.setting->engines) {
      for (const auto* list : {&e.flags, &e.env, &e.json, &e.keys}) {
        for (const auto& sp : *list) other += "\n" + sp.name.str() + " " + sp.field.str();
      }
    }
    for (const auto& v : r.setting->values) {
      other += "\n" + v.value.str();
      for (const auto& syn : v.synonyms) other += " " + syn;
    }
  }
  if (r.detection) {
    for (const auto& sig : r.detection->signatures)
      other += "\n" + (sig.literal.empty() ? sig.regex.str() : sig.literal.str());
  }
  return {std::string(display_name(r)),
          r.symptom,
          r.root_cause,
          r.workaround,
          r.notes,
          std::move(other)};
}

struct StoreWriter {
  explicit StoreWriter(sqlite3* db)
      : db(db),
        fresh(!sql::Stmt(db, "SELECT 1 FROM records LIMIT 1").step()),
        del_rec(db, "DELETE FROM records WHERE id=?"),
        del_alias(db, "DELETE FROM aliases WHERE record_id=?"),
        del_cit(db, "DELETE FROM citations WHERE record_id=?"),
        del_rep(db, "DELETE FROM repairs WHERE record_id=?"),
        del_res(db, "DELETE FROM results WHERE id=?"),
        // The full-text row shares the record row's rowid: FTS5 finds a row by rowid at
        // once, while `WHERE id=?` would read the whole full-text table per removed record.
        del_fts(db, "DELETE FROM fts WHERE rowid=(SELECT rowid FROM records WHERE id=?)"),
        ins_rec(db,
                "INSERT INTO records(id,kind,file,title,name,severity,status,category,family,"
                "created,updated,repo,url,content_hash,stale,source) "
                "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        ins_alias(db, "INSERT INTO aliases(record_id,alias) VALUES(?,?)"),
        ins_cit(db,
                "INSERT INTO citations(record_id,type,repo,number,ref,url,title,state,as_of,note) "
                "VALUES(?,?,?,?,?,?,?,?,?,?)"),
        ins_rep(db,
                "INSERT INTO repairs(record_id,date,field,from_value,to_value,reason,confidence) "
                "VALUES(?,?,?,?,?,?,?)"),
        ins_res(db,
                "INSERT INTO results(id,oracle,date,passed,failed,errors,skipped,subject) "
                "VALUES(?,?,?,?,?,?,?,?)"),
        ins_fts(db,
                "INSERT INTO fts(rowid,id,content_hash,title,symptom,root_cause,workaround,notes,"
                "other) VALUES(?,?,?,?,?,?,?,?,?)"),
        set_stale(db, "UPDATE records SET stale=? WHERE id=? AND stale<>?1"),
        queue([this](const Record& r, bool stale) { replace(r, stale); }, kQueuedRecords) {}

  // Records waiting for the writing thread: enough to keep it busy while the loading
  // threads parse, few enough to cost a few MiB (a whole record with its source text).
  static constexpr std::size_t kQueuedRecords = 512;

  void remove(const std::string& id) {
    for (auto* s : {&del_fts, &del_rec, &del_alias, &del_cit, &del_rep, &del_res})
      s->bind(1, id).run();
  }

  // Replaces the rows of `r.id` with `r`'s, which must be whole (the full-text row is
  // made from its bodies).
  void replace(const Record& r, bool stale) {
    // An index that began empty holds only what this update wrote: no rows to remove but
    // those of an id written twice (two files claiming one id).
    if (!fresh || !written.insert(r.id).second) remove(r.id);
    ins_rec.bind(1, r.id)
        .bind(2, kind_name(r.kind))
        .bind(3, r.file)
        .bind(4, r.title)
        .bind(5, r.engine->name)
        .bind(6, to_string(r.severity))
        .bind(7, to_string(r.status))
        .bind(8, r.category)
        .bind(9, r.family)
        .bind(10, r.created)
        .bind(11, r.updated)
        .bind(12, r.engine->repo)
        .bind(13, r.engine->url)
        .bind(14, r.content_hash)
        .bind(15, std::int64_t{stale ? 1 : 0})
        .bind(16, r.source_text)
        .run();
    // The full-text row takes the record row's rowid (read before other rows are added).
    const std::int64_t rowid = sqlite3_last_insert_rowid(db);
    for (const auto& a : r.aliases) ins_alias.bind(1, r.id).bind(2, a).run();
    auto cite = [&](const Citation& c) {
      ins_cit.bind(1, r.id)
          .bind(2, c.type)
          .bind(3, c.repo)
          .bind(4, c.number)
          .bind(5, c.ref)
          .bind(6, c.url)
          .bind(7, c.title)
          .bind(8, c.state)
          .bind(9, c.as_of)
          .bind(10, c.note)
          .run();
    };
    for (const auto& c : r.references) cite(c);
    if (r.result->source) cite(*r.result->source);
    for (const auto& e : r.repairs) {
      ins_rep.bind(1, r.id)
          .bind(2, e.date)
          .bind(3, e.field)
          .bind(4, e.from)
          .bind(5, e.to)
          .bind(6, e.reason)
          .bind(7, e.confidence)
          .run();
    }
    if (r.kind == Kind::result) {
      ins_res.bind(1, r.id)
          .bind(2, r.result->oracle.raw)
          .bind(3, r.result->date)
          .bind(4, r.result->passed)
          .bind(5, r.result->failed)
          .bind(6, r.result->errors)
          .bind(7, r.result->skipped)
          .bind(8, subject_text(r))
          .run();
    }
    const SearchColumns cols = search_columns(r);
    ins_fts.bind(1, rowid)
        .bind(2, r.id)
        .bind(3, r.content_hash)
        .bind(4, cols.title)
        .bind(5, cols.symptom)
        .bind(6, cols.root_cause)
        .bind(7, cols.workaround)
        .bind(8, cols.notes)
        .bind(9, cols.other)
        .run();
  }

  sqlite3* const db;
  const bool fresh;                         ///< the index held no record when the update began
  std::unordered_set<std::string> written;  ///< ids written by this update, when fresh
  sql::Stmt del_rec, del_alias, del_cit, del_rep, del_res, del_fts;
  sql::Stmt ins_rec, ins_alias, ins_cit, ins_rep, ins_res, ins_fts;
  sql::Stmt set_stale;
  WriteQueue queue;  ///< last: stopped before the statements it writes with are finalised
};

void Store::begin_update() {
  if (!impl_->writer) throw Error(Errc::invalid_argument, "index opened read-only");
  std::lock_guard<std::mutex> lock(impl_->update_mu);
  if (impl_->update) throw Error(Errc::internal, "an index update is already running");
  sql::exec(impl_->writer, "BEGIN IMMEDIATE;");
  try {
    impl_->update = std::make_shared<StoreWriter>(impl_->writer);
  } catch (...) {
    sqlite3_exec(impl_->writer, "ROLLBACK;", nullptr, nullptr, nullptr);
    throw;
  }
}

void Store::put(const FileResult& file) {
  if (!file.record) return;
  std::shared_ptr<StoreWriter> w;
  {
    std::lock_guard<std::mutex> lock(impl_->update_mu);
    if (!impl_->update) throw Error(Errc::internal, "Store::put outside an update");
    w = impl_->update;
  }
  // A copy: the caller slims its record as soon as this returns.
  w->queue.push(std::make_shared<const Record>(*file.record), file.stale);
}

void Store::abort_update() noexcept {
  std::lock_guard<std::mutex> lock(impl_->update_mu);
  // The writing thread stops before the rollback: the connection is not for two threads.
  if (impl_->update) impl_->update->queue.cancel();
  impl_->update.reset();
  if (impl_->writer && !sqlite3_get_autocommit(impl_->writer))
    sqlite3_exec(impl_->writer, "ROLLBACK;", nullptr, nullptr, nullptr);
}

void Store::finish_update(const Corpus* prev, const Corpus& next, const EvidenceIndex& evidence,
                          bool derived) {
  std::lock_guard<std::mutex> lock(impl_->update_mu);
  if (!impl_->update) throw Error(Errc::internal, "Store::finish_update outside an update");
  sqlite3* db = impl_->writer;
  StoreWriter& w = *impl_->update;
  w.queue.finish();  // every record put is written before what depends on them
  if (prev) {
    // Only ids whose files changed can differ: comparing every record would cost a live
    // reload at 100k records more than everything else it does. A file that broke keeps
    // its last good row, marked stale.
    for (const auto& id : touched_ids(*prev, next)) {
      if (!next.find(id)) {
        w.remove(id);
        continue;
      }
      const std::int64_t stale = next.is_stale(id) ? 1 : 0;
      w.set_stale.bind(1, stale).bind(2, id).run();
    }
  }

  // References and evidence depend on other records too: rewrite them whole.
  if (derived) {
    sql::exec(db, "DELETE FROM refs; DELETE FROM evidence; DELETE FROM evidence_groups;");
    sql::Stmt ins_ref(db,
                      "INSERT INTO refs(record_id,field,raw,target,target_kind,versions,line,col) "
                      "VALUES(?,?,?,?,?,?,?,?)");
    sql::Stmt ins_ev(
        db,
        "INSERT INTO evidence(gotcha_id,state,passed,failed,runs,newest_date) VALUES(?,?,?,?,?,?)");
    sql::Stmt ins_grp(
        db,
        "INSERT INTO evidence_groups(gotcha_id,role,oracle,subject,passed,failed,runs,"
        "newest_date,summary) VALUES(?,?,?,?,?,?,?,?,?)");
    for (const auto& rp : next.records()) {
      const Record& r = *rp;
      for (const auto& slot : reference_slots(r)) {
        auto target = next.target(slot.target, slot.ref->raw);
        ins_ref.bind(1, r.id).bind(2, slot.ref->field).bind(3, slot.ref->raw);
        if (target)
          ins_ref.bind(4, *target);
        else
          ins_ref.bind_null(4);
        ins_ref.bind(5, kind_name(slot.target))
            .bind(6, slot.ref->versions)
            .bind(7, std::int64_t{slot.ref->pos.line})
            .bind(8, std::int64_t{slot.ref->pos.column})
            .run();
      }
      if (r.kind != Kind::gotcha) continue;
      const EvidenceSummary& ev = evidence.for_gotcha(r.id);
      ins_ev.bind(1, r.id)
          .bind(2, to_string(ev.state))
          .bind(3, ev.passed)
          .bind(4, ev.failed)
          .bind(5, ev.runs)
          .bind(6, ev.newest_date)
          .run();
      auto group = [&](const EvidenceGroup& g, const char* role) {
        ins_grp.bind(1, r.id)
            .bind(2, role)
            .bind(3, g.oracle)
            .bind(4, g.subject)
            .bind(5, g.passed)
            .bind(6, g.failed)
            .bind(7, g.runs)
            .bind(8, g.newest_date)
            .bind(9, g.summary())
            .run();
      };
      for (const auto& g : ev.groups) group(g, "evidence");
      for (const auto& g : ev.controls) group(g, "control");
    }
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
  impl_->update.reset();
  sql::exec(db, "COMMIT;");
  impl_->generation.fetch_add(1, std::memory_order_acq_rel);
}

void Store::sync(const Corpus* prev, const Corpus& next, const EvidenceIndex& evidence,
                 bool derived) {
  begin_update();
  try {
    {
      std::lock_guard<std::mutex> lock(impl_->update_mu);
      StoreWriter& w = *impl_->update;
      if (prev) {
        for (const auto& id : touched_ids(*prev, next)) {
          const Record* before = prev->find(id);
          const Record* after = next.find(id);
          if (after && (!before || before->content_hash != after->content_hash))
            w.replace(*after, next.is_stale(id));
        }
      } else {
        for (const auto& r : next.records()) w.replace(*r, next.is_stale(r->id));
      }
    }
    finish_update(prev, next, evidence, derived);
  } catch (...) {
    abort_update();
    throw;
  }
}

}  // namespace kb
