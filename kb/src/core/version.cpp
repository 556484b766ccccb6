#include "kb/version.h"

#include <algorithm>
#include <array>
#include <climits>

#include "core/version_text.h"

namespace kb {
namespace {

using version_detail::lower;
using version_detail::trim;

// 18 digits always fit in a long long; anything longer is refused rather than wrapped.
constexpr std::size_t kMaxDigits = 18;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z');
}
bool is_separator(char c) {
  return c == '.' || c == '-' || c == '_';
}
template <typename T>
int cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

// Release numbers compare as if the shorter one were padded with zeros.
int compare_release(const std::vector<long long>& a, const std::vector<long long>& b) {
  std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    long long x = i < a.size() ? a[i] : 0;
    long long y = i < b.size() ? b[i] : 0;
    if (int c = cmp(x, y)) return c;
  }
  return 0;
}

// PEP 440: a numeric local segment sorts after any alphanumeric one; numbers compare
// numerically, words lexically; a longer tag with an equal prefix sorts later.
int compare_local_segment(const std::string& a, const std::string& b) {
  bool an = std::all_of(a.begin(), a.end(), is_digit);
  bool bn = std::all_of(b.begin(), b.end(), is_digit);
  if (an != bn) return an ? 1 : -1;
  if (!an) return cmp(a, b);
  std::string_view x = a, y = b;
  while (x.size() > 1 && x.front() == '0') x.remove_prefix(1);
  while (y.size() > 1 && y.front() == '0') y.remove_prefix(1);
  if (x.size() != y.size()) return cmp(x.size(), y.size());
  return cmp(x, y);
}

}  // namespace

// Recursive-descent parser of the PEP 440 grammar over lower-cased text.
class VersionParser {
 public:
  explicit VersionParser(std::string_view text) : s_(text) {}

  Parsed<Version> run() {
    Parsed<Version> out;
    Version v;
    if (parse_into(v)) {
      out.value = std::move(v);
    } else {
      out.error = std::move(error_);
    }
    return out;
  }

 private:
  // Fails at byte `at` of the trimmed text.
  bool fail(std::string message, std::size_t at) {
    error_ = ParseError{std::move(message), lead_ + at};
    return false;
  }
  bool fail(std::string message) { return fail(std::move(message), i_); }

  bool parse_into(Version& v) {
    std::string_view original = trim(s_);
    lead_ = original.empty() ? 0 : static_cast<std::size_t>(original.data() - s_.data());
    if (original.empty()) return fail("empty version", 0);
    if (original.size() > kMaxVersionLength) {
      return fail("version is longer than " + std::to_string(kMaxVersionLength) + " characters", 0);
    }
    v.text_ = std::string(original);
    text_.reserve(original.size());
    for (char c : original) text_.push_back(lower(c));
    if (text_[0] == 'v') ++i_;
    if (i_ >= text_.size() || !is_digit(text_[i_])) {
      return fail("'" + v.text_ + "' is not a version: it must start with a number");
    }
    long long first = 0;
    if (!number(first)) return false;
    if (peek() == '!') {
      ++i_;
      v.epoch_ = first;
      if (!is_digit(peek())) return unexpected(v);
      if (!number(first)) return false;
    }
    v.release_.push_back(first);
    while (peek() == '.' && is_digit(peek(1))) {
      ++i_;
      long long n = 0;
      if (!number(n)) return false;
      v.release_.push_back(n);
    }
    if (!pre_release(v) || !post_release(v) || !dev_release(v) || !local(v)) return false;
    if (i_ != text_.size()) return unexpected(v);
    return true;
  }

  char peek(std::size_t ahead = 0) const {
    return i_ + ahead < text_.size() ? text_[i_ + ahead] : '\0';
  }

  bool unexpected(const Version& v) {
    std::string rest = v.text_.substr(std::min(i_, v.text_.size()));
    std::string before = v.text_.substr(0, std::min(i_, v.text_.size()));
    if (rest.empty()) return fail("'" + v.text_ + "' is not a version: it ends too early");
    return fail("'" + v.text_ + "' is not a version: unexpected '" + rest + "' after '" + before +
                "'");
  }

  bool number(long long& out) {
    std::size_t start = i_;
    while (is_digit(peek())) ++i_;
    std::size_t len = i_ - start;
    std::size_t skip = 0;
    while (skip + 1 < len && text_[start + skip] == '0') ++skip;
    if (len - skip > kMaxDigits) {
      return fail("number '" + text_.substr(start, len) + "' in version is too large", start);
    }
    out = 0;
    for (std::size_t k = start + skip; k < i_; ++k) out = out * 10 + (text_[k] - '0');
    return true;
  }

  // Matches `word` at the cursor (optionally after one separator); advances on success.
  bool word(std::string_view w, bool allow_separator) {
    std::size_t at = i_;
    if (allow_separator && is_separator(peek())) ++at;
    if (text_.compare(at, w.size(), w) != 0) return false;
    // `rc` must not be read as `r` followed by garbage, nor `dev` as `d`.
    std::size_t end = at + w.size();
    if (end < text_.size() && text_[end] >= 'a' && text_[end] <= 'z') return false;
    i_ = end;
    return true;
  }

  // The optional number after a signifier: `rc1`, `rc.1`, `rc-1`, `rc` (= 0).
  bool signifier_number(long long& out) {
    out = 0;
    if (is_separator(peek()) && is_digit(peek(1))) ++i_;
    if (is_digit(peek())) return number(out);
    return true;
  }

  bool pre_release(Version& v) {
    static constexpr std::array<std::pair<std::string_view, int>, 8> kWords{{{"alpha", 0},
                                                                             {"a", 0},
                                                                             {"beta", 1},
                                                                             {"b", 1},
                                                                             {"preview", 2},
                                                                             {"pre", 2},
                                                                             {"rc", 2},
                                                                             {"c", 2}}};
    for (const auto& [w, kind] : kWords) {
      if (word(w, true)) {
        v.pre_kind_ = kind;
        return signifier_number(v.pre_num_);
      }
    }
    return true;
  }

  bool post_release(Version& v) {
    if (peek() == '-' && is_digit(peek(1))) {
      ++i_;
      return number(v.post_);
    }
    for (std::string_view w : {"post", "rev", "r"}) {
      if (word(w, true)) return signifier_number(v.post_);
    }
    return true;
  }

  bool dev_release(Version& v) {
    if (word("dev", true)) return signifier_number(v.dev_);
    return true;
  }

  bool local(Version& v) {
    if (peek() != '+') return true;
    ++i_;
    while (true) {
      std::size_t start = i_;
      while (is_alnum(peek())) ++i_;
      if (i_ == start) {
        return fail("'" + v.text_ + "' is not a version: empty segment in local tag");
      }
      v.local_.push_back(text_.substr(start, i_ - start));
      if (!is_separator(peek())) return true;
      ++i_;
    }
  }

  std::string_view s_;
  std::size_t lead_ = 0;  // bytes of whitespace before the trimmed text
  std::string text_;
  std::size_t i_ = 0;
  ParseError error_;
};

std::optional<Version> Version::parse(std::string_view text) {
  return VersionParser(text).run().value;
}

Parsed<Version> Version::parse_or_error(std::string_view text) {
  return VersionParser(text).run();
}

int Version::compare_base(const Version& o) const {
  if (int c = cmp(epoch_, o.epoch_)) return c;
  return compare_release(release_, o.release_);
}

int Version::compare_public(const Version& o) const {
  if (int c = compare_base(o)) return c;
  // A dev release without pre or post sorts before every pre-release of its release;
  // no pre-release at all sorts after every pre-release.
  auto pre_key = [](const Version& v) -> std::pair<int, long long> {
    if (v.pre_kind_ < 0 && v.post_ < 0 && v.dev_ >= 0) return {-1, 0};
    if (v.pre_kind_ < 0) return {3, 0};
    return {v.pre_kind_, v.pre_num_};
  };
  if (int c = cmp(pre_key(*this), pre_key(o))) return c;
  if (int c = cmp(post_, o.post_)) return c;
  auto dev_key = [](const Version& v) { return v.dev_ < 0 ? LLONG_MAX : v.dev_; };
  return cmp(dev_key(*this), dev_key(o));
}

int Version::compare(const Version& o) const {
  if (int c = compare_public(o)) return c;
  std::size_t n = std::min(local_.size(), o.local_.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (int c = compare_local_segment(local_[i], o.local_[i])) return c;
  }
  return cmp(local_.size(), o.local_.size());
}

}  // namespace kb
