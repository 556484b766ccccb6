// Whether a generation can be compared at all, where two generations first differ, and
// short excerpts of both outputs at that point.

#include <algorithm>
#include <string>

#include "kb/oracle.h"

namespace kb::oracle {
namespace {

// Bytes of context shown before the first difference.
constexpr std::size_t kContextBefore = 20;
// Token ids shown when the texts agree but the ids do not.
constexpr std::size_t kIdsShown = 6;

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not valid.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t n = c < 0x80           ? 1
                  : (c >> 5) == 0x6  ? 2
                  : (c >> 4) == 0xE  ? 3
                  : (c >> 3) == 0x1E ? 4
                                     : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if (!is_continuation(static_cast<unsigned char>(s[i + k]))) return 0;
  }
  return n;
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  const std::size_t n = std::min(a.size(), b.size());
  std::size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  // Back to the start of the character the difference falls in.
  while (i > 0 && i < a.size() && is_continuation(static_cast<unsigned char>(a[i]))) --i;
  return i;
}

std::int64_t characters_before(std::string_view s, std::size_t end) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < end && i < s.size(); ++i) {
    if (!is_continuation(static_cast<unsigned char>(s[i]))) ++n;
  }
  return n;
}

std::string ids_excerpt(const std::vector<std::int64_t>& ids, std::size_t at) {
  const std::size_t from = at > 2 ? at - 2 : 0;
  std::string out = "token ids [";
  if (from > 0) out += "…, ";
  for (std::size_t i = from; i < ids.size() && i < from + kIdsShown; ++i) {
    if (i > from) out += ", ";
    out += std::to_string(ids[i]);
  }
  if (from + kIdsShown < ids.size()) out += ", …";
  return out + "]";
}

}  // namespace

std::optional<std::string> unusable(const Generation& g, int max_tokens) {
  if (!g.error.empty()) return g.error;
  if (g.text.empty() && g.token_ids.empty()) {
    return "empty answer" +
           (g.finish_reason.empty() ? std::string() : " (finish_reason '" + g.finish_reason + "')");
  }
  const std::int64_t n =
      g.has_token_ids ? static_cast<std::int64_t>(g.token_ids.size()) : g.completion_tokens;
  // Stopping at the length limit is normal when the limit is what was asked for; before
  // it, the server cut the answer short and a comparison would report a false divergence.
  if (g.finish_reason == "length" && n >= 0 && n < max_tokens) {
    return "cut short: finish_reason 'length' after " + std::to_string(n) + " of " +
           std::to_string(max_tokens) + " tokens";
  }
  for (const char* bad : {"abort", "error", "cancelled", "content_filter"}) {
    if (g.finish_reason == bad)
      return "the generation ended with finish_reason '" + g.finish_reason + "'";
  }
  if (n > max_tokens) {
    return "returned " + std::to_string(n) + " tokens, more than the " +
           std::to_string(max_tokens) + " asked for";
  }
  return std::nullopt;
}

std::optional<Divergence> first_divergence(const Generation& expected, const Generation& got) {
  Divergence d;
  const std::size_t text_at = common_prefix(expected.text, got.text);
  const bool texts_equal = expected.text == got.text;
  if (expected.has_token_ids && got.has_token_ids) {
    const auto& a = expected.token_ids;
    const auto& b = got.token_ids;
    if (a == b) return std::nullopt;
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    d.position = static_cast<std::int64_t>(i);
    if (texts_equal) {
      d.expected = ids_excerpt(a, i);
      d.got = ids_excerpt(b, i);
      return d;
    }
  } else {
    if (texts_equal) return std::nullopt;
    d.by_text = true;
    d.position = characters_before(expected.text, text_at);
  }
  const std::size_t from = text_at > kContextBefore ? text_at - kContextBefore : 0;
  d.expected = excerpt(expected.text, from);
  d.got = excerpt(got.text, from);
  return d;
}

std::string excerpt(std::string_view text, std::size_t at, std::size_t max_bytes) {
  at = std::min(at, text.size());
  while (at > 0 && at < text.size() && is_continuation(static_cast<unsigned char>(text[at]))) --at;
  std::string out = at > 0 ? "…" : "";
  std::size_t used = 0;
  std::size_t i = at;
  while (i < text.size()) {
    std::size_t n = sequence_length(text, i);
    const std::size_t width = n == 0 ? 3 : n;  // U+FFFD takes 3 bytes
    if (used + width > max_bytes) break;
    const auto c = static_cast<unsigned char>(text[i]);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      n = 1;
    } else if (c < 0x20 || c == 0x7F) {
      out += ' ';
    } else {
      out.append(text.substr(i, n));
    }
    used += width;
    i += n;
  }
  if (i < text.size()) out += "…";
  return out;
}

}  // namespace kb::oracle
