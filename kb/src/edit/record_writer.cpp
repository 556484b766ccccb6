#include "edit/record_writer.h"

#include "kb/atomic_write.h"
#include "kb/corpus.h"
#include "kb/file_read.h"
#include "kb/import_text.h"

namespace kb {
namespace yaml_out {

void append_scalar(std::string& out, std::string_view key, std::string_view value, int indent) {
  out.append(static_cast<std::size_t>(indent), ' ');
  out.append(key);
  out += ": ";
  out += scalar(value);
  out += '\n';
}

void append_text(std::string& out, std::string_view key, std::string_view text, int indent) {
  std::size_t core_end = text.find_last_not_of('\n');
  bool blank = text.find_first_not_of(" \n") == std::string_view::npos;
  if (blank || core_end == std::string_view::npos || has_unsafe_chars(text)) {
    out.append(static_cast<std::size_t>(indent), ' ');
    out.append(key);
    out += ": ";
    out += double_quoted(text);
    out += '\n';
    return;
  }
  std::string_view core = text.substr(0, core_end + 1);
  std::size_t trailing = text.size() - core.size();

  // Without an indicator a reader takes the indentation from the first line holding
  // anything, so a first line that starts with a space would lose it.
  std::size_t first = core.find_first_not_of('\n');
  bool indicator = core[first] == ' ';

  std::string pad(static_cast<std::size_t>(indent) + 2, ' ');
  out.append(static_cast<std::size_t>(indent), ' ');
  out.append(key);
  out += ": |";
  if (indicator) out += '2';
  if (trailing == 0) out += '-';
  if (trailing > 1) out += '+';
  out += '\n';
  std::size_t pos = 0;
  while (pos <= core.size()) {
    std::size_t nl = core.find('\n', pos);
    std::string_view line = core.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    if (!line.empty()) {
      out += pad;
      out.append(line);
    }
    out += '\n';
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (trailing > 1) out.append(trailing - 1, '\n');
}

}  // namespace yaml_out

WriteOutcome write_record_file(const std::filesystem::path& path, std::string_view text,
                               const std::optional<std::string>& replacing) {
  if (!replacing) {
    return write_atomic(path, text, IfExists::keep) ? WriteOutcome::written : WriteOutcome::exists;
  }
  return replace_if_unchanged(path, text, *replacing) == ReplaceResult::replaced
             ? WriteOutcome::written
             : WriteOutcome::changed;
}

bool write_file_atomic(const std::filesystem::path& path, std::string_view text, bool overwrite) {
  std::optional<std::string> now;
  if (overwrite) {
    FileRead read = read_file(path, record_file_policy(LoadOptions{}.max_file_bytes));
    if (!read.failure) now = std::move(read.bytes);
  }
  return write_record_file(path, text, now) == WriteOutcome::written;
}

}  // namespace kb
