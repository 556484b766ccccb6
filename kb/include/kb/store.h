#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace kb {

class Corpus;
class EvidenceIndex;
class RecordBodies;
struct FileResult;
struct Linted;
struct Record;
struct LintOptions;

/// Version of the SQLite layout; bumped on any incompatible change.
inline constexpr int kSchemaVersion = 2;

/// One full-text hit.
struct SearchHit {
  std::string id;
  std::string title;
  double rank = 0;           ///< bm25; lower is better
  std::string snippet;       ///< text around the match; matches wrapped in \x02 ... \x03
  std::string content_hash;  ///< of the record the hit was indexed from
};

/// One record file as an index stores it.
struct StoredSource {
  std::string file;    ///< relative to the records directory, "gotchas/x.yaml"
  std::string bytes;   ///< the file's text: its last good version when `stale`
  bool stale = false;  ///< the file was broken when the index was written
};

/// The SQLite index of a corpus: records, resolved references, results, evidence,
/// repair log and an FTS5 index over titles and Markdown fields. Hides sqlite3*.
struct SearchSynonyms;

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

  /// Starts an update (one transaction; readers see the old index until it commits):
  /// put() each file as it is loaded, then finish_update(), or abort_update().
  void begin_update();
  /// Replaces the rows of the record `file` holds with it, whole (nothing when the file
  /// holds no record). Safe from several threads at once, within an update. Takes a copy
  /// and returns: one thread of the update writes the records in the order they were put,
  /// all of them before finish_update() goes on; an error of that thread is thrown by a
  /// later put() and by finish_update().
  void put(const FileResult& file);
  /// Makes the index describe `next`: rows of records gone since `prev` removed and stale
  /// flags set (null `prev`: the index was empty), references and evidence rewritten when
  /// `derived`, meta updated; commits.
  void finish_update(const Corpus* prev, const Corpus& next, const EvidenceIndex& evidence,
                     bool derived = true);
  /// Rolls an update back; does nothing without one.
  void abort_update() noexcept;

  /// The bytes of record `id`'s file when the index holds its version `content_hash`.
  std::optional<std::string> source(std::string_view id, std::string_view content_hash) const;

  /// Hands every record file stored in the index to `batch`, sorted by path, a few
  /// hundred at a time: a corpus is rebuilt from them without holding them all.
  void each_source(const std::function<void(std::vector<StoredSource>&)>& batch) const;

  /// Full-text search; `query` is user text, never FTS syntax (every term is quoted).
  /// Stops with kb::Error(timeout) past `budget`.
  /// With `synonyms`, each query word is searched as any spelling of its groups.
  /// `found`, when given, gets the query's terms the search saw some row hold (as
  /// written, or by a synonym): finds() need not look for them again.
  std::vector<SearchHit> search(std::string_view query, std::size_t limit,
                                std::chrono::milliseconds budget = std::chrono::milliseconds(2000),
                                const SearchSynonyms* synonyms = nullptr,
                                std::vector<std::string>* found = nullptr) const;

  /// Starts making the ranking search keeps in memory for the index as it is now (on a
  /// thread of its own for a large index; FTS5 ranks until it is ready). Search makes it
  /// when it first needs it; a server calls this on opening and after each reload.
  void prepare_search() const;
  /// How search ranks now: "memory" (the ranking in memory, for the index as it is),
  /// "building" (FTS5 ranks while it is made), or "none" (not asked for yet).
  std::string_view search_ranking() const;
  /// Whether a search of `word` alone would find a row (as written, as a prefix of 3+
  /// characters, or by a synonym), without ranking: the cheap test behind a typo
  /// suggestion.
  /// `found`: terms a search() reported found (true without looking).
  bool finds(std::string_view word, const SearchSynonyms* synonyms = nullptr,
             std::chrono::milliseconds budget = std::chrono::milliseconds(2000),
             const std::vector<std::string>* found = nullptr) const;

  /// Every record matching `query` (same rules as search()) as (id, content_hash),
  /// unranked and without snippets: the cheap form for filtering a list by text.
  /// Stops with kb::Error(timeout) past `budget`.
  std::vector<std::pair<std::string, std::string>> match(
      std::string_view query,
      std::chrono::milliseconds budget = std::chrono::milliseconds(2000)) const;

  /// A value of the `meta` table (schema_version, content_hash, built_at, records).
  std::optional<std::string> meta(std::string_view key) const;

  /// Runs `PRAGMA integrity_check`; true when it answers "ok".
  bool integrity_ok() const;

 private:
  friend struct IndexFileAccess;
  struct Impl;
  class Lease;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Whole records read back from `store` for a corpus loaded slim; the last
/// `cache_records` read are kept, whatever snapshot asks (they are keyed by content hash).
/// A null `store` reads nothing: such a corpus reads its records back from their files.
std::shared_ptr<const RecordBodies> record_bodies(std::shared_ptr<const Store> store,
                                                  std::size_t cache_records = 256);

/// Writes a complete index of `corpus` to `path` atomically: built in a temporary file
/// beside it and renamed over it, so a failed or killed build leaves the old file intact.
void write_index_file(const Corpus& corpus, const EvidenceIndex& evidence,
                      const std::filesystem::path& path);

/// `kb build` in one pass: loads and lints `dir`, writing each record into a fresh index
/// beside `path` as it is read and keeping only its slim form; when linting finds no error
/// the index is completed and renamed over `path`, else `path` is left as it was. Returns
/// what linting found (the corpus slim).
Linted build_index_file(const std::filesystem::path& dir, const LintOptions& options,
                        const std::filesystem::path& path);

/// The text full-text search indexes for one record, by column: what it ranks (title
/// first, then the symptom, ...) and what the static site's client-side search ranks the
/// same way. `whole` must carry its bodies (Corpus::whole).
struct SearchColumns {
  std::string title, symptom, root_cause, workaround, notes;
  /// Names, description, method, aliases, engines it affects, tags, a setting's spellings
  /// and values, log signatures.
  std::string other;
};
SearchColumns search_columns(const Record& whole);

/// Spellings search takes as one word, from the records: each symptom setting's value
/// with its synonyms (`differs`: nondeterministic, inconsistent), each engine's slug with
/// its aliases (`tensorrt-llm`: trtllm), each setting's key with its synonyms
/// (`prefix_caching`: apc). A query word that is another spelling of a group is searched
/// as itself or the group's own word (`garbage` as garbage or corrupted).
struct SearchSynonyms {
  std::vector<std::vector<std::string>> groups;  ///< spellings as written, the own word first
  /// The groups a word is in, by folded spelling (search_fold).
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_word;
  /// `term` first, then the own word of each group it is in and is not (at most 16 in
  /// all), each once; just `term` when it is in none. The word is looked up folded, then
  /// without a plural `es` or `s` (`hangs` finds `hang`).
  std::vector<std::string> alternatives(std::string_view term) const;
  /// Names written as one word (`MultiConnector`, `lmcache`: engine ids and aliases,
  /// setting keys, values and synonyms) by their letters and digits in lower case
  /// (search_join): two words of a query that join into one ("multi connector") are
  /// searched as the name too.
  std::unordered_map<std::string, std::string> joined;
  /// Adds to each group of `groups` (a query's terms with their alternatives, in order)
  /// the name its term and the next one join into, when there is one and it is not there.
  void join_pairs(const std::vector<std::string>& terms,
                  std::vector<std::vector<std::string>>& groups) const;
};
SearchSynonyms search_synonyms(const std::vector<std::shared_ptr<const Record>>& records);
/// A spelling as synonyms compare it: ASCII lower case, `-` and spaces as `_`.
std::string search_fold(std::string_view word);
/// A word as joined names compare it: its ASCII letters and digits in lower case; "" when
/// it holds anything else (a name of one word only).
std::string search_join(std::string_view word);

/// Turns user text into an FTS5 query that cannot be a syntax error: each term quoted,
/// terms AND-ed. Empty when the text holds no searchable term.
std::string fts_query(std::string_view user_text);

}  // namespace kb
