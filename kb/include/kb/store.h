#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kb {

class Corpus;
class EvidenceIndex;

/// Version of the SQLite layout; bumped on any incompatible change.
inline constexpr int kSchemaVersion = 2;

/// One full-text hit.
struct SearchHit {
  std::string id;
  std::string title;
  double rank = 0;          ///< bm25; lower is better
  std::string snippet;      ///< text around the match; matches wrapped in \x02 ... \x03
  std::string content_hash; ///< of the record the hit was indexed from
};

/// One record file as an index stores it.
struct StoredSource {
  std::string file;    ///< relative to the records directory, "gotchas/x.yaml"
  std::string bytes;   ///< the file's text: its last good version when `stale`
  bool stale = false;  ///< the file was broken when the index was written
};

/// The SQLite index of a corpus: records, resolved references, results, evidence,
/// repair log and an FTS5 index over titles and Markdown fields. Hides sqlite3*.
class Store {
 public:
  /// Opens (creating if needed) a writable index at `path`; ":memory:" for RAM.
  static Store open_writable(const std::filesystem::path& path);
  /// Opens an existing index read-only; throws kb::Error(io|database) on failure or a
  /// schema version this build does not understand.
  static Store open_readonly(const std::filesystem::path& path);

  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();

  /// Makes the index describe `next`, rewriting only records whose file changed since
  /// `prev` (null: everything), in one transaction. `derived` false skips the tables
  /// rewritten whole (refs, evidence): enough for full-text search, and fast at 100k.
  void sync(const Corpus* prev, const Corpus& next, const EvidenceIndex& evidence,
            bool derived = true);

  /// Full-text search; `query` is user text, never FTS syntax (every term is quoted).
  /// Stops with kb::Error(timeout) past `budget`.
  std::vector<SearchHit> search(std::string_view query, std::size_t limit,
                                std::chrono::milliseconds budget = std::chrono::milliseconds(2000)) const;

  /// Every record matching `query` (same rules as search()) as (id, content_hash),
  /// unranked and without snippets: the cheap form for filtering a list by text.
  /// Stops with kb::Error(timeout) past `budget`.
  std::vector<std::pair<std::string, std::string>> match(
      std::string_view query, std::chrono::milliseconds budget = std::chrono::milliseconds(2000)) const;

  /// A value of the `meta` table (schema_version, content_hash, built_at, records).
  std::optional<std::string> meta(std::string_view key) const;

  /// Every record file stored in the index, sorted by path, to rebuild a corpus from an
  /// index alone (`kb serve --db`).
  std::vector<StoredSource> sources() const;

  /// Runs `PRAGMA integrity_check`; true when it answers "ok".
  bool integrity_ok() const;

 private:
  friend void write_index_file(const Corpus&, const EvidenceIndex&, const std::filesystem::path&);
  struct Impl;
  class Lease;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Writes a complete index of `corpus` to `path` atomically: built in a temporary file
/// beside it and renamed over it, so a failed or killed build leaves the old file intact.
void write_index_file(const Corpus& corpus, const EvidenceIndex& evidence,
                      const std::filesystem::path& path);

/// Turns user text into an FTS5 query that cannot be a syntax error: each term quoted,
/// terms AND-ed. Empty when the text holds no searchable term.
std::string fts_query(std::string_view user_text);

}  // namespace kb
