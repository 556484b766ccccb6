#pragma once

// Search hits read back from the index: each row's id, title and content hash, and its
// snippet made from the stored text as FTS5's snippet(fts, -1, char(2), char(3), '…', 24)
// would make it under the query's MATCH, without running the MATCH (store_snippet.h).
// The text is read from FTS5's own table of it, fts_content (c0 .. c7: fts's columns in
// order), not through `fts`: a virtual table's columns are copied on their way out, the
// table's are read in place (a third less time at 100k records).

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "kb/store.h"

namespace kb {

/// The hits of `rowids` (rows of no hit left out), by rowid, with their snippets for a
/// query whose groups hold alternative spellings, the last group's first spelling a
/// prefix when `prefix_last`. A page's rows are read by one statement kept prepared on
/// the connection (a statement per row costs a cursor's setup each, ~1 ms at 100k
/// records; a new statement's parsing was a twentieth of a search's time).
std::unordered_map<std::int64_t, SearchHit> read_hits(
    sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
    const std::vector<std::int64_t>& rowids);

}  // namespace kb
