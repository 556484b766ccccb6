#pragma once

// What search makes of user text: its terms, without stop words, and the FTS5 queries of
// them, every term quoted so that it is never FTS5 syntax (store_search.cpp runs them).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kb::query_text {

// The searchable terms of user text: split at whitespace and NUL (FTS5 reads its query
// only up to the first NUL), at most 32, each holding a letter, digit or non-ASCII byte.
std::vector<std::string> search_terms(std::string_view user_text);

// Words too common to say what a record is about: dropped from a query that has others
// ("decode hangs unless the log level is debug" searches decode hangs unless log level
// debug).
bool stop_word(std::string_view term);

// The terms of a query without stop words, unless that leaves none.
std::vector<std::string> content_terms(std::vector<std::string> terms);

// Every term quoted (so it is never FTS5 syntax) and AND-ed; the last one a prefix when asked.
std::string terms_query(const std::vector<std::string>& terms, bool prefix_last);

// Each term with its other spellings (SearchSynonyms) as an FTS5 expression: `"t"`, or
// `("t" OR "syn" ...)`, AND-ed; the last term's own spelling a prefix when asked.
std::string groups_query(const std::vector<std::vector<std::string>>& groups, bool prefix_last);

// Any spelling of any term.
std::string any_query(const std::vector<std::vector<std::string>>& groups);

// Characters of UTF-8 text (the bytes that start one).
std::size_t utf8_chars(std::string_view s);

}  // namespace kb::query_text
