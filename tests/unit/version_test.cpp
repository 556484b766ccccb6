#include <catch2/catch.hpp>

#include <string>

#include "kb/version.h"

namespace {

kb::Version v(const std::string& text) {
  auto parsed = kb::Version::parse_or_error(text);
  INFO(text << ": " << parsed.error.message);
  REQUIRE(parsed.value);
  return *parsed.value;
}

bool in(const std::string& version, const std::string& range) {
  auto r = kb::VersionRange::parse_or_error(range);
  INFO(range << ": " << r.error.message);
  REQUIRE(r.value);
  return r.value->contains(v(version));
}

kb::ParseError range_failure(const std::string& range) {
  auto r = kb::VersionRange::parse_or_error(range);
  CHECK_FALSE(r.value);
  CHECK_FALSE(kb::VersionRange::parse(range));
  return r.error;
}

std::string range_error(const std::string& range) {
  return range_failure(range).message;
}

kb::ParseError version_failure(const std::string& text) {
  auto parsed = kb::Version::parse_or_error(text);
  CHECK_FALSE(parsed.value);
  CHECK_FALSE(kb::Version::parse(text));
  return parsed.error;
}

std::string version_error(const std::string& text) {
  return version_failure(text).message;
}

}  // namespace

TEST_CASE("versions order like PEP 440", "[version]") {
  // Each is strictly less than the next.
  const char* ordered[] = {"0.9",          "0.26.0.dev1", "0.26.0a1",     "0.26.0a2.dev0",
                           "0.26.0a2",     "0.26.0b1",    "0.26.0rc1",    "0.26.0rc2",
                           "0.26.0",       "0.26.0+abc",  "0.26.0+cu128", "0.26.0+1",
                           "0.26.0.post1", "0.26.1",      "0.27.1rc2",    "0.28",
                           "1.0.0-beta.1", "1.0.0",       "1!0.1"};
  for (std::size_t i = 0; i + 1 < std::size(ordered); ++i) {
    INFO(ordered[i] << " < " << ordered[i + 1]);
    CHECK(v(ordered[i]).compare(v(ordered[i + 1])) < 0);
    CHECK(v(ordered[i + 1]).compare(v(ordered[i])) > 0);
  }
}

TEST_CASE("equal spellings of one version compare equal", "[version]") {
  CHECK(v("0.28") == v("0.28.0"));
  CHECK(v("0.28") == v("0.28.0.0"));
  CHECK(v("v0.4") == v("0.4"));
  CHECK(v("V0.4") == v("0.4.0"));
  CHECK(v("1.0.0-beta.1") == v("1.0.0b1"));
  CHECK(v("1.0-alpha") == v("1.0a0"));
  CHECK(v("1.0RC1") == v("1.0rc1"));
  CHECK(v("1.0c1") == v("1.0rc1"));
  CHECK(v("1.0-preview.2") == v("1.0rc2"));
  CHECK(v("1.0-1") == v("1.0.post1"));
  CHECK(v("1.0_rev2") == v("1.0.post2"));
  CHECK(v("1.0-dev") == v("1.0.dev0"));
  CHECK(v("  0.26.0 ") == v("0.26.0"));
  CHECK(v("0.026") == v("0.26"));
  CHECK(v("0.26.0+CU128") == v("0.26.0+cu128"));
  CHECK(v("0.26.0+cu128").compare_public(v("0.26.0")) == 0);
  CHECK(v("0.28rc1").compare_base(v("0.28.0")) == 0);
}

TEST_CASE("version flags and parts", "[version]") {
  CHECK(v("0.27.1rc2").is_prerelease());
  CHECK(v("0.28.dev3").is_prerelease());
  CHECK_FALSE(v("0.28.post1").is_prerelease());
  CHECK(v("0.28.post1").is_postrelease());
  CHECK(v("0.26.0+cu128").has_local());
  CHECK(v("0.26.0+cu128").text() == "0.26.0+cu128");
  CHECK(v("2!1.2").epoch() == 2);
  CHECK(v("1.2.3rc4").release() == std::vector<long long>{1, 2, 3});
}

TEST_CASE("malformed versions are refused with a message naming the bad part", "[version]") {
  CHECK(version_error("") == "empty version");
  CHECK(version_error("latest") == "'latest' is not a version: it must start with a number");
  CHECK(version_error("0.2x8") == "'0.2x8' is not a version: unexpected 'x8' after '0.2'");
  CHECK(version_error("1.0.0-foo") ==
        "'1.0.0-foo' is not a version: unexpected '-foo' after '1.0.0'");
  CHECK(version_error("1.0.0-alpha.beta") ==
        "'1.0.0-alpha.beta' is not a version: unexpected '.beta' after '1.0.0-alpha'");
  CHECK(version_error("1.0+") == "'1.0+' is not a version: empty segment in local tag");
  CHECK(version_error("1.0+a..b") == "'1.0+a..b' is not a version: empty segment in local tag");
  CHECK(version_error("1..0") == "'1..0' is not a version: unexpected '..0' after '1'");
  CHECK(version_error("1!") == "'1!' is not a version: it ends too early");
  CHECK(version_error("1234567890123456789") ==
        "number '1234567890123456789' in version is too large");
  CHECK(version_error(std::string(300, '1')) == "version is longer than 256 characters");
  CHECK(v("000000000000000000000001") == v("1"));
}

TEST_CASE("ranges: ordered comparisons and conjunctions", "[version]") {
  CHECK(in("0.26.0", ">=0.26.0, <0.28"));
  CHECK(in("0.27.9", ">=0.26.0, <0.28"));
  CHECK_FALSE(in("0.28.0", ">=0.26.0, <0.28"));
  CHECK_FALSE(in("0.25.9", ">=0.26.0, <0.28"));
  CHECK(in("0.26", ">=0.26.0"));
  CHECK(in("0.26.0", "<=0.26"));
  CHECK_FALSE(in("0.26.1", "<=0.26"));
  CHECK(in("0.26.1", ">0.26"));
  CHECK_FALSE(in("0.26.0", ">0.26"));
  CHECK(in("0.26.0", ">= 0.26.0 ,< 0.28"));
  CHECK(in("0.30.0", ""));
  CHECK(in("0.30.0", "*"));
  CHECK(in("0.30.0", "  "));
}

TEST_CASE("ranges: pre-releases follow PEP 440", "[version]") {
  CHECK(in("0.27.1rc2", ">=0.26, <0.28"));
  CHECK_FALSE(in("0.28rc1", "<0.28"));
  CHECK_FALSE(in("0.28.0rc1", "<0.28"));
  CHECK_FALSE(in("0.28.dev0", "<0.28"));
  CHECK_FALSE(in("0.28a1", ">=0.26, <0.28"));
  CHECK(in("0.28rc1", "<0.28rc2"));
  CHECK(in("0.28rc1", "<=0.28"));
  CHECK_FALSE(in("0.26rc1", ">=0.26"));
  CHECK(in("0.26rc1", ">=0.26rc1"));
  CHECK(in("0.26.0", ">0.26rc1"));
  CHECK_FALSE(in("0.26.0.post1", ">0.26.0"));
  CHECK(in("0.26.0.post2", ">0.26.0.post1"));
  CHECK(in("0.26.1", ">0.26.0"));
  CHECK_FALSE(in("1.0.0-beta.2", ">=1.0.0-beta.1, <1.0.0"));
  CHECK(in("1.0.0-beta.2", ">=1.0.0-beta.1, <1.0.0-rc.1"));
}

TEST_CASE("ranges: local tags", "[version]") {
  CHECK(in("0.26.0+cu128", "==0.26.0"));
  CHECK(in("0.26.0+cu128", ">=0.26.0"));
  CHECK(in("0.26.0+cu128", "<=0.26.0"));
  CHECK(in("0.26.0+cu128", "0.26.0"));
  CHECK_FALSE(in("0.26.0+cu128", ">0.26.0"));
  CHECK_FALSE(in("0.26.0+cu128", "!=0.26.0"));
  CHECK(in("0.26.0+cu128", "==0.26.0+cu128"));
  CHECK_FALSE(in("0.26.0+cu126", "==0.26.0+cu128"));
  CHECK_FALSE(in("0.26.0", "==0.26.0+cu128"));
  CHECK(in("0.26.0+cu126", "!=0.26.0+cu128"));
}

TEST_CASE("ranges: exact, not-equal, compatible, prefix, arbitrary", "[version]") {
  CHECK(in("0.27.1", "==0.27.1"));
  CHECK(in("0.27.1", "=0.27.1"));
  CHECK(in("0.27.1", "0.27.1"));
  CHECK(in("0.27.1", "v0.27.1"));
  CHECK_FALSE(in("0.27.2", "0.27.1"));
  CHECK(in("0.26.2", "!=0.26.1"));
  CHECK_FALSE(in("0.26.1", "!=0.26.1"));
  CHECK(in("0.26.5", "~=0.26.1"));
  CHECK_FALSE(in("0.27.0", "~=0.26.1"));
  CHECK_FALSE(in("0.26.0", "~=0.26.1"));
  CHECK(in("0.29", "~=0.26"));
  CHECK_FALSE(in("1.0", "~=0.26"));
  CHECK(in("0.26.7", "==0.26.*"));
  CHECK(in("0.26", "==0.26.*"));
  CHECK(in("0.26.0rc1", "==0.26.*"));
  CHECK_FALSE(in("0.27.0", "==0.26.*"));
  CHECK(in("0.27.0", "!=0.26.*"));
  CHECK_FALSE(in("0.26.3", "!=0.26.*"));
  CHECK(in("0.26.0+Custom", "===0.26.0+custom"));
  CHECK_FALSE(in("0.26.0", "===0.26"));
}

TEST_CASE("malformed ranges name the bad clause", "[version]") {
  CHECK(range_error(">=0.26, <0.2x8") ==
        "clause 2 '<0.2x8': '0.2x8' is not a version: unexpected 'x8' after '0.2'");
  CHECK(range_error(">=0.26 <0.28") ==
        "clause 1 '>=0.26 <0.28': separate the comparisons of a range with commas");
  CHECK(range_error(">=0.26,") == "empty clause 2 '' in '>=0.26,'");
  CHECK(range_error(">=") == "clause 1 '>=': the operator has no version after it");
  CHECK(range_error("^1.2") ==
        "clause 1 '^1.2': '^1.2' is not a version: it must start with a number");
  CHECK(range_error(">=0.26.0+cu128") ==
        "clause 1 '>=0.26.0+cu128': only '==' and '!=' take a version with a local tag");
  CHECK(range_error("~=1") ==
        "clause 1 '~=1': '~=' needs at least two release numbers, like '~=0.26'");
  CHECK(range_error(">=0.26.*") == "clause 1 '>=0.26.*': '.*' is allowed only after '==' or '!='");
  CHECK(range_error("==0.26rc1.*") ==
        "clause 1 '==0.26rc1.*': a '.*' prefix must be release numbers only, like '==0.26.*'");
  CHECK(range_error(std::string(2000, '1')) == "version range is longer than 1024 characters");
  std::string many;
  for (int i = 0; i < 40; ++i) many += ">=0.1,";
  many += ">=0.1";
  CHECK(range_error(many) == "more than 32 clauses in a version range");
}

TEST_CASE("a malformed version says at which byte it goes wrong", "[version]") {
  CHECK(version_failure("latest").offset == 0);
  CHECK(version_failure("  latest").offset == 2);
  CHECK(version_failure("vx").offset == 1);
  CHECK(version_failure("0.2x8").offset == 3);
  CHECK(version_failure(" 0.2x8 ").offset == 4);
  CHECK(version_failure("1!").offset == 2);
  CHECK(version_failure("1.0+a..b").offset == 6);
  CHECK(version_failure("1.1234567890123456789").offset == 2);
  CHECK(version_failure("").offset == 0);
}

TEST_CASE("a malformed range says at which byte it goes wrong", "[version]") {
  // Each offset is the byte of the range text the message is about.
  CHECK(range_failure(">=banana").offset == 2);
  CHECK(range_failure(">=0.26, <0.2x8").offset == 12);
  CHECK(range_failure(" >= 0.26 ,  <  0.2x8").offset == 18);
  CHECK(range_failure(">=0.26 <0.28").offset == 6);
  CHECK(range_failure(">=0.26,").offset == 7);
  CHECK(range_failure(">=0.26, ,<1").offset == 7);
  CHECK(range_failure(">=0.26, >=").offset == 8);
  CHECK(range_failure(">=0.26.0+cu128").offset == 8);
  CHECK(range_failure("~=1").offset == 2);
  CHECK(range_failure(">=0.26.*").offset == 6);
  CHECK(range_failure("==0.26rc1.*").offset == 2);
  CHECK(range_failure(std::string(2000, '1')).offset == 0);
  std::string many;
  for (int i = 0; i < 40; ++i) many += ">=0.1,";
  CHECK(range_failure(many).offset == 32 * 6);
}

TEST_CASE("hostile input never crashes the parsers", "[version]") {
  const std::string inputs[] = {std::string("\0\0", 2),
                                "\xff\xfe",
                                "v",
                                "+",
                                "!",
                                "1!",
                                "1.0.post",
                                "1.0-",
                                ",,,",
                                "==",
                                "~=",
                                "===",
                                "*,*",
                                std::string(kb::kMaxVersionLength, '9'),
                                "1" + std::string(200, '.'),
                                "1" + std::string(100, '+')};
  for (const auto& s : inputs) {
    auto version = kb::Version::parse_or_error(s);
    auto range = kb::VersionRange::parse_or_error(s);
    CHECK(version.error.offset <= s.size());
    CHECK(range.error.offset <= s.size());
  }
  SUCCEED();
}
