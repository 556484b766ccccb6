#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

/// The seed plain-text layout's section headers, in the order `format_seed_text` writes them.
/// A header is a line exactly equal to one of these; its body runs to the next header.
inline constexpr std::string_view kSeedSections[] = {"id", "Symptom", "Root cause", "Workaround",
                                                     "notes"};

/// What reading one file in the seed layout produced.
struct TextImport {
  /// The gotcha (kind, id, file and the four text fields set); empty when any error was found.
  std::optional<Record> record;
  /// Problems with the input, codes `import.*`, lines 1-based in the input file.
  std::vector<Diagnostic> diagnostics;
};

/// Reads one record in the seed layout (`id`, `Symptom`, `Root cause`, `Workaround`,
/// `notes`); `file` names the input in diagnostics. Section bodies keep their exact text,
/// so `format_seed_text` of the record gives `bytes` back (BOM and CR of CRLF dropped).
TextImport parse_seed_text(std::string_view bytes, const std::string& file);

/// Renders a gotcha in the seed layout: `id\n<id>\nSymptom\n<symptom>\n...`, omitting
/// empty optional sections; no newline is added after the last section.
std::string format_seed_text(const Record& r);

/// The YAML of a new gotcha record file: `id` first, then the set fields of the gotcha
/// schema's scalar and text fields; Markdown text as literal block scalars that read back
/// byte for byte. Not meant to re-emit files that already exist (comments, lists).
std::string format_record_yaml(const Record& r);

/// Where record `id` lives under a records directory: `gotchas/foo` -> `gotchas/foo.yaml`.
std::filesystem::path record_relative_path(std::string_view id);

/// Required fields of `r`'s namespace that `r` leaves empty, e.g. {"title", "severity"}.
std::vector<std::string> missing_required_fields(const Record& r);

/// What write_record_file did.
enum class WriteOutcome {
  written,  ///< `path` holds the new text
  exists,   ///< a file appeared at `path` meanwhile; nothing written
  changed,  ///< the file to replace is no longer the one seen (an editor saved); kept
};

/// Writes `text` to `path` atomically (temp file in the same directory, fsync, then link
/// or exchange), creating parent directories. Without `replacing` no file may be at
/// `path`; with it, the file there is replaced only while it still holds exactly those
/// bytes, never over a save made since. Throws Error{Errc::io} when writing fails.
WriteOutcome write_record_file(const std::filesystem::path& path, std::string_view text,
                               const std::optional<std::string>& replacing);

/// write_record_file of a new file, or, with `overwrite`, of the file at `path` now.
/// Returns false, writing nothing, when the file exists and `overwrite` is false.
bool write_file_atomic(const std::filesystem::path& path, std::string_view text, bool overwrite);

}  // namespace kb
