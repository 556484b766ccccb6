// kb::Str, the 16-byte string of record fields: every length across the inline/heap
// boundary, copies and moves, comparisons and the conversions callers rely on.

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "kb/str.h"

using kb::Str;

TEST_CASE("Str holds every length, inline and on the heap", "[str]") {
  STATIC_REQUIRE(sizeof(Str) == 16);
  const Str empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.c_str()[0] == '\0');
  for (std::size_t n = 0; n <= 40; ++n) {
    INFO("length " << n);
    const std::string s(n, static_cast<char>('a' + n % 26));
    const Str t(s);
    CHECK(t.size() == n);
    CHECK(t.view() == s);
    CHECK(std::string(t.c_str()) == s);  // NUL-terminated, 15 bytes inline included
    Str copy = t;
    CHECK(copy == t);
    Str moved = std::move(copy);
    CHECK(moved == s);
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from Str is empty
    moved = empty;
    CHECK(moved.empty());
    moved = s;
    CHECK(moved == s);
    moved = moved;  // NOLINT: self-assignment keeps the text
    CHECK(moved == s);
  }
}

TEST_CASE("Str survives a vector's reallocations", "[str]") {
  std::vector<Str> v;
  for (int i = 0; i < 200; ++i)
    v.emplace_back(std::string(static_cast<std::size_t>(i % 30), 'x') + std::to_string(i));
  for (int i = 0; i < 200; ++i)
    CHECK(v[static_cast<std::size_t>(i)] ==
          std::string(static_cast<std::size_t>(i % 30), 'x') + std::to_string(i));
}

TEST_CASE("Str compares, joins and converts like the std::string it replaced", "[str]") {
  const Str a("abc");
  CHECK(a == "abc");
  CHECK("abc" == a);
  CHECK(a != "abd");
  CHECK(a < Str("abd"));
  CHECK(std::string("abc") == a);
  CHECK(a + "/" + a == "abc/abc");
  CHECK(std::string("x") + a == "xabc");
  Str b = a;
  b += "defghijklmnopqrstu";
  CHECK(b == "abcdefghijklmnopqrstu");
  CHECK(b.starts_with("abc"));
  CHECK(b.find('d') == 3);
  CHECK(b.substr(18) == "stu");
  const std::string s = b;
  CHECK(s == "abcdefghijklmnopqrstu");
  std::unordered_set<Str> set{Str("x")};
  CHECK(set.count(Str("x")) == 1);
  std::map<Str, int> m{{Str("q"), 1}};
  CHECK(m.at(Str("q")) == 1);
  Str c("a long enough text to be on the heap");
  c.clear();
  CHECK(c.empty());
}
