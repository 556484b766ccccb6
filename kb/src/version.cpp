#include "kb/version.h"

#include <algorithm>
#include <array>
#include <climits>

namespace kb {
namespace {

// 18 digits always fit in a long long; anything longer is refused rather than wrapped.
constexpr std::size_t kMaxDigits = 18;
constexpr std::size_t kMaxClauses = 32;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alnum(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z');
}
bool is_separator(char c) {
  return c == '.' || c == '-' || c == '_';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
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

  std::optional<Version> run(std::string* error) {
    Version v;
    if (!parse_into(v)) {
      if (error) *error = error_;
      return std::nullopt;
    }
    return v;
  }

 private:
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  bool parse_into(Version& v) {
    std::string_view original = trim(s_);
    if (original.empty()) return fail("empty version");
    if (original.size() > kMaxVersionLength) {
      return fail("version is longer than " + std::to_string(kMaxVersionLength) + " characters");
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
      return fail("number '" + text_.substr(start, len) + "' in version is too large");
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
  std::string text_;
  std::size_t i_ = 0;
  std::string error_;
};

std::optional<Version> Version::parse(std::string_view text, std::string* error) {
  return VersionParser(text).run(error);
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

namespace {

struct OpToken {
  std::string_view text;
  int op;
};

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Whether `v`'s first `len` release numbers equal `prefix`'s (both padded with zeros).
bool release_prefix_matches(const Version& v, const Version& prefix, std::size_t len) {
  if (v.epoch() != prefix.epoch()) return false;
  for (std::size_t i = 0; i < len; ++i) {
    long long x = i < v.release().size() ? v.release()[i] : 0;
    long long y = i < prefix.release().size() ? prefix.release()[i] : 0;
    if (x != y) return false;
  }
  return true;
}

}  // namespace

bool VersionRange::holds(const Clause& c, const Version& v) {
  const Version& b = c.bound;
  switch (c.op) {
    case Op::eq:
      return b.has_local() ? v.compare(b) == 0 : v.compare_public(b) == 0;
    case Op::ne:
      return b.has_local() ? v.compare(b) != 0 : v.compare_public(b) != 0;
    case Op::le:
      return v.compare_public(b) <= 0;
    case Op::ge:
      return v.compare_public(b) >= 0;
    case Op::lt:
      // `<V` never admits a pre-release of V itself unless V is one.
      if (v.compare_public(b) >= 0) return false;
      return b.is_prerelease() || !v.is_prerelease() || v.compare_base(b) != 0;
    case Op::gt:
      // `>V` never admits a post-release or local build of V itself.
      if (v.compare_public(b) <= 0) return false;
      if (v.has_local() && v.compare_public(b) == 0) return false;
      return b.is_postrelease() || !v.is_postrelease() || v.compare_base(b) != 0;
    case Op::compatible:
      return v.compare_public(b) >= 0 && release_prefix_matches(v, b, b.release().size() - 1);
    case Op::prefix_eq:
      return release_prefix_matches(v, b, b.release().size());
    case Op::prefix_ne:
      return !release_prefix_matches(v, b, b.release().size());
    case Op::arbitrary:
      return equal_ignoring_case(v.text(), b.text());
  }
  return false;
}

bool VersionRange::contains(const Version& v) const {
  for (const Clause& c : clauses_) {
    if (!holds(c, v)) return false;
  }
  return true;
}

std::optional<VersionRange> VersionRange::parse(std::string_view text, std::string* error) {
  auto fail = [&](std::string message) -> std::optional<VersionRange> {
    if (error) *error = std::move(message);
    return std::nullopt;
  };
  if (text.size() > kMaxRangeLength) {
    return fail("version range is longer than " + std::to_string(kMaxRangeLength) + " characters");
  }
  VersionRange range;
  range.text_ = std::string(trim(text));
  std::string_view all = range.text_;
  if (all.empty() || all == "*") return range;
  // Ordered longest first so `<=` is not read as `<` followed by `=...`.
  static constexpr std::array<OpToken, 9> kOps{{{"===", static_cast<int>(Op::arbitrary)},
                                                {"~=", static_cast<int>(Op::compatible)},
                                                {"==", static_cast<int>(Op::eq)},
                                                {"!=", static_cast<int>(Op::ne)},
                                                {"<=", static_cast<int>(Op::le)},
                                                {">=", static_cast<int>(Op::ge)},
                                                {"<", static_cast<int>(Op::lt)},
                                                {">", static_cast<int>(Op::gt)},
                                                {"=", static_cast<int>(Op::eq)}}};
  std::size_t start = 0;
  int index = 0;
  while (start <= all.size()) {
    std::size_t comma = all.find(',', start);
    std::string_view part =
        all.substr(start, comma == std::string_view::npos ? all.npos : comma - start);
    start = comma == std::string_view::npos ? all.size() + 1 : comma + 1;
    ++index;
    std::string_view clause = trim(part);
    std::string where = "clause " + std::to_string(index) + " '" + std::string(clause) + "'";
    if (clause.empty()) return fail("empty " + where + " in '" + range.text_ + "'");
    if (range.clauses_.size() >= kMaxClauses) {
      return fail("more than " + std::to_string(kMaxClauses) + " clauses in a version range");
    }
    Op op = Op::eq;
    for (const OpToken& t : kOps) {
      if (clause.substr(0, t.text.size()) == t.text) {
        op = static_cast<Op>(t.op);
        clause.remove_prefix(t.text.size());
        break;
      }
    }
    clause = trim(clause);
    if (clause.empty()) return fail(where + ": the operator has no version after it");
    if (op == Op::arbitrary) {
      range.clauses_.push_back({op, Version{}});
      range.clauses_.back().bound.text_ = std::string(clause);
      continue;
    }
    bool prefix = clause.size() >= 2 && clause.substr(clause.size() - 2) == ".*";
    if (prefix) {
      if (op != Op::eq && op != Op::ne) {
        return fail(where + ": '.*' is allowed only after '==' or '!='");
      }
      clause.remove_suffix(2);
      op = op == Op::eq ? Op::prefix_eq : Op::prefix_ne;
    }
    if (clause.find_first_of(" \t") != std::string_view::npos) {
      return fail(where + ": separate the comparisons of a range with commas");
    }
    std::string why;
    std::optional<Version> bound = Version::parse(clause, &why);
    if (!bound) return fail(where + ": " + why);
    if (bound->has_local() && op != Op::eq && op != Op::ne) {
      return fail(where + ": only '==' and '!=' take a version with a local tag");
    }
    if (prefix && (bound->is_prerelease() || bound->is_postrelease() || bound->has_local())) {
      return fail(where + ": a '.*' prefix must be release numbers only, like '==0.26.*'");
    }
    if (op == Op::compatible && bound->release().size() < 2) {
      return fail(where + ": '~=' needs at least two release numbers, like '~=0.26'");
    }
    range.clauses_.push_back({op, std::move(*bound)});
  }
  return range;
}

}  // namespace kb
