// Statements kept prepared on their connection (sql::Stmt's `kept`): found again by their
// text, reset between uses, and finalized when the connection closes -- the statements
// SQLite's own modules keep (FTS5's) left to them.

#include <catch2/catch.hpp>

#include "store/sqlite_util.h"

namespace {

int statements(sqlite3* db) {
  int n = 0;
  for (sqlite3_stmt* st = sqlite3_next_stmt(db, nullptr); st; st = sqlite3_next_stmt(db, st)) ++n;
  return n;
}

}  // namespace

TEST_CASE("sqlite: a kept statement is prepared once per connection and closed with it",
          "[store][sqlite]") {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  kb::sql::exec(db,
                "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);"
                "CREATE VIRTUAL TABLE f USING fts5(v);"
                "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three');"
                "INSERT INTO f(rowid, v) VALUES (1, 'kv cache hit');");
  // FTS5 keeps statements of its own on the connection.
  {
    kb::sql::Stmt match(db, "SELECT rowid FROM f WHERE f MATCH 'cache'");
    REQUIRE(match.step());
  }
  const int own = statements(db);
  auto value = [&](std::int64_t id) {
    kb::sql::Stmt st(db, "SELECT v FROM t WHERE id = ?", kb::sql::Stmt::kept);
    st.bind(1, id);
    return st.step() ? st.text(0) : std::string();
  };
  CHECK(value(1) == "one");
  CHECK(statements(db) == own + 1);
  // Found again (reset, its binding cleared), not prepared again.
  CHECK(value(3) == "three");
  CHECK(value(4).empty());
  CHECK(statements(db) == own + 1);
  {
    // One in use is not handed out twice: a second is prepared beside it.
    kb::sql::Stmt outer(db, "SELECT v FROM t WHERE id = ?", kb::sql::Stmt::kept);
    outer.bind(1, std::int64_t{2});
    REQUIRE(outer.step());
    CHECK(value(1) == "one");
    CHECK(outer.text(0) == "two");
    CHECK(statements(db) == own + 2);
  }
  // Closing finalizes the kept ones and leaves FTS5's to FTS5: nothing is left open.
  CHECK(kb::sql::close(db) == SQLITE_OK);
}
