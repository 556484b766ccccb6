// Version ranges: parsing `>=0.26.0, <0.28` into clauses and deciding whether a version
// satisfies them (PEP 440 rules).

#include <array>
#include <string>

#include "core/version_text.h"
#include "kb/version.h"

namespace kb {
namespace {

using version_detail::lower;
using version_detail::trim;

constexpr std::size_t kMaxClauses = 32;

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

std::optional<VersionRange> VersionRange::parse(std::string_view text) {
  return parse_or_error(text).value;
}

Parsed<VersionRange> VersionRange::parse_or_error(std::string_view text) {
  Parsed<VersionRange> out;
  auto fail = [&](std::string message, std::size_t offset) {
    out.error = ParseError{std::move(message), offset};
    return out;
  };
  if (text.size() > kMaxRangeLength) {
    return fail("version range is longer than " + std::to_string(kMaxRangeLength) + " characters",
                0);
  }
  VersionRange range;
  const std::string_view trimmed = trim(text);
  // Offsets below are into the trimmed text; `lead` turns them into offsets into `text`.
  const std::size_t lead =
      trimmed.empty() ? 0 : static_cast<std::size_t>(trimmed.data() - text.data());
  range.text_ = std::string(trimmed);
  std::string_view all = range.text_;
  if (all.empty() || all == "*") {
    out.value = std::move(range);
    return out;
  }
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
    std::size_t at = lead + start;  // offset in `text` of the clause's first character
    start = comma == std::string_view::npos ? all.size() + 1 : comma + 1;
    ++index;
    std::string_view clause = trim(part);
    if (!clause.empty()) at += static_cast<std::size_t>(clause.data() - part.data());
    std::string where = "clause " + std::to_string(index) + " '" + std::string(clause) + "'";
    if (clause.empty()) return fail("empty " + where + " in '" + range.text_ + "'", at);
    if (range.clauses_.size() >= kMaxClauses) {
      return fail("more than " + std::to_string(kMaxClauses) + " clauses in a version range", at);
    }
    const std::size_t clause_at = at;
    Op op = Op::eq;
    for (const OpToken& t : kOps) {
      if (clause.starts_with(t.text)) {
        op = static_cast<Op>(t.op);
        clause.remove_prefix(t.text.size());
        at += t.text.size();
        break;
      }
    }
    const std::string_view after_op = clause;
    clause = trim(clause);
    if (clause.empty()) return fail(where + ": the operator has no version after it", clause_at);
    at += static_cast<std::size_t>(clause.data() - after_op.data());  // `at`: the version
    if (op == Op::arbitrary) {
      range.clauses_.push_back({op, Version{}});
      range.clauses_.back().bound.text_ = std::string(clause);
      continue;
    }
    bool prefix = clause.ends_with(".*");
    if (prefix) {
      if (op != Op::eq && op != Op::ne) {
        return fail(where + ": '.*' is allowed only after '==' or '!='", at + clause.size() - 2);
      }
      clause.remove_suffix(2);
      op = op == Op::eq ? Op::prefix_eq : Op::prefix_ne;
    }
    if (const std::size_t space = clause.find_first_of(" \t"); space != std::string_view::npos) {
      return fail(where + ": separate the comparisons of a range with commas", at + space);
    }
    Parsed<Version> bound = Version::parse_or_error(clause);
    if (!bound.value) return fail(where + ": " + bound.error.message, at + bound.error.offset);
    if (bound.value->has_local() && op != Op::eq && op != Op::ne) {
      return fail(where + ": only '==' and '!=' take a version with a local tag",
                  at + clause.find('+'));
    }
    if (prefix && (bound.value->is_prerelease() || bound.value->is_postrelease() ||
                   bound.value->has_local())) {
      return fail(where + ": a '.*' prefix must be release numbers only, like '==0.26.*'", at);
    }
    if (op == Op::compatible && bound.value->release().size() < 2) {
      return fail(where + ": '~=' needs at least two release numbers, like '~=0.26'", at);
    }
    range.clauses_.push_back({op, std::move(*bound.value)});
  }
  out.value = std::move(range);
  return out;
}

}  // namespace kb
