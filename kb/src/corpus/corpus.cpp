#include "kb/corpus.h"
#include "corpus/record_lint.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

#include "core/parallel.h"
#include "core/text_util.h"
#include "corpus/corpus_files.h"
#include "kb/diagnostic_codes.h"
#include "kb/error.h"
#include "kb/file_read.h"

namespace kb {
namespace fs = std::filesystem;
using namespace corpus_files;
namespace {

// The corpus hash is a sum of one share per file, so that a reload that read a few files
// patches it instead of reading every file's path and hash again (at 100k records that
// walk was a quarter of an edit's time to be served). A share covers the file's path,
// its record's content hash ("-" without one) and whether that record is stale.
constexpr std::string_view kCorpusHashSeed = "kb-corpus-v2";

std::uint64_t file_share(const FileResult& f) {
  std::uint64_t h = text::fnv1a(f.file);
  h = text::fnv1a(f.record ? std::string_view(f.record->content_hash) : std::string_view("-"), h);
  return text::fnv1a(f.stale ? "s" : "f", h);
}

std::uint64_t corpus_hash(const std::vector<std::shared_ptr<const FileResult>>& files) {
  std::uint64_t sum = text::fnv1a(kCorpusHashSeed);
  for (const auto& f : files) sum += file_share(*f);
  return sum;
}

std::uint64_t parse_hex64(const std::string& hex) {
  std::uint64_t v = 0;
  std::from_chars(hex.data(), hex.data() + hex.size(), v, 16);
  return v;
}

// Leaves out the files that were deleted between scan and read (empty slots); true if any.
bool drop_vanished(std::vector<std::shared_ptr<const FileResult>>& files) {
  auto gone = std::remove(files.begin(), files.end(), nullptr);
  if (gone == files.end()) return false;
  files.erase(gone, files.end());
  return true;
}

}  // namespace

// Hands a freshly loaded file to the options' sink, then slims its record: the record
// was made by this thread and nothing else holds it yet, so it is changed in place.
void after_load(FileResult& f, const LoadOptions& options) {
  if (options.on_loaded) options.on_loaded(f);
  if (options.bodies && f.record) slim_record(const_cast<Record&>(*f.record));
}

namespace {

// Where `needle` stands as a value after `key:` in `text`, for diagnostics about list items.
Pos find_value_pos(const std::string& text, std::string_view key, std::string_view needle) {
  auto k = text.find(std::string(key) + ":");
  if (k == std::string::npos) return {};
  auto v = text.find(needle, k);
  if (v == std::string::npos) v = k;
  return text::offset_to_pos(text, v);
}

}  // namespace

std::shared_ptr<const Corpus> Corpus::load(const fs::path& dir, const LoadOptions& options) {
  auto stats = scan(dir);
  std::vector<std::shared_ptr<const FileResult>> files(stats.size());
  parallel_for(stats.size(), options.threads, [&](std::size_t i) {
    if (auto f = load_file(stats[i], options))
      files[i] = std::make_shared<const FileResult>(std::move(*f));
  });
  drop_vanished(files);
  auto c = std::shared_ptr<Corpus>(new Corpus());
  c->dir_ = dir;
  c->options_ = options;
  c->files_ = std::move(files);
  c->finish();
  return c;
}

std::shared_ptr<const Corpus> Corpus::reload(const Corpus& prev, const LoadOptions& options,
                                             const std::vector<std::string>* only) {
  std::vector<std::pair<std::string, std::optional<FileStat>>> seen;
  if (only) {
    std::map<std::string, std::optional<FileStat>> named;  // sorted, one entry per path
    for (const auto& rel : *only) {
      if (rel.empty() || rel.back() != '/') {
        if (!named.count(rel)) named.emplace(rel, stat_one(prev.dir_, rel));
        continue;
      }
      // A directory moved in, moved away or deleted: the files under it now, and those
      // the previous corpus had there and that are gone. Costs that subtree, not the tree.
      if (!hidden_component(rel)) {
        for (auto& st : scan(prev.dir_, rel)) {
          std::string file = st.rel;
          named.insert_or_assign(std::move(file), std::move(st));
        }
      }
      auto it = std::lower_bound(prev.files_.begin(), prev.files_.end(), rel,
                                 [](const auto& f, const std::string& p) { return f->file < p; });
      for (; it != prev.files_.end() && (*it)->file.starts_with(rel); ++it)
        named.try_emplace((*it)->file, std::nullopt);
    }
    for (auto& [rel, st] : named) seen.emplace_back(rel, std::move(st));
  } else {
    for (auto& st : scan(prev.dir_)) {
      std::string rel = st.rel;
      seen.emplace_back(std::move(rel), std::move(st));
    }
  }
  ReloadPlan plan = plan_reload(prev.files_, std::move(seen), only == nullptr);
  parallel_for(plan.loads.size(), options.threads, [&](std::size_t k) {
    const auto& load = plan.loads[k];
    auto loaded = load_file(load.stat, options);
    if (!loaded) return;  // deleted since the scan: left out below
    auto f = std::make_shared<FileResult>(std::move(*loaded));
    if (!f->record && load.old && load.old->record) {
      f->record = load.old->record;
      f->stale = true;
    }
    plan.files[load.index] = std::move(f);
  });
  auto c = std::shared_ptr<Corpus>(new Corpus());
  c->dir_ = prev.dir_;
  c->options_ = options;
  c->files_ = std::move(plan.files);
  if (drop_vanished(c->files_)) plan.same_paths = false;
  std::vector<std::size_t> changed;
  for (const auto& load : plan.loads) changed.push_back(load.index);
  if (!plan.same_paths || !c->finish_incremental(prev, changed)) c->finish();
  return c;
}

std::shared_ptr<const Corpus> Corpus::from_files(fs::path dir, std::vector<FileResult> files,
                                                 const LoadOptions& options) {
  std::sort(files.begin(), files.end(),
            [](const FileResult& a, const FileResult& b) { return a.file < b.file; });
  auto c = std::shared_ptr<Corpus>(new Corpus());
  c->dir_ = std::move(dir);
  c->options_ = options;
  for (auto& f : files) c->files_.push_back(std::make_shared<const FileResult>(std::move(f)));
  c->finish();
  return c;
}

void Corpus::finish() {
  auto by_id = std::make_shared<IdMap>();
  for (const auto& f : files_) {
    if (!f->record) continue;
    auto [it, fresh] = by_id->emplace(f->record->id, records_.size());
    if (!fresh) {
      const Record& first = *records_[it->second];
      cross_.push_back({Severity::error, diag_code("id.duplicate"), f->file, 1, 1,
                        "record id '" + f->record->id + "' is also defined by " + first.file,
                        "keep one file per id", f->record->id});
      duplicate_ids_.insert(f->record->id);
      continue;
    }
    records_.push_back(f->record);
  }
  std::sort(records_.begin(), records_.end(),
            [](const auto& a, const auto& b) { return a->id < b->id; });
  by_id->clear();
  for (std::size_t i = 0; i < records_.size(); ++i) by_id->emplace(records_[i]->id, i);
  by_id_ = std::move(by_id);

  auto names = std::make_shared<NameIndex>();
  for (const auto& r : records_) names->add(*r);
  names->finish();
  names_ = std::move(names);
  settable_ = settable_settings();
  for (const auto& r : records_) check_names(*r, cross_);
  for (const auto& f : files_) check_broken(*f, cross_);
  gather();
  content_hash_ = text::hex64(corpus_hash(files_));
}

// Only the changed files' records are new, each with the id and the names its previous
// version had: the name index, the id map and every other record's checks still hold.
bool Corpus::finish_incremental(const Corpus& prev, const std::vector<std::size_t>& changed) {
  if (files_.size() != prev.files_.size()) return false;
  std::unordered_set<std::string> ids;
  for (auto i : changed) {
    const auto& before = prev.files_[i]->record;
    const auto& now = files_[i]->record;
    if (!before || !now || !same_names(*before, *now) || prev.duplicate_ids_.count(now->id))
      return false;
    // A setting or a model decides how other records' values are read: recheck them all.
    if (now->kind == Kind::setting || now->kind == Kind::model) return false;
    ids.insert(now->id);
  }
  names_ = prev.names_;
  settable_ = prev.settable_;  // settings and models changed: not incremental (above)
  by_id_ = prev.by_id_;
  records_ = prev.records_;
  for (auto i : changed) records_[by_id_->at(files_[i]->record->id)] = files_[i]->record;
  cross_.reserve(prev.cross_.size());
  for (const auto& d : prev.cross_) {
    if (!ids.count(d.record)) cross_.push_back(d);
  }
  for (auto i : changed) check_names(*files_[i]->record, cross_);
  for (auto i : changed) check_broken(*files_[i], cross_);
  gather();
  // Every other file is the one `prev` summed (reload shares it).
  std::uint64_t sum = parse_hex64(prev.content_hash_);
  for (auto i : changed) sum += file_share(*files_[i]) - file_share(*prev.files_[i]);
  content_hash_ = text::hex64(sum);
  return true;
}

std::shared_ptr<const std::unordered_set<std::string>> Corpus::settable_settings() const {
  auto out = std::make_shared<std::unordered_set<std::string>>();
  auto add_key = [&](std::string_view key) {
    for (const auto& id : names_->exact(Kind::setting, key)) out->insert(id);
  };
  for (const auto& r : records_) {
    if (r->kind == Kind::model) {
      for (const KeyValue& kv : r->traits) add_key(kv.key.raw);
      continue;
    }
    if (r->kind == Kind::engine) {
      for (const Entrypoint& ep : r->engine->entrypoints) {
        for (const KeyValue& kv : ep.implies) add_key(kv.key.raw);
      }
      continue;
    }
    if (r->kind != Kind::setting) continue;
    const SettingDef& def = *r->setting;
    // Traffic unstated is unknown: a clause on it is possible, never false.
    bool spelled = def.key == service_role::kKey || !def.derive.empty() ||
                   def.scope == setting_scope::kTraffic;
    for (const EngineSpelling& e : def.engines) {
      spelled = spelled || !e.flags.empty() || !e.env.empty() || !e.json.empty() ||
                !e.keys.empty() || !e.defaults.empty();
    }
    if (spelled) out->insert(r->id);
    for (const SettingValue& v : def.values) {
      for (const KeyValue& kv : v.implies) add_key(kv.key.raw);
    }
  }
  return out;
}

bool Corpus::settable(std::string_view setting_id) const {
  return settable_ && settable_->count(std::string(setting_id)) > 0;
}

// An alias must name exactly one record, never another record's id; every reference
// must name exactly one record of the namespace its field implies.
void Corpus::check_names(const Record& r, std::vector<Diagnostic>& out) const {
  for (const auto& alias : r.aliases) {
    auto ids = names_->exact(r.kind, alias);
    std::vector<std::string> others;
    for (auto& id : ids) {
      if (id != r.id) others.push_back(id);
    }
    if (others.empty()) continue;
    Pos p = find_value_pos(source_text(r), "aliases", alias);
    out.push_back({Severity::error, diag_code("id.alias-collision"), r.file, p.line, p.column,
                   "alias '" + alias + "' also names " + others.front(),
                   "an alias must name one record only; remove or rename it", r.id});
  }
  for (const auto& slot : reference_slots(r)) {
    const RefValue& ref = *slot.ref;
    if (text::trim(ref.raw).empty()) continue;
    auto ids = names_->exact(slot.target, ref.raw);
    if (ids.size() == 1) continue;
    Diagnostic d{Severity::error,
                 diag_code("ref.dangling"),
                 r.file,
                 ref.pos.line,
                 ref.pos.column,
                 "",
                 "",
                 r.id};
    if (ids.size() > 1) {
      d.code = diag_code("ref.ambiguous");
      d.message =
          ref.field + ": '" + ref.raw + "' names several records (" + ids[0] + ", " + ids[1] + ")";
      d.hint = "write the full id";
    } else {
      Resolution res = resolve(*names_, slot.target, ref.raw);
      d.code = std::string(dangling_code(res));
      d.message =
          res.other_namespace_id.empty()
              ? ref.field + ": no " + std::string(kind_name(slot.target)) + " '" + ref.raw + "'"
              : ref.field + ": '" + ref.raw + "' names " + res.other_namespace_id +
                    ", but this field holds " + std::string(kind_namespace(slot.target)) + " ids";
      d.hint = res.candidates.empty()
                   ? dangling_hint(res)
                   : dangling_hint(res, repair_text_for(*this, slot.target, ref.raw,
                                                        res.candidates.front().id));
    }
    out.push_back(std::move(d));
  }
  lint_record(*this, r, out);
}

// A file with schema errors is no record, but its references and predicates are checked
// all the same, so that one `kb lint` run reports every problem of the file. Only those
// checks, and none at a line a schema error already marks.
void Corpus::check_broken(const FileResult& f, std::vector<Diagnostic>& out) const {
  if (!f.broken) return;
  std::vector<Diagnostic> found;
  check_names(*f.broken, found);
  const std::string_view kept_codes[] = {diag_code("setting.bad-value"),
                                         diag_code("setting.bad-key"),
                                         diag_code("detection.bad-regex")};
  for (Diagnostic& d : found) {
    const bool kept =
        d.code.starts_with("ref.") || d.code.starts_with("predicate.") ||
        d.code.starts_with("id.alias-") ||
        std::find(std::begin(kept_codes), std::end(kept_codes), d.code) != std::end(kept_codes);
    const bool marked = std::any_of(f.diagnostics.begin(), f.diagnostics.end(),
                                    [&](const Diagnostic& e) { return e.line == d.line; });
    if (kept && !marked) out.push_back(std::move(d));
  }
}

// Every diagnostic in one sorted list, and the stale ids.
void Corpus::gather() {
  for (const auto& f : files_) {
    diagnostics_.insert(diagnostics_.end(), f->diagnostics.begin(), f->diagnostics.end());
    if (f->record && f->stale) stale_ids_.emplace(f->record->id, f->file);
  }
  diagnostics_.insert(diagnostics_.end(), cross_.begin(), cross_.end());
  sort_diagnostics(diagnostics_);
}

std::shared_ptr<const Record> Corpus::whole(const Record& r) const {
  if (options_.bodies) {
    if (auto w = options_.bodies->whole(r)) return w;
    // The index does not hold this version (yet: an update not committed, or any more):
    // the file may, when its bytes are still the ones `r` was read from.
    FileRead read = read_file(dir_ / r.file.view(), record_file_policy(options_.max_file_bytes));
    if (!read.failure && text::fnv1a_hex(read.bytes) == r.content_hash) {
      FileResult f = load_record_text(r.file, read.bytes, options_);
      if (f.record) return f.record;
    }
  }
  // Not owned here: the caller holds the corpus (or the record) meanwhile.
  return std::shared_ptr<const Record>(std::shared_ptr<const Record>(), &r);
}

std::string Corpus::source_text(const Record& r) const {
  if (!r.source_text.empty() || !options_.bodies) return r.source_text;
  return whole(r)->source_text;
}

const Record* Corpus::find(std::string_view id) const {
  auto it = by_id_->find(std::string(id));
  return it == by_id_->end() ? nullptr : records_[it->second].get();
}

const Record* Corpus::find_any(std::string_view id) const {
  if (const Record* r = find(id)) return r;
  auto slash = id.find('/');
  if (slash == std::string_view::npos) return nullptr;
  auto kind = parse_kind(id.substr(0, slash));
  if (!kind) return nullptr;
  auto ids = names_->exact(*kind, id);
  return ids.size() == 1 ? find(ids.front()) : nullptr;
}

std::optional<std::string> Corpus::target(Kind ns, std::string_view raw) const {
  const std::string_view id = names_->unique(ns, raw);
  if (id.empty()) return std::nullopt;
  return std::string(id);
}

bool Corpus::is_stale(std::string_view id) const {
  // Asked for every record after each reload; most corpora have no stale record.
  return !stale_ids_.empty() && stale_ids_.count(std::string(id)) > 0;
}

// How a repaired value is written back. Here rather than in repair.cpp because lint
// names the same text in its did-you-mean hint.
std::string repair_text_for(const Corpus& corpus, Kind target, std::string_view raw,
                            const std::string& id) {
  // A setting is written as its key (`kv_transfer`), the way predicates and deployments
  // spell it, never as its record slug.
  if (target == Kind::setting) {
    if (const Record* s = corpus.find(id); s != nullptr && !s->setting->key.empty()) {
      return s->setting->key;
    }
  }
  // Otherwise the value keeps the form of the original: bare stays bare, `engines/x`
  // stays prefixed.
  if (namespace_prefix(raw)) return id;
  return std::string(text::id_slug(id));
}

}  // namespace kb
