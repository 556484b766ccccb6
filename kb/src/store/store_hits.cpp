// Search hits read back from the index with their snippets (store_hits.h).

#include "store/store_hits.h"

#include "store/fts_tokenizer.h"
#include "store/sqlite_util.h"
#include "store/store_snippet.h"

namespace kb {
namespace {

// The phrases of a query as FTS5 numbers them (groups in order, each group's spellings in
// order), tokenized as FTS5 tokenizes them: what a snippet marks.
std::vector<SnippetPhrase> snippet_phrases(FtsTokenizer& tok,
                                           const std::vector<std::vector<std::string>>& groups,
                                           bool prefix_last) {
  std::vector<SnippetPhrase> out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t a = 0; a < groups[g].size(); ++a) {
      const bool prefix = prefix_last && g + 1 == groups.size() && a == 0;
      out.push_back({tok.tokens(groups[g][a], prefix), prefix});
    }
  }
  return out;
}

}  // namespace

std::unordered_map<std::int64_t, SearchHit> read_hits(
    sqlite3* db, const std::vector<std::vector<std::string>>& groups, bool prefix_last,
    const std::vector<std::int64_t>& rowids) {
  std::unordered_map<std::int64_t, SearchHit> found;
  if (rowids.empty()) return found;
  FtsTokenizer tok(db);
  const std::vector<SnippetPhrase> phrases = snippet_phrases(tok, groups, prefix_last);
  static const std::vector<bool> kIndexed = {false, false, true, true, true, true, true, true};
  const SnippetStyle style{"\x02", "\x03", "\xe2\x80\xa6", 24};
  // A page's rows a statement, kept prepared on the connection (a new one's parsing was
  // a twentieth of a search's time); the places left over are bound to NULL, no id.
  constexpr std::size_t kChunk = 20;
  static const std::string sql = [] {
    std::string s = "SELECT id, c0, c1, c2, c3, c4, c5, c6, c7 FROM fts_content WHERE id IN (?";
    for (std::size_t i = 1; i < kChunk; ++i) s += ",?";
    return s + ')';
  }();
  std::vector<std::string_view> columns(kIndexed.size());
  for (std::size_t from = 0; from < rowids.size(); from += kChunk) {
    sql::Stmt st(db, sql, sql::Stmt::kept);
    for (std::size_t i = 0; i < kChunk; ++i) {
      const int at = static_cast<int>(i) + 1;
      if (from + i < rowids.size())
        st.bind(at, rowids[from + i]);
      else
        st.bind_null(at);
    }
    while (st.step()) {
      for (int c = 0; c < static_cast<int>(columns.size()); ++c) columns[c] = st.view(c + 1);
      found.emplace(st.int64(0),
                    SearchHit{st.text(1), st.text(3), 0,
                              make_snippet(tok, columns, kIndexed, phrases, style), st.text(2)});
    }
  }
  return found;
}

}  // namespace kb
