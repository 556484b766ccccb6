#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"
#include "kb/resolver.h"

namespace kb {

struct FileResult;
class Corpus;
class RecordBodies;

/// Limits and parallelism of loading.
struct LoadOptions {
  std::size_t max_file_bytes = 4u << 20;  ///< larger record files are refused (limits.file-size)
  int max_depth = 64;                     ///< collection nesting (limits.depth)
  std::size_t max_nodes = 200000;         ///< nodes after alias expansion (limits.nodes)
  unsigned threads = 0;                   ///< 0: one per core
  /// Called with each file loaded (whole, before `slim` applies), from the loading
  /// threads at once: it must serialise itself. How an index is written while the tree
  /// is read, instead of after the whole corpus is held.
  std::function<void(const FileResult&)> on_loaded;
  /// When set, records keep only what lists, facets, checks and the resolver read: the
  /// file's bytes and the Markdown bodies are dropped once `on_loaded` has seen them, and
  /// Corpus::whole() reads the record back from here.
  std::shared_ptr<const RecordBodies> bodies;
};

/// What loading one file produced.
struct FileResult {
  std::string file;  ///< relative to the records directory, "gotchas/x.yaml"
  std::int64_t mtime_ns = 0;
  std::uint64_t size = 0;
  std::shared_ptr<const Record> record;  ///< null when the file did not load
  std::vector<Diagnostic> diagnostics;   ///< of this file alone (syntax, schema)
  bool stale = false;  ///< `record` is the last good version; the file is broken now
  /// A file with schema errors: what could be read of it, for the checks of references
  /// and predicates only (`kb lint` reports every problem of a file in one run). Never
  /// used as a record.
  std::shared_ptr<const Record> broken;
};

/// Parses and validates one record file given its bytes; `file` decides the id.
FileResult load_record_text(const std::string& file, std::string_view bytes,
                            const LoadOptions& options = {});

/// How a repair writes the record `id` into a reference of namespace `target` whose text
/// was `raw`: a setting as its key (`kv_transfer`), others bare or prefixed as `raw` was.
std::string repair_text_for(const Corpus& corpus, Kind target, std::string_view raw,
                            const std::string& id);

/// Drops from `r` what only its own answer shows: `source_text`, the Markdown bodies
/// (symptom, root cause, workaround, notes, description, method, pass criterion, canary)
/// and the references, whose dates it keeps (reference_dates()). A body that may hold a
/// claim `kb lint` checks ("not reproduced") is kept.
void slim_record(Record& r);

/// Runs `options.on_loaded` on a file just loaded, then slims its record when
/// `options.bodies` is set (the record must not be shared yet).
void after_load(FileResult& f, const LoadOptions& options);

/// Where the whole version of a slim record comes from (an index holding its file).
class RecordBodies {
 public:
  virtual ~RecordBodies() = default;
  /// The whole record `slim` was made from (same id and content hash), or null when its
  /// file is no longer at hand.
  virtual std::shared_ptr<const Record> whole(const Record& slim) const = 0;
};

/// Every record of a tree, validated and cross-checked: one immutable snapshot of the data.
class Store;

class Corpus {
 public:
  /// Loads every `*.yaml`/`*.yml` under `dir`, in parallel.
  static std::shared_ptr<const Corpus> load(const std::filesystem::path& dir,
                                            const LoadOptions& options = {});
  /// Loads only files whose size or mtime differ from `prev`'s; a file that no longer
  /// loads keeps `prev`'s record, marked stale; a deleted file drops its record. With
  /// `only` (relative paths a watcher saw change; one ending in '/' names a directory,
  /// i.e. every file under it then and now) nothing else is even looked at; without it
  /// the whole tree is scanned. When no record appeared, vanished or changed a name,
  /// the name index and the reference checks of unchanged records are reused.
  static std::shared_ptr<const Corpus> reload(const Corpus& prev, const LoadOptions& options = {},
                                              const std::vector<std::string>* only = nullptr);
  /// Builds a corpus from the record files a prebuilt index holds (`--db`), each file kept
  /// as stored (stale ones marked stale); `db` is the index's path.
  static std::shared_ptr<const Corpus> from_store(const Store& store,
                                                  const std::filesystem::path& db,
                                                  const LoadOptions& options = {});
  /// Builds a corpus from already-loaded files (tests, fuzzers, an index's files).
  static std::shared_ptr<const Corpus> from_files(std::filesystem::path dir,
                                                  std::vector<FileResult> files,
                                                  const LoadOptions& options = {});

  const std::filesystem::path& dir() const { return dir_; }
  /// Records sorted by id.
  const std::vector<std::shared_ptr<const Record>>& records() const { return records_; }
  /// The record with exactly this id, or nullptr.
  const Record* find(std::string_view id) const;
  /// The record `id` names: its id, or a former id / alias.
  const Record* find_any(std::string_view id) const;
  /// All names of all records.
  const NameIndex& names() const { return *names_; }
  /// The id a reference written in a field implying namespace `ns` resolves to exactly.
  std::optional<std::string> target(Kind ns, std::string_view raw) const;
  /// Every diagnostic: per file, cross-record and references; sorted.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// Per-file outcomes, sorted by path; a reload shares the unchanged ones.
  const std::vector<std::shared_ptr<const FileResult>>& files() const { return files_; }
  /// Whether the record with this id is a last good version of a now-broken file.
  bool is_stale(std::string_view id) const;
  /// The sum (mod 2^64) of one FNV-1a 64 share per file (its path, its bytes hash, whether
  /// it is stale), hex; changes whenever any file does, and a reload patches it.
  const std::string& content_hash() const { return content_hash_; }
  /// Options it was loaded with.
  const LoadOptions& options() const { return options_; }
  /// `r` with every field, for an answer that shows its bodies: `r` itself unless the
  /// corpus was loaded slim (LoadOptions::bodies), else read back (and cached) from the
  /// index; `r` as it is when that fails.
  std::shared_ptr<const Record> whole(const Record& r) const;
  /// The bytes of `r`'s file as loaded, for positions in diagnostics.
  std::string source_text(const Record& r) const;
  /// Whether some artifact kb reads can set the setting with this id: an engine spells it
  /// (a flag, a variable, a key, a JSON field) or defaults it, a `derive:` rule, another
  /// setting's value or an entry point implies it, a model's traits give it, it is the
  /// role, or it is traffic (unknown unless stated). A predicate
  /// clause on a setting none of these sets can only fire on a hand-written deployment.
  bool settable(std::string_view setting_id) const;

 private:
  using IdMap = std::unordered_map<std::string, std::size_t>;

  void finish();
  bool finish_incremental(const Corpus& prev, const std::vector<std::size_t>& changed);
  void check_names(const Record& r, std::vector<Diagnostic>& out) const;
  void check_broken(const FileResult& f, std::vector<Diagnostic>& out) const;
  void gather();
  std::shared_ptr<const std::unordered_set<std::string>> settable_settings() const;

  std::filesystem::path dir_;
  LoadOptions options_;
  std::vector<std::shared_ptr<const FileResult>> files_;
  std::vector<std::shared_ptr<const Record>> records_;
  std::shared_ptr<const IdMap> by_id_;
  std::unordered_map<std::string, std::string> stale_ids_;
  std::shared_ptr<const NameIndex> names_;
  std::vector<Diagnostic> cross_;  ///< tied to one record: duplicate ids, aliases, references
  std::unordered_set<std::string> duplicate_ids_;
  std::shared_ptr<const std::unordered_set<std::string>> settable_;
  std::vector<Diagnostic> diagnostics_;
  std::string content_hash_;
};

}  // namespace kb
