#include "kb/import_text.h"
#include "kb/text.h"

#include <algorithm>
#include <array>

#include "kb/diagnostic_codes.h"
#include "kb/schema.h"

#include "core/text_util.h"
#include "edit/record_writer.h"

namespace kb {
namespace {

constexpr std::size_t kSectionCount = std::size(kSeedSections);
constexpr std::size_t kId = 0;
constexpr std::size_t kSymptom = 1;

// Field names of the gotcha schema that people might write as a section header; the seed
// layout has none of them, so such a line is reported rather than read as body text.
constexpr std::string_view kFieldHeaders[] = {
    "title",   "severity", "status",     "kind",    "family",  "created", "updated",
    "affects", "related",  "references", "oracles", "aliases", "repairs", "applies when"};

// "Root_Cause" -> "root cause".
std::string fold(std::string_view s) {
  std::string out = text::lower(text::trim(s));
  for (char& c : out) {
    if (c == '_' || c == '-') c = ' ';
  }
  return out;
}

std::optional<std::size_t> exact_header(std::string_view line) {
  for (std::size_t i = 0; i < kSectionCount; ++i) {
    if (line == kSeedSections[i]) return i;
  }
  return std::nullopt;
}

// A line that is not a header but reads like one: a known section in other spelling
// ("Root Cause", "NOTES", "root_cause:"), or a schema field name ("Title", "Severity").
std::optional<std::string> header_lookalike(std::string_view line) {
  std::string_view t = text::trim(line);
  if (t.ends_with(':')) t.remove_suffix(1);
  if (t.empty() || t.size() > 20) return std::nullopt;
  std::string f = fold(t);
  for (auto s : kSeedSections) {
    if (f == fold(s)) return "did you mean the section header '" + std::string(s) + "'?";
  }
  for (auto s : kFieldHeaders) {
    if (f == s) {
      return "the seed layout has only id, Symptom, Root cause, Workaround and notes; "
             "add '" +
             std::string(s) + "' to the YAML file after importing";
    }
  }
  return std::nullopt;
}

// "gotchas/some-slug": what an id line of a record glued to the previous one looks like.
bool looks_like_id(std::string_view line) {
  return line.find('/') != std::string_view::npos && text::valid_id(text::trim(line));
}

struct Section {
  int header_line = 0;
  std::vector<std::string_view> lines;
  bool seen = false;
};

class SeedParser {
 public:
  SeedParser(const std::string& file, TextImport& out) : file_(file), out_(out) {}

  void run(std::string_view text) {
    split(text);
    std::optional<std::size_t> current;
    bool discarding = false;
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      std::string_view line = lines_[i];
      int lineno = static_cast<int>(i) + 1;
      if (auto h = exact_header(line)) {
        if (!started_ && *h != kId) {
          error(diag_code("import.missing-id"), lineno, 1,
                "the record does not start with an 'id' section",
                "put a line 'id' and then the record id (e.g. gotchas/my-gotcha) first");
        }
        if (*h == kId && sections_[kId].seen) {
          error(diag_code("import.multiple-records"), lineno, 1,
                "a second record starts here; a file holds one record",
                "split the file: one record per file");
          return;
        }
        started_ = true;
        if (sections_[*h].seen) {
          error(diag_code("import.duplicate-section"), lineno, 1,
                "section '" + std::string(kSeedSections[*h]) + "' appears twice",
                "the first one is at line " + std::to_string(sections_[*h].header_line));
          discarding = true;
          continue;
        }
        sections_[*h].seen = true;
        sections_[*h].header_line = lineno;
        current = *h;
        discarding = false;
        continue;
      }
      if (auto hint = header_lookalike(line)) {
        error(diag_code("import.unknown-section"), lineno, 1,
              std::string("'").append(text::trim(line)) + "' is not a section of the seed layout",
              *hint);
        started_ = true;
        discarding = true;
        continue;
      }
      if (glued_record_at(i)) {
        if (current && !discarding) {
          sections_[*current].lines.push_back(line.substr(0, line.size() - 2));
        }
        error(diag_code("import.multiple-records"), lineno, static_cast<int>(line.size()) - 1,
              "a second record starts at the end of this line ('id' follows the text directly)",
              "split the file: one record per file, each starting with a line 'id'");
        return;
      }
      if (!started_) {
        if (text::trim(line).empty()) continue;
        error(diag_code("import.missing-id"), lineno, 1, "text before the 'id' section",
              "the first line of a record is 'id', the second its id (e.g. gotchas/my-gotcha)");
        started_ = true;
        discarding = true;
        continue;
      }
      if (current && !discarding) sections_[*current].lines.push_back(line);
    }
  }

  void finish() {
    bool id_reported = false;
    for (const auto& d : out_.diagnostics)
      id_reported = id_reported || d.code == diag_code("import.missing-id");
    if (!sections_[kId].seen && !id_reported) {
      error(diag_code("import.missing-id"), 0, 0, "no 'id' section",
            "the first line of a record is 'id', the second its id (e.g. gotchas/my-gotcha)");
    }
    Record r;
    r.kind = Kind::gotcha;
    r.file = file_;
    if (sections_[kId].seen) read_id(r);
    std::array<Str*, kSectionCount> fields = {nullptr, &r.symptom, &r.root_cause, &r.workaround,
                                              &r.notes};
    for (std::size_t s = 1; s < kSectionCount; ++s) {
      const Section& sec = sections_[s];
      if (!sec.seen) {
        if (s == kSymptom && sections_[kId].seen) {
          error(diag_code("import.missing-section"), 0, 0, "no 'Symptom' section",
                "every gotcha needs a Symptom: what an operator sees");
        }
        continue;
      }
      std::string body = join(sec.lines);
      if (text::trim(body).empty()) {
        report(s == kSymptom ? Severity::error : Severity::warning,
               diag_code("import.empty-section"), sec.header_line, 1,
               "section '" + std::string(kSeedSections[s]) + "' is empty",
               s == kSymptom ? "every gotcha needs a Symptom: what an operator sees"
                             : "write its text or remove the header");
        continue;
      }
      *fields[s] = std::move(body);
    }
    for (auto& d : out_.diagnostics) d.record = r.id;
    if (!has_error_) out_.record = std::move(r);
  }

 private:
  void split(std::string_view text) {
    std::size_t pos = 0;
    while (true) {
      std::size_t nl = text.find('\n', pos);
      std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
      if (line.ends_with('\r')) line.remove_suffix(1);
      lines_.push_back(line);
      if (nl == std::string_view::npos) break;
      pos = nl + 1;
    }
  }

  // `...between processes.id` followed by an id line and a header: the next record's
  // `id` header lost the newline before it.
  bool glued_record_at(std::size_t i) const {
    std::string_view line = lines_[i];
    if (line.size() <= 2 || !line.ends_with("id") || i + 2 >= lines_.size()) return false;
    return looks_like_id(lines_[i + 1]) && exact_header(lines_[i + 2]).has_value();
  }

  void read_id(Record& r) {
    const Section& sec = sections_[kId];
    std::vector<std::pair<std::string_view, int>> values;
    for (std::size_t k = 0; k < sec.lines.size(); ++k) {
      auto v = text::trim(sec.lines[k]);
      if (!v.empty()) values.emplace_back(v, sec.header_line + 1 + static_cast<int>(k));
    }
    if (values.empty()) {
      error(diag_code("import.missing-id"), sec.header_line, 1, "the 'id' section is empty",
            "write the record id on the line after 'id', e.g. gotchas/my-gotcha");
      return;
    }
    if (values.size() > 1) {
      error(diag_code("import.bad-id"), values[1].second, 1,
            "the 'id' section holds more than one line",
            "the id is one line, e.g. gotchas/my-gotcha");
      return;
    }
    std::string id(values[0].first);
    int line = values[0].second;
    if (id.find('/') == std::string::npos) id = "gotchas/" + id;
    if (!id.starts_with("gotchas/")) {
      error(diag_code("import.bad-id"), line, 1, "'" + id + "' is not a gotcha id",
            "the seed layout holds gotchas: write gotchas/<slug>");
      return;
    }
    if (!text::valid_id(id)) {
      error(diag_code("import.bad-id"), line, 1, "'" + id + "' is not a valid id",
            "use lower-case letters, digits, '.', '_' and '-', e.g. gotchas/my-gotcha");
      return;
    }
    r.id = id;
  }

  static std::string join(const std::vector<std::string_view>& lines) {
    std::string out;
    for (std::size_t k = 0; k < lines.size(); ++k) {
      if (k > 0) out += '\n';
      out.append(lines[k]);
    }
    return out;
  }

  void report(Severity sev, const char* code, int line, int column, std::string msg,
              std::string hint) {
    out_.diagnostics.push_back(
        {sev, code, file_, line, column, std::move(msg), std::move(hint), ""});
    if (sev == Severity::error) has_error_ = true;
  }
  void error(const char* code, int line, int column, std::string msg, std::string hint) {
    report(Severity::error, code, line, column, std::move(msg), std::move(hint));
  }

  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  TextImport& out_;
  std::vector<std::string_view> lines_;
  std::array<Section, kSectionCount> sections_;
  bool started_ = false;
  bool has_error_ = false;
};

}  // namespace

TextImport parse_seed_text(std::string_view bytes, const std::string& file) {
  TextImport out;
  auto fail = [&](const char* code, Pos p, std::string msg, std::string hint) {
    out.diagnostics.push_back(
        {Severity::error, code, file, p.line, p.column, std::move(msg), std::move(hint), ""});
    return out;
  };
  if (auto nul = bytes.find('\0'); nul != std::string_view::npos) {
    return fail(diag_code("import.nul"), text::offset_to_pos(bytes, nul),
                "the file contains a NUL byte", "the seed layout is UTF-8 text");
  }
  if (auto bad = text::invalid_utf8_offset(bytes); bad != std::string_view::npos) {
    return fail(diag_code("import.not-utf8"), text::offset_to_pos(bytes, bad),
                "bytes that are not UTF-8", "save the file as UTF-8");
  }
  if (bytes.starts_with(text::kUtf8Bom)) bytes.remove_prefix(text::kUtf8Bom.size());
  if (text::trim(bytes).empty()) {
    return fail(diag_code("import.empty"), Pos{}, "the file is empty",
                "a record starts with a line 'id', then its id, then a 'Symptom' section");
  }
  SeedParser parser(file, out);
  parser.run(bytes);
  parser.finish();
  return out;
}

std::string format_seed_text(const Record& r) {
  std::string out = "id\n" + r.id;
  const Str* fields[] = {&r.symptom, &r.root_cause, &r.workaround, &r.notes};
  for (std::size_t s = 1; s < kSectionCount; ++s) {
    const Str& body = *fields[s - 1];
    if (body.empty() && s != kSymptom) continue;
    out += '\n';
    out.append(kSeedSections[s]);
    out += '\n';
    out += body;
  }
  return out;
}

namespace {

// The gotcha fields a seed-layout import can fill, in the order they are written.
struct ImportedField {
  std::string_view name;
  std::string_view (*value)(const Record&);  ///< "" when unset
  bool text;                                 ///< Markdown: a block scalar
};

#define KB_IMPORTED(name, member, text)                                    \
  {                                                                        \
    name, [](const Record& r) { return std::string_view(r.member); }, text \
  }

constexpr ImportedField kImportedFields[] = {
    KB_IMPORTED("title", title, false),
    {"severity", [](const Record& r) { return to_string(r.severity); }, false},
    {"status", [](const Record& r) { return to_string(r.status); }, false},
    KB_IMPORTED("kind", category, false),
    KB_IMPORTED("family", family, false),
    KB_IMPORTED("created", created, false),
    KB_IMPORTED("updated", updated, false),
    KB_IMPORTED("symptom", symptom, true),
    KB_IMPORTED("root_cause", root_cause, true),
    KB_IMPORTED("workaround", workaround, true),
    KB_IMPORTED("notes", notes, true),
};

#undef KB_IMPORTED

}  // namespace

std::string format_record_yaml(const Record& r) {
  std::string out = "# yaml-language-server: $schema=../../schemas/" +
                    std::string(kind_namespace(r.kind)) + ".schema.json\n";
  yaml_out::append_scalar(out, "id", r.id);
  for (bool text : {false, true}) {
    for (const ImportedField& f : kImportedFields) {
      const std::string value(f.value(r));
      if (f.text != text || value.empty()) continue;
      if (text) {
        yaml_out::append_text(out, f.name, value);
      } else {
        yaml_out::append_scalar(out, f.name, value);
      }
    }
  }
  return out;
}

std::filesystem::path record_relative_path(std::string_view id) {
  return std::filesystem::path(std::string(id) + ".yaml");
}

std::vector<std::string> missing_required_fields(const Record& r) {
  std::vector<std::string> out;
  for (const schema::Field& field : schema::record_struct(r.kind).fields) {
    if (!field.required) continue;
    const auto* f = std::find_if(std::begin(kImportedFields), std::end(kImportedFields),
                                 [&](const ImportedField& i) { return i.name == field.name; });
    // A required field import-text cannot fill is missing by definition.
    if (f == std::end(kImportedFields) || f->value(r).empty()) out.emplace_back(field.name);
  }
  return out;
}

}  // namespace kb
