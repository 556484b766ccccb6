#include "record_writer.h"

#include "kb/atomic_write.h"
#include "kb/corpus.h"
#include "kb/file_read.h"
#include "kb/import_text.h"

namespace kb {
namespace yaml_out {
namespace {

constexpr std::string_view kLineSeparator = "\xE2\x80\xA8";
constexpr std::string_view kParagraphSeparator = "\xE2\x80\xA9";
constexpr std::string_view kNextLine = "\xC2\x85";
constexpr std::string_view kBom = "\xEF\xBB\xBF";

// Characters a reader may not hand back verbatim inside a block scalar: every control
// character but tab and newline, and the code points YAML 1.1 treats as line breaks.
bool has_unsafe_chars(std::string_view s) {
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
  }
  for (auto seq : {kLineSeparator, kParagraphSeparator, kNextLine, kBom}) {
    if (s.find(seq) != std::string_view::npos) return true;
  }
  return false;
}

bool is_null_word(std::string_view s) {
  return s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool plain_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view(" -_./+,()'<>=;").find(c) != std::string_view::npos;
}

bool alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string hex_escape(unsigned char c) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  return std::string("\\x") + kHex[c >> 4] + kHex[c & 0xF];
}

}  // namespace

std::string double_quoted(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::string_view rest = s.substr(i);
    if (rest.starts_with(kLineSeparator)) {
      out += "\\u2028";
      i += kLineSeparator.size() - 1;
    } else if (rest.starts_with(kParagraphSeparator)) {
      out += "\\u2029";
      i += kParagraphSeparator.size() - 1;
    } else if (rest.starts_with(kNextLine)) {
      out += "\\u0085";
      i += kNextLine.size() - 1;
    } else if (rest.starts_with(kBom)) {
      out += "\\uFEFF";
      i += kBom.size() - 1;
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += hex_escape(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string scalar(std::string_view s) {
  bool plain = !s.empty() && alnum(s.front()) && s.back() != ' ' && !is_null_word(s);
  for (char c : s) plain = plain && plain_char(c);
  return plain ? std::string(s) : double_quoted(s);
}

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
