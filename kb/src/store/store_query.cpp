// User text to safe FTS5 queries (store_query.h).

#include "store/store_query.h"

#include <cctype>
#include <set>

#include "kb/store.h"

namespace kb {
namespace query_text {

// The searchable terms of user text: split at whitespace and NUL (FTS5 reads its query
// only up to the first NUL), at most 32, each holding a letter, digit or non-ASCII byte.
std::vector<std::string> search_terms(std::string_view user_text) {
  std::vector<std::string> terms;
  std::string cur;
  auto flush = [&] {
    bool searchable = false;
    for (unsigned char c : cur) searchable |= std::isalnum(c) || c >= 0x80;
    if (searchable) terms.push_back(cur);
    cur.clear();
  };
  for (char c : user_text) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '\0')
      flush();
    else
      cur += c;
  }
  flush();
  if (terms.size() > 32) terms.resize(32);
  return terms;
}

// Words too common to say what a record is about: dropped from a query that has others
// ("decode hangs unless the log level is debug" searches decode hangs unless log level
// debug).
bool stop_word(std::string_view term) {
  static const std::set<std::string, std::less<>> kStop = {
      "a",   "an",   "and",  "are",  "as",   "at",    "be",    "been",  "but",   "by",
      "can", "do",   "does", "for",  "from", "has",   "have",  "how",   "i",     "if",
      "in",  "into", "is",   "it",   "its",  "me",    "my",    "of",    "on",    "or",
      "our", "so",   "than", "that", "the",  "their", "then",  "there", "these", "this",
      "to",  "was",  "we",   "were", "what", "when",  "where", "which", "while", "who",
      "why", "will", "with", "you",  "your", "gets",  "get",   "got",   "after", "again"};
  std::string lower;
  for (char c : term) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kStop.count(lower) > 0;
}

// The terms of a query without stop words, unless that leaves none.
std::vector<std::string> content_terms(std::vector<std::string> terms) {
  std::vector<std::string> kept;
  for (auto& t : terms) {
    if (!stop_word(t)) kept.push_back(t);
  }
  return kept.empty() ? terms : kept;
}

// Every term quoted (so it is never FTS5 syntax) and AND-ed; the last one a prefix when asked.
std::string terms_query(const std::vector<std::string>& terms, bool prefix_last) {
  std::string q;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (!q.empty()) q += ' ';
    q += '"';
    for (char c : terms[i]) {
      if (c == '"') q += '"';
      q += c;
    }
    q += '"';
    if (prefix_last && i + 1 == terms.size()) q += '*';
  }
  return q;
}

// Each term with its other spellings (SearchSynonyms) as an FTS5 expression: `"t"`, or
// `("t" OR "syn" ...)`, AND-ed; the last term's own spelling a prefix when asked.
std::string groups_query(const std::vector<std::vector<std::string>>& groups, bool prefix_last) {
  // FTS5 ANDs two phrases written side by side, but not a parenthesised group and a phrase.
  const bool grouped =
      std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() > 1; });
  std::string q;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const bool prefix = prefix_last && i + 1 == groups.size();
    std::string alts;
    for (std::size_t k = 0; k < groups[i].size(); ++k) {
      if (k > 0) alts += " OR ";
      alts += terms_query({groups[i][k]}, prefix && k == 0);
    }
    if (!q.empty()) q += grouped ? " AND " : " ";
    q += groups[i].size() > 1 ? "(" + alts + ")" : alts;
  }
  return q;
}

// Any spelling of any term.
std::string any_query(const std::vector<std::vector<std::string>>& groups) {
  std::string q;
  for (const auto& g : groups) {
    for (const std::string& t : g) {
      if (!q.empty()) q += " OR ";
      q += terms_query({t}, false);
    }
  }
  return q;
}

std::size_t utf8_chars(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace query_text

std::string fts_query(std::string_view user_text) {
  return query_text::terms_query(query_text::search_terms(user_text), true);
}

}  // namespace kb
