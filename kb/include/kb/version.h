#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// Longest version text accepted; longer input is refused, not parsed.
inline constexpr std::size_t kMaxVersionLength = 256;
/// Longest version range text accepted.
inline constexpr std::size_t kMaxRangeLength = 1024;

/// Why a text is not a version or a version range, and where.
struct ParseError {
  std::string message;     ///< names the bad part: "'0.2x8' is not a version: unexpected ..."
  std::size_t offset = 0;  ///< byte offset of the offending character in the text parsed
};

/// The outcome of a parse that says why it failed.
template <typename T>
struct Parsed {
  std::optional<T> value;  ///< empty when the text did not parse
  ParseError error;        ///< why, when `value` is empty
};

/// A version as operators write them, ordered like PEP 440 (and compatible with
/// semver for plain X.Y.Z): `0.26.0`, `0.27.1rc2`, `1.0.0-beta.1`, `0.26.0+cu128`,
/// `v0.4`, `0.26.post1`, `0.28.dev3`, `1!2.0`. Trailing zero components compare equal
/// (`0.28` == `0.28.0`); pre-releases sort before the release; local tags (`+cu128`)
/// sort after the plain version and are ignored by range bounds without one.
class Version {
 public:
  /// Parses `text`; nullopt when it is not a version.
  static std::optional<Version> parse(std::string_view text);
  /// Parses `text`; when it is not a version, the error names the bad part and its offset
  /// in `text` (surrounding whitespace counted), so a caller can point at it.
  static Parsed<Version> parse_or_error(std::string_view text);
  /// The text as given, without surrounding whitespace.
  const std::string& text() const { return text_; }
  /// <0, 0, >0 like strcmp.
  int compare(const Version& other) const;
  /// Same ordering, but ignoring the local tag.
  int compare_public(const Version& other) const;
  /// Compares only epoch and release numbers (`0.28rc1` and `0.28.0` are equal here).
  int compare_base(const Version& other) const;
  /// A pre-release (`a`, `b`, `rc`) or a development release (`.devN`).
  bool is_prerelease() const { return pre_kind_ >= 0 || dev_ >= 0; }
  /// A post-release (`.postN`, `-N`).
  bool is_postrelease() const { return post_ >= 0; }
  /// Has a local tag (`+cu128`).
  bool has_local() const { return !local_.empty(); }
  /// The epoch (`1` for `1!2.0`), 0 when not written.
  long long epoch() const { return epoch_; }
  /// The release numbers, `{0, 26, 0}` for `0.26.0rc1`.
  const std::vector<long long>& release() const { return release_; }
  bool operator<(const Version& o) const { return compare(o) < 0; }
  bool operator==(const Version& o) const { return compare(o) == 0; }

 private:
  friend class VersionParser;
  friend class VersionRange;

  std::string text_;
  long long epoch_ = 0;
  std::vector<long long> release_;
  int pre_kind_ = -1;  // -1 none, 0 alpha, 1 beta, 2 release candidate
  long long pre_num_ = 0;
  long long post_ = -1;  // -1 none
  long long dev_ = -1;   // -1 none
  std::vector<std::string> local_;
};

/// A comma-separated conjunction of comparisons: `>=0.26.0, <0.28`, `==0.27.1`,
/// `0.27.1` (exact), `!=0.26.1`, `~=0.26` (compatible release), `==0.26.*` (prefix),
/// `*` (any). An empty range matches every version. Pre-releases are matched like
/// any other version, except that `<V` excludes pre-releases of V itself (PEP 440):
/// `0.27.1rc2` is in `>=0.26, <0.28`, `0.28rc1` is not.
class VersionRange {
 public:
  /// Parses `text`; nullopt when it is not a version range.
  static std::optional<VersionRange> parse(std::string_view text);
  /// Parses `text`; on failure the error names the bad clause and the offset in `text` of
  /// the offending character (`b` of `>=0.26, <banana`).
  static Parsed<VersionRange> parse_or_error(std::string_view text);
  /// Whether `v` is in the range.
  bool contains(const Version& v) const;
  /// The text as given, without surrounding whitespace.
  const std::string& text() const { return text_; }
  /// Whether the range matches every version (empty or `*`).
  bool is_any() const { return clauses_.empty(); }

 private:
  enum class Op { eq, ne, lt, le, gt, ge, compatible, prefix_eq, prefix_ne, arbitrary };
  struct Clause {
    Op op;
    Version bound;
  };
  static bool holds(const Clause& c, const Version& v);

  std::string text_;
  std::vector<Clause> clauses_;
};

}  // namespace kb
