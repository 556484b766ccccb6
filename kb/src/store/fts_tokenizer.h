#pragma once

// FTS5's own tokenizer for the search index's `tokenize` option, lent by a connection: a
// query word becomes the token FTS5 would search for, and a row's text the tokens (with
// their byte offsets) FTS5 indexed, so that ranking and snippets made outside FTS5 see
// exactly what it sees.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/sqlite_util.h"

namespace kb {

class FtsTokenizer {
 public:
  // One tokenizer per thread, made through the first connection that asks: once made, an
  // FTS5 tokenizer holds nothing of that connection (its functions are SQLite's own), and
  // making one costs a statement's preparation -- a dozen times per search.
  explicit FtsTokenizer(sqlite3* db) {
    thread_local Made made;
    if (!made.tok) made.make(db);
    module_ = made.module;
    tok_ = made.tok;
  }
  FtsTokenizer(const FtsTokenizer&) = delete;
  FtsTokenizer& operator=(const FtsTokenizer&) = delete;

 private:
  struct Made {
    fts5_tokenizer module{};
    Fts5Tokenizer* tok = nullptr;
    void make(sqlite3* db);
    ~Made() {
      if (tok) module.xDelete(tok);
    }
  };

 public:
  bool ok() const { return tok_ != nullptr; }

  /// The tokens of `text` as FTS5 reads a query phrase (a prefix one when asked).
  std::vector<std::string> tokens(std::string_view text, bool prefix) {
    std::vector<std::string> out;
    if (!tok_) return out;
    const int flags = FTS5_TOKENIZE_QUERY | (prefix ? FTS5_TOKENIZE_PREFIX : 0);
    module_.xTokenize(tok_, &out, flags, text.data(), static_cast<int>(text.size()),
                      [](void* out, int tflags, const char* token, int n, int, int) {
                        // A colocated token is a synonym of the one before: none here.
                        if (!(tflags & FTS5_TOKEN_COLOCATED))
                          static_cast<std::vector<std::string>*>(out)->emplace_back(token, n);
                        return SQLITE_OK;
                      });
    return out;
  }

  /// The token FTS5 indexes for one word of a document (its stem); "" when it gives none.
  std::string stem(std::string_view word) {
    std::string out;
    if (!tok_) return out;
    module_.xTokenize(tok_, &out, FTS5_TOKENIZE_DOCUMENT, word.data(),
                      static_cast<int>(word.size()),
                      [](void* out, int tflags, const char* token, int n, int, int) {
                        auto& s = *static_cast<std::string*>(out);
                        if (!(tflags & FTS5_TOKEN_COLOCATED) && s.empty()) s.assign(token, n);
                        return SQLITE_OK;
                      });
    return out;
  }

  /// One token of a document: its text and its bytes in the document, [start, end).
  struct Token {
    std::string text;
    int start = 0;
    int end = 0;
  };

  /// The tokens of `text` as FTS5 indexes a row's column (colocated ones left out, as
  /// FTS5's positions do).
  std::vector<Token> document(std::string_view text) {
    std::vector<Token> out;
    if (!tok_) return out;
    out.reserve(text.size() / 6 + 4);  // about a token per six bytes of prose
    module_.xTokenize(tok_, &out, FTS5_TOKENIZE_DOCUMENT, text.data(),
                      static_cast<int>(text.size()),
                      [](void* out, int tflags, const char* token, int n, int start, int end) {
                        if (!(tflags & FTS5_TOKEN_COLOCATED))
                          static_cast<std::vector<Token>*>(out)->push_back(
                              Token{std::string(token, static_cast<std::size_t>(n)), start, end});
                        return SQLITE_OK;
                      });
    return out;
  }

 private:
  fts5_tokenizer module_{};
  Fts5Tokenizer* tok_ = nullptr;
};

inline void FtsTokenizer::Made::make(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, nullptr) != SQLITE_OK) return;
  sqlite3_bind_pointer(st, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
  sqlite3_step(st);
  sqlite3_finalize(st);
  if (!api) return;
  void* ctx = nullptr;
  if (api->xFindTokenizer(api, "porter", &ctx, &module) != SQLITE_OK) return;
  const char* args[] = {"unicode61", "remove_diacritics", "2"};
  if (module.xCreate(ctx, args, 3, &tok) != SQLITE_OK) tok = nullptr;
}

}  // namespace kb
