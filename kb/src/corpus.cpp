#include "kb/corpus.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "kb/error.h"
#include "parallel.h"
#include "text_util.h"

namespace kb {
namespace fs = std::filesystem;
namespace {

struct FileStat {
  std::string rel;
  fs::path path;
  std::int64_t mtime_ns = 0;
  std::uint64_t size = 0;
};

bool is_record_file(const fs::path& p) {
  auto ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml";
}

std::vector<FileStat> scan(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(Errc::io, "records directory '" + dir.string() + "' does not exist or is not a directory");
  }
  std::vector<FileStat> out;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) throw Error(Errc::io, "cannot read '" + dir.string() + "': " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw Error(Errc::io, "cannot read '" + dir.string() + "': " + ec.message());
    const auto& entry = *it;
    const std::string name = entry.path().filename().string();
    if (!name.empty() && name[0] == '.') {
      if (entry.is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (entry.is_symlink(ec)) continue;  // a link could leave the tree or loop
    if (!entry.is_regular_file(ec) || !is_record_file(entry.path())) continue;
    FileStat st;
    st.path = entry.path();
    st.rel = fs::relative(entry.path(), dir, ec).generic_string();
    st.size = entry.file_size(ec);
    auto t = entry.last_write_time(ec);
    st.mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
    out.push_back(std::move(st));
  }
  std::sort(out.begin(), out.end(), [](const FileStat& a, const FileStat& b) { return a.rel < b.rel; });
  return out;
}

FileResult load_file(const FileStat& st, const LoadOptions& options) {
  FileResult r;
  if (st.size > options.max_file_bytes) {
    // Do not even read it: the limit exists so a huge file cannot cost memory.
    r = load_record_text(st.rel, std::string_view(), options);
    r.diagnostics.clear();
    r.diagnostics.push_back({Severity::error, "limits.file-size", st.rel, 0, 0,
                             "file is " + std::to_string(st.size) + " bytes; the limit is " +
                                 std::to_string(options.max_file_bytes),
                             "a record is a few KB; split long text", ""});
  } else {
    std::ifstream in(st.path, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    if (!in && !in.eof()) {
      r.file = st.rel;
      r.diagnostics.push_back({Severity::error, "io.read", st.rel, 0, 0, "cannot read the file", "", ""});
    } else {
      r = load_record_text(st.rel, buf.str(), options);
    }
  }
  r.file = st.rel;
  r.size = st.size;
  r.mtime_ns = st.mtime_ns;
  return r;
}

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
  std::vector<FileResult> files(stats.size());
  parallel_for(stats.size(), options.threads, [&](std::size_t i) { files[i] = load_file(stats[i], options); });
  auto c = std::shared_ptr<Corpus>(new Corpus());
  c->dir_ = dir;
  c->options_ = options;
  c->files_ = std::move(files);
  c->finish();
  return c;
}

std::shared_ptr<const Corpus> Corpus::reload(const Corpus& prev, const LoadOptions& options) {
  auto stats = scan(prev.dir_);
  std::map<std::string, const FileResult*> old;
  for (const auto& f : prev.files_) old.emplace(f.file, &f);
  std::vector<FileResult> files(stats.size());
  std::vector<std::size_t> changed;
  for (std::size_t i = 0; i < stats.size(); ++i) {
    auto it = old.find(stats[i].rel);
    if (it != old.end() && it->second->size == stats[i].size &&
        it->second->mtime_ns == stats[i].mtime_ns) {
      files[i] = *it->second;
    } else {
      changed.push_back(i);
    }
  }
  parallel_for(changed.size(), options.threads, [&](std::size_t k) {
    std::size_t i = changed[k];
    files[i] = load_file(stats[i], options);
    auto it = old.find(stats[i].rel);
    if (!files[i].record && it != old.end() && it->second->record) {
      files[i].record = it->second->record;
      files[i].stale = true;
    }
  });
  auto c = std::shared_ptr<Corpus>(new Corpus());
  c->dir_ = prev.dir_;
  c->options_ = options;
  c->files_ = std::move(files);
  c->finish();
  return c;
}

std::shared_ptr<const Corpus> Corpus::from_files(fs::path dir, std::vector<FileResult> files) {
  std::sort(files.begin(), files.end(),
            [](const FileResult& a, const FileResult& b) { return a.file < b.file; });
  auto c = std::shared_ptr<Corpus>(new Corpus());
  c->dir_ = std::move(dir);
  c->files_ = std::move(files);
  c->finish();
  return c;
}

void Corpus::finish() {
  std::uint64_t h = text::fnv1a("kb-corpus-v1");
  for (const auto& f : files_) {
    diagnostics_.insert(diagnostics_.end(), f.diagnostics.begin(), f.diagnostics.end());
    h = text::fnv1a(f.file, h);
    h = text::fnv1a(f.record ? f.record->content_hash : std::string("-"), h);
    h = text::fnv1a(f.stale ? "s" : "f", h);
    if (!f.record) continue;
    if (f.stale) stale_ids_.emplace(f.record->id, f.file);
    auto [it, fresh] = by_id_.emplace(f.record->id, records_.size());
    if (!fresh) {
      const Record& first = *records_[it->second];
      diagnostics_.push_back({Severity::error, "id.duplicate", f.file, 1, 1,
                              "record id '" + f.record->id + "' is also defined by " + first.file,
                              "keep one file per id", f.record->id});
      continue;
    }
    records_.push_back(f.record);
  }
  content_hash_ = text::hex64(h);
  std::sort(records_.begin(), records_.end(),
            [](const auto& a, const auto& b) { return a->id < b->id; });
  by_id_.clear();
  for (std::size_t i = 0; i < records_.size(); ++i) by_id_.emplace(records_[i]->id, i);

  for (const auto& r : records_) names_.add(*r);
  names_.finish();

  // An alias must name exactly one record, and never another record's id.
  for (const auto& r : records_) {
    for (const auto& alias : r->aliases) {
      auto ids = names_.exact(r->kind, alias);
      std::vector<std::string> others;
      for (auto& id : ids) {
        if (id != r->id) others.push_back(id);
      }
      if (others.empty()) continue;
      Pos p = find_value_pos(r->source_text, "aliases", alias);
      diagnostics_.push_back({Severity::error, "id.alias-collision", r->file, p.line, p.column,
                              "alias '" + alias + "' also names " + others.front(),
                              "an alias must name one record only; remove or rename it", r->id});
    }
  }

  // Every reference must name exactly one record of the namespace its field implies.
  for (const auto& r : records_) {
    for (const auto& slot : reference_slots(*r)) {
      const RefValue& ref = *slot.ref;
      if (text::trim(ref.raw).empty()) continue;
      auto ids = names_.exact(slot.target, ref.raw);
      if (ids.size() == 1) continue;
      Diagnostic d{Severity::error, "ref.dangling", r->file, ref.pos.line, ref.pos.column, "", "", r->id};
      if (ids.size() > 1) {
        d.code = "ref.ambiguous";
        d.message = ref.field + ": '" + ref.raw + "' names several records (" + ids[0] + ", " + ids[1] + ")";
        d.hint = "write the full id";
      } else {
        Resolution res = resolve(names_, slot.target, ref.raw);
        d.code = std::string(dangling_code(res));
        d.message = res.other_namespace_id.empty()
                        ? ref.field + ": no " + std::string(kind_name(slot.target)) + " '" + ref.raw + "'"
                        : ref.field + ": '" + ref.raw + "' names " + res.other_namespace_id +
                              ", but this field holds " + std::string(kind_namespace(slot.target)) + " ids";
        d.hint = dangling_hint(res);
      }
      diagnostics_.push_back(std::move(d));
    }
  }
  sort_diagnostics(diagnostics_);
}

const Record* Corpus::find(std::string_view id) const {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : records_[it->second].get();
}

const Record* Corpus::find_any(std::string_view id) const {
  if (const Record* r = find(id)) return r;
  auto slash = id.find('/');
  if (slash == std::string_view::npos) return nullptr;
  auto kind = parse_kind(id.substr(0, slash));
  if (!kind) return nullptr;
  auto ids = names_.exact(*kind, id);
  return ids.size() == 1 ? find(ids.front()) : nullptr;
}

std::optional<std::string> Corpus::target(Kind ns, std::string_view raw) const {
  auto ids = names_.exact(ns, raw);
  if (ids.size() != 1) return std::nullopt;
  return ids.front();
}

bool Corpus::is_stale(std::string_view id) const { return stale_ids_.count(std::string(id)) > 0; }

}  // namespace kb
