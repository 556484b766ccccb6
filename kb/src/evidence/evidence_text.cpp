#include <cctype>

#include "core/text_util.h"
#include "evidence/evidence_internal.h"

namespace kb {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

// Length of the match of `phrase` at `text[at]`, or 0.
std::size_t match_at(std::string_view text, std::size_t at, std::string_view phrase) {
  static constexpr std::string_view kCurly = "\xE2\x80\x99";
  std::size_t i = at;
  for (char p : phrase) {
    if (p == ' ') {
      if (i >= text.size() || !is_space(text[i])) return 0;
      while (i < text.size() && is_space(text[i])) ++i;
    } else if (p == '\'' && text.substr(i, kCurly.size()) == kCurly) {
      i += kCurly.size();
    } else {
      if (i >= text.size() || lower(text[i]) != lower(p)) return 0;
      ++i;
    }
  }
  return i - at;
}

}  // namespace

namespace evidence_detail {

Pos offset_to_pos(std::string_view text, std::size_t offset) {
  Pos pos{1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++pos.line;
      pos.column = 1;
    } else if ((c & 0xC0) != 0x80) {
      ++pos.column;
    }
  }
  return pos;
}

std::optional<std::size_t> top_level_key_offset(std::string_view source, std::string_view key) {
  std::size_t start = 0;
  while (start < source.size()) {
    std::size_t end = source.find('\n', start);
    if (end == std::string_view::npos) end = source.size();
    std::string_view text = source.substr(start, end - start);
    if (text.starts_with(key)) {
      std::size_t i = key.size();
      while (i < text.size() && text[i] == ' ') ++i;
      if (i < text.size() && text[i] == ':') return start;
    }
    start = end + 1;
  }
  return std::nullopt;
}

Pos top_level_key_pos(std::string_view source, std::string_view key) {
  auto at = top_level_key_offset(source, key);
  return at ? offset_to_pos(source, *at) : Pos{};
}

std::optional<std::size_t> find_phrase(std::string_view text, std::string_view phrase) {
  if (phrase.empty()) return std::nullopt;
  auto word = [&](std::size_t i) { return std::isalnum(static_cast<unsigned char>(text[i])); };
  for (std::size_t at = 0; at < text.size(); ++at) {
    if (at > 0 && word(at - 1)) continue;
    const std::size_t len = match_at(text, at, phrase);
    if (len > 0 && (at + len == text.size() || !word(at + len))) return at;
  }
  return std::nullopt;
}

}  // namespace evidence_detail

}  // namespace kb
