#pragma once

// The connections behind a Store, private to kb_core: shared by store.cpp (schema, sync,
// index files) and store_search.cpp (full-text queries).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kb/error.h"
#include "kb/store.h"
#include "store/sqlite_util.h"

namespace kb {

/// The prepared statements of an update in progress (store_write.cpp).
struct StoreWriter;
/// The kept rankings of full-text queries already asked (store_search.cpp).
struct RankedQueries;
std::shared_ptr<RankedQueries> make_ranked_queries();
/// The ranking held in memory for the newest generation, and its builder (store_search.cpp).
struct MemRanking;
std::shared_ptr<MemRanking> make_mem_ranking();

/// Process-wide SQLite settings, applied once before the first connection opens.
void configure_sqlite();

struct Store::Impl {
  std::filesystem::path path;
  bool readonly = false;
  sqlite3* writer = nullptr;
  mutable std::mutex mu;
  mutable std::vector<sqlite3*> idle_readers;
  std::mutex update_mu;                 ///< serialises put() from the loading threads
  std::shared_ptr<StoreWriter> update;  ///< set between begin_update() and its end
  /// Bumped after every commit: rankings cached from an older index are dropped.
  std::atomic<std::uint64_t> generation{0};
  std::shared_ptr<RankedQueries> ranked = make_ranked_queries();
  std::shared_ptr<MemRanking> mem = make_mem_ranking();

  ~Impl() {
    update.reset();  // its statements must be finalised before the connection closes
    sql::close(writer);
    for (auto* db : idle_readers) sql::close(db);
  }

  sqlite3* open_reader() const {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!idle_readers.empty()) {
        sqlite3* db = idle_readers.back();
        idle_readers.pop_back();
        return db;
      }
    }
    if (path == ":memory:") throw Error(Errc::internal, "an in-memory index has no readers");
    configure_sqlite();
    sqlite3* db = nullptr;
    int rc =
        sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
      std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
      sqlite3_close(db);
      throw Error(Errc::io, "cannot open index '" + path.string() + "': " + msg);
    }
    sqlite3_busy_timeout(db, 2000);
    // Pages are read with read(2), not through a mapping of the file (PRAGMA mmap_size):
    // a search reads only its hits' text, a few dozen pages scattered over the index, and
    // each connection's mapping of them stayed mapped. After a minute of distinct searches
    // every connection mapped most of the file (RSS 2.6 GiB at 100k records, 0.9 without),
    // and the kernel's upkeep of those page tables stalled a core for milliseconds at a
    // time: p99 at 16 connections 22-31 ms mapped, 12-17 ms read (bench/RESULTS.md, round
    // 23), for ~0.1 ms more CPU a search.
    return db;
  }
  void release(sqlite3* db) const {
    std::lock_guard<std::mutex> lock(mu);
    idle_readers.push_back(db);
  }
};

// A connection borrowed for one call: the writer when there is one (or the only
// connection of an in-memory index), else a pooled read-only connection.
class Store::Lease {
 public:
  Lease(const Store::Impl* impl, bool prefer_reader)
      : impl_(impl),
        db_(impl->writer && (!prefer_reader || impl->path == ":memory:") ? impl->writer
                                                                         : impl->open_reader()) {}
  ~Lease() {
    if (db_ != impl_->writer) impl_->release(db_);
  }
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  sqlite3* get() const { return db_; }

 private:
  const Store::Impl* impl_;
  sqlite3* db_;
};

/// Interrupts statements on `db` that run past `budget`, for as long as it lives.
class QueryBudget {
 public:
  QueryBudget(sqlite3* db, std::chrono::milliseconds budget)
      : db_(db), deadline_(std::chrono::steady_clock::now() + budget) {
    sqlite3_progress_handler(db_, 1000, &QueryBudget::expired, this);
  }
  ~QueryBudget() { sqlite3_progress_handler(db_, 0, nullptr, nullptr); }
  QueryBudget(const QueryBudget&) = delete;
  QueryBudget& operator=(const QueryBudget&) = delete;

 private:
  static int expired(void* self) {
    return std::chrono::steady_clock::now() > static_cast<QueryBudget*>(self)->deadline_ ? 1 : 0;
  }
  sqlite3* db_;
  std::chrono::steady_clock::time_point deadline_;
};

}  // namespace kb
