#pragma once

// Thin RAII over the SQLite C API, private to kb_core.

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "kb/error.h"

namespace kb::sql {

/// Throws kb::Error(database) with SQLite's message when rc is not one of the ok codes.
inline void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::string msg = std::string(what) + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (rc == SQLITE_INTERRUPT) throw Error(Errc::timeout, "query took too long");
    throw Error(Errc::database, msg);
  }
}

/// Runs statements without results.
inline void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    if (rc == SQLITE_INTERRUPT) throw Error(Errc::timeout, "query took too long");
    throw Error(Errc::database, msg);
  }
}

/// What the text of a statement kept on its connection starts with (Stmt's `kept`): how
/// close() tells them from the statements SQLite's own modules keep (FTS5 has a dozen).
inline constexpr std::string_view kKeptMark = "/* kept */ ";

inline bool is_kept(sqlite3_stmt* st) {
  const char* text = sqlite3_sql(st);
  return text && std::string_view(text).starts_with(kKeptMark);
}

/// Finalizes the statements kept on `db` (Stmt's `kept`) and closes it: sqlite3_close's
/// code (SQLITE_BUSY while a statement of its own is left).
inline int close(sqlite3* db) {
  if (!db) return SQLITE_OK;
  sqlite3_stmt* st = sqlite3_next_stmt(db, nullptr);
  while (st) {
    sqlite3_stmt* next = sqlite3_next_stmt(db, st);
    if (is_kept(st)) sqlite3_finalize(st);
    st = next;
  }
  return sqlite3_close(db);
}

/// A prepared statement with positional binding helpers.
class Stmt {
 public:
  /// Asks for it to be `kept`: left prepared on its connection when this goes (reset,
  /// its bindings cleared), and found there again by its text, for a statement a busy
  /// call prepares each time. Such a connection is closed with sql::close().
  enum Keep { kept };

  Stmt(sqlite3* db, const char* sql) : db_(db) {
    check(db, sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr), sql);
  }
  Stmt(sqlite3* db, std::string_view sql, Keep) : db_(db), kept_(true) {
    for (sqlite3_stmt* st = sqlite3_next_stmt(db, nullptr); st; st = sqlite3_next_stmt(db, st)) {
      if (!is_kept(st) || sqlite3_stmt_busy(st)) continue;
      if (std::string_view(sqlite3_sql(st)).substr(kKeptMark.size()) == sql) {
        stmt_ = st;
        return;
      }
    }
    const std::string text = std::string(kKeptMark).append(sql);
    check(db, sqlite3_prepare_v3(db, text.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr),
          text.c_str());
  }
  ~Stmt() {
    if (kept_) {
      sqlite3_reset(stmt_);
      sqlite3_clear_bindings(stmt_);
    } else {
      sqlite3_finalize(stmt_);
    }
  }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, std::string_view s) {
    check(db_, sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT),
          "bind");
    return *this;
  }
  Stmt& bind(int i, std::int64_t v) {
    check(db_, sqlite3_bind_int64(stmt_, i, v), "bind");
    return *this;
  }
  Stmt& bind(int i, double v) {
    check(db_, sqlite3_bind_double(stmt_, i, v), "bind");
    return *this;
  }
  Stmt& bind_null(int i) {
    check(db_, sqlite3_bind_null(stmt_, i), "bind");
    return *this;
  }
  /// Steps once; true when a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    check(db_, rc, "step");
    return false;
  }
  /// Steps to completion and resets for reuse.
  void run() {
    while (step()) {
    }
    reset();
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string text(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  /// The text of `col` without a copy, valid until the next step.
  std::string_view view(int col) const {
    auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string_view();
  }
  int columns() const { return sqlite3_column_count(stmt_); }
  std::string name(int col) const {
    const char* p = sqlite3_column_name(stmt_, col);
    return p ? p : "";
  }

 private:
  sqlite3* db_;
  bool kept_ = false;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace kb::sql
