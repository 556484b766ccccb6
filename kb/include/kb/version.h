#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// A version as operators write them, ordered like PEP 440 (and compatible with
/// semver for plain X.Y.Z): `0.26.0`, `0.27.1rc2`, `1.0.0-beta.1`, `0.26.0+cu128`,
/// `v0.4`, `0.26.post1`, `0.28.dev3`. Trailing zero components compare equal
/// (`0.28` == `0.28.0`); pre-releases sort before the release; local tags (`+cu128`)
/// sort after the plain version and are ignored by range bounds without one.
class Version {
 public:
  /// Parses `text`; nullopt (and `error` set) when it is not a version.
  static std::optional<Version> parse(std::string_view text, std::string* error = nullptr);
  /// The text as given.
  const std::string& text() const { return text_; }
  /// <0, 0, >0 like strcmp.
  int compare(const Version& other) const;
  /// Same ordering, but ignoring the local tag.
  int compare_public(const Version& other) const;
  bool is_prerelease() const { return pre_kind_ >= 0 && pre_kind_ < 3; }
  bool operator<(const Version& o) const { return compare(o) < 0; }
  bool operator==(const Version& o) const { return compare(o) == 0; }

 private:
  std::string text_;
  std::vector<long long> release_;
  int pre_kind_ = 3;  // 0 dev, 1 a/alpha, 2 b/beta, 3 none-or-rc-handled-below
  long long pre_num_ = 0;
  int rc_ = -1;
  long long post_ = -1;
  long long dev_ = -1;
  std::vector<std::string> local_;
  friend class VersionRangeParser;
};

/// A comma-separated conjunction of comparisons: `>=0.26.0, <0.28`, `==0.27.1`,
/// `0.27.1` (exact), `!=0.26.1`, `~=0.26` (compatible release), `*` (any).
/// An empty range matches every version.
class VersionRange {
 public:
  /// Parses `text`; nullopt (and `error` set to a message naming the bad part) on failure.
  static std::optional<VersionRange> parse(std::string_view text, std::string* error = nullptr);
  /// Whether `v` is in the range.
  bool contains(const Version& v) const;
  /// The text as given.
  const std::string& text() const { return text_; }

 private:
  enum class Op { eq, ne, lt, le, gt, ge, compatible };
  struct Clause {
    Op op;
    Version bound;
  };
  std::string text_;
  std::vector<Clause> clauses_;
};

}  // namespace kb
