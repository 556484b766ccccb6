#pragma once

// A search hit's snippet made from the row's stored text, as FTS5's
// `snippet(fts, -1, open, close, ellipsis, tokens)` makes it under a MATCH of the same
// query -- the same window of tokens, the same marks -- without FTS5 running the query
// again for every row shown (a MATCH of a sentence's words seeks each word's postings for
// each row: most of a search's time at 100k records).

#include <string>
#include <string_view>
#include <vector>

#include "store/fts_tokenizer.h"

namespace kb {

/// One phrase of a query: its tokens as FtsTokenizer::tokens gives them, the last one a
/// prefix when `prefix`.
struct SnippetPhrase {
  std::vector<std::string> tokens;
  bool prefix = false;
};

struct SnippetStyle {
  std::string_view open;      ///< put before a phrase found
  std::string_view close;     ///< and after it
  std::string_view ellipsis;  ///< where the text shown is cut
  int tokens = 24;            ///< tokens shown at most
};

/// The snippet of a row whose columns are `columns` (FTS5's column order; an empty view
/// for a column not indexed), for the query's `phrases`.
std::string make_snippet(FtsTokenizer& tok, const std::vector<std::string_view>& columns,
                         const std::vector<bool>& indexed,
                         const std::vector<SnippetPhrase>& phrases, const SnippetStyle& style);

}  // namespace kb
