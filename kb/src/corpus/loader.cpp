#include <algorithm>
#include <climits>
#include <string>

#include "core/text_util.h"
#include "corpus/claim_phrases.h"
#include "kb/corpus.h"
#include "kb/dates.h"
#include "kb/diagnostic_codes.h"
#include "kb/text.h"
#include "schema/schema_extract.h"
#include "schema/schema_read.h"
#include "yaml/yaml_tree.h"

namespace kb {
namespace {

/// A record reads the parts of its own namespace only: whatever reading touched of the
/// others is dropped, so each other part costs one pointer.
void drop_foreign_parts(Record& r) {
  if (r.kind != Kind::engine) r.engine.reset();
  if (r.kind != Kind::setting) r.setting.reset();
  if (r.kind != Kind::result) r.result.reset();
}

// The least a record file may expand to (aliases), whatever its size: 4 KiB.
constexpr std::size_t kRecordExpansionFloor = 4 * 1024;

// "gotchas/foo.yaml" -> kind gotcha, id "gotchas/foo".
bool id_from_path(const std::string& file, Kind& kind, std::string& id, std::string& problem) {
  std::string stem = file;
  for (const char* ext : {".yaml", ".yml"}) {
    std::string_view e(ext);
    if (stem.size() > e.size() && stem.ends_with(e)) {
      stem.resize(stem.size() - e.size());
      break;
    }
  }
  auto slash = stem.find('/');
  auto k = slash == std::string::npos ? std::nullopt : parse_kind(stem.substr(0, slash));
  if (!k || stem.substr(0, slash) != kind_namespace(*k)) {
    problem = "record files live in gotchas/, engines/, oracles/, results/, settings/ or models/";
    return false;
  }
  // One level, as the contract says: a slug is one URL segment on every route of `kb
  // serve` and one file name in `kb site`, so a record in a subfolder would have an id
  // no link can reach.
  if (stem.find('/', slash + 1) != std::string::npos) {
    std::string flat = stem.substr(slash + 1);
    std::replace(flat.begin(), flat.end(), '/', '-');
    problem =
        "a record file lives directly in its namespace folder, not in a subfolder (no URL "
        "can name it): move it to " +
        stem.substr(0, slash + 1) + flat + ".yaml";
    return false;
  }
  if (!text::valid_id(stem)) {
    problem = "'" + stem + "' is not a valid id: use lower-case letters, digits, '.', '_' and '-'";
    return false;
  }
  kind = *k;
  id = stem;
  return true;
}

// Tabs may not indent YAML. Reported only where the parser also failed or where the
// tab sits in the indentation of a line that starts a key, so tabs inside block
// scalars (legal content) pass.
std::optional<Pos> first_indent_tab(std::string_view text) {
  int line = 1;
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t j = i;
    while (j < text.size() && text[j] == ' ') ++j;
    if (j < text.size() && text[j] == '\t') return Pos{line, static_cast<int>(j - i) + 1};
    std::size_t nl = text.find('\n', i);
    if (nl == std::string_view::npos) break;
    i = nl + 1;
    ++line;
  }
  return std::nullopt;
}

}  // namespace

FileResult load_record_text(const std::string& file, std::string_view bytes,
                            const LoadOptions& options) {
  FileResult out;
  out.file = file;
  out.size = bytes.size();
  auto& diags = out.diagnostics;
  auto error = [&](const char* code, Pos p, std::string msg, std::string hint = {}) {
    diags.push_back(
        {Severity::error, code, file, p.line, p.column, std::move(msg), std::move(hint), ""});
  };

  Kind kind{};
  std::string id;
  std::string problem;
  if (!id_from_path(file, kind, id, problem)) {
    error(diag_code("file.path"), Pos{}, problem);
    return out;
  }
  if (bytes.size() > options.max_file_bytes) {
    error(diag_code("limits.file-size"), Pos{},
          "file is " + std::to_string(bytes.size()) + " bytes; the limit is " +
              std::to_string(options.max_file_bytes),
          "a record is a few KB; split long text or raise --max-file-bytes");
    return out;
  }
  if (auto nul = bytes.find('\0'); nul != std::string_view::npos) {
    error(diag_code("encoding.nul"), text::offset_to_pos(bytes, nul), "file contains a NUL byte",
          "record files are UTF-8 text");
    return out;
  }
  if (auto bad = text::invalid_utf8_offset(bytes); bad != std::string_view::npos) {
    error(diag_code("encoding.utf8"), text::offset_to_pos(bytes, bad), "bytes that are not UTF-8",
          "save the file as UTF-8");
    return out;
  }
  std::string_view body = bytes;
  if (body.starts_with(text::kUtf8Bom)) body.remove_prefix(text::kUtf8Bom.size());
  if (text::trim(body).empty()) {
    error(diag_code("yaml.empty"), Pos{1, 1}, "the file is empty",
          "a record is a mapping such as `title: ...`");
    return out;
  }

  yaml::Limits limits;
  limits.max_bytes = options.max_file_bytes;
  limits.max_depth = options.max_depth;
  limits.max_nodes = options.max_nodes;
  // A tree holds every record: each may expand to 16x its size, and only a little more,
  // so that many small records cannot each take a large floor.
  limits.min_expansion_bytes = kRecordExpansionFloor;
  yaml::Node root;
  std::vector<Diagnostic> parse_diags;
  bool parsed = yaml::parse(body, file, limits, root, parse_diags);
  auto tab = first_indent_tab(body);
  if (!parsed) {
    if (tab && !parse_diags.empty() && parse_diags.front().code == diag_code("yaml.syntax")) {
      error(diag_code("yaml.tab"), *tab, "tab character in indentation",
            "YAML indents with spaces only; replace the tab with spaces");
    } else {
      diags.insert(diags.end(), parse_diags.begin(), parse_diags.end());
    }
    return out;
  }
  diags.insert(diags.end(), parse_diags.begin(), parse_diags.end());
  if (!root.is_map()) {
    error(diag_code("yaml.not-mapping"), root.pos,
          "the top level is " + std::string(yaml::type_name(root)) + ", not a mapping",
          "a record is a mapping of fields, e.g. `title: ...` on the first line");
    return out;
  }

  auto rec = std::make_shared<Record>();
  rec->kind = kind;
  rec->id = id;
  rec->file = file;
  rec->source_text = std::string(bytes);
  rec->content_hash = text::fnv1a_hex(bytes);
  const std::size_t before = diags.size();
  if (!schema::read_record(root, *rec, diags)) {
    // What can be read of a file with schema errors, for the checks of its references and
    // predicates: its top-level fields that hold no error, extracted alone.
    yaml::Node kept = root;
    auto& entries = kept.entries;
    for (std::size_t i = entries.size(); i-- > 0;) {
      const int from = entries[i].first.pos.line;
      const int to = i + 1 < entries.size() ? entries[i + 1].first.pos.line : INT_MAX;
      const bool bad =
          std::any_of(diags.begin() + static_cast<std::ptrdiff_t>(before), diags.end(),
                      [&](const Diagnostic& d) {
                        return d.severity == Severity::error && d.line >= from && d.line < to;
                      });
      if (bad) entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
    }
    schema::extract_record(kept, *rec);
  }
  drop_foreign_parts(*rec);
  for (auto& d : diags) d.record = id;
  // A file with errors is broken: its record is not used (a reload keeps the last
  // good version instead), so nothing downstream sees half-read data.
  if (count_severity(diags, Severity::error) == 0) {
    out.record = std::move(rec);
  } else {
    out.broken = std::move(rec);
  }
  return out;
}

namespace {

void shrink_predicate(Predicate& p) {
  p.children.shrink_to_fit();
  p.config.shrink_to_fit();
  p.keys.shrink_to_fit();
  for (auto& c : p.children) shrink_predicate(c);
}

}  // namespace

void slim_record(Record& r) {
  auto drop = [](Str& s) { s.clear(); };
  // The claim checks read these four bodies on every snapshot; one that may hold a claim
  // stays (they are few), the rest are read back when a page or an answer shows them.
  for (Str* body : {&r.symptom, &r.root_cause, &r.workaround, &r.notes}) {
    if (!may_hold_phrase(*body)) drop(*body);
  }
  for (Str* body : {&r.source_text, &r.description, &r.method, &r.pass_criterion}) drop(*body);
  if (r.detection) drop(r.detection->canary);
  // What stays is held for the snapshot's life: no vector keeps the spare room it grew.
  for (auto* refs : {&r.affects, &r.related, &r.oracles}) refs->shrink_to_fit();
  if (r.result.has_value()) r.result->evidence_for.shrink_to_fit();
  // Lists, checks and dates read only the references' dates: those stay.
  if (!r.references.empty()) {
    r.kept_reference_dates = reference_dates(r);
    r.references = {};
  }
  r.fixes.shrink_to_fit();
  r.tags.shrink_to_fit();
  r.aliases.shrink_to_fit();
  if (r.applies_when) shrink_predicate(*r.applies_when);
}

}  // namespace kb
