// kb::Vec, the 8-byte list of record fields: growth, insertion and erasure against
// std::vector as the model, element lifetimes (every element built is destroyed once),
// self-referencing appends, and a recursive element type.

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "kb/vec.h"

using kb::Vec;

namespace {

// Counts live objects, so that a leak or a double destruction shows as a wrong count.
struct Tracked {
  static inline int live = 0;
  std::string text;
  Tracked(std::string t = {}) : text(std::move(t)) { ++live; }
  Tracked(const Tracked& o) : text(o.text) { ++live; }
  Tracked(Tracked&& o) noexcept : text(std::move(o.text)) { ++live; }
  Tracked& operator=(const Tracked&) = default;
  Tracked& operator=(Tracked&&) noexcept = default;
  ~Tracked() { --live; }
  bool operator==(const Tracked& o) const { return text == o.text; }
};

// A tree node holding a list of itself, as a predicate does.
struct Tree {
  int value = 0;
  Vec<Tree> children;
};

template <class A, class B>
bool same(const A& a, const B& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

}  // namespace

TEST_CASE("Vec is one pointer and empty without a block", "[vec]") {
  STATIC_REQUIRE(sizeof(Vec<std::string>) == sizeof(void*));
  Vec<int> v;
  CHECK(v.empty());
  CHECK(v.size() == 0);
  CHECK(v.capacity() == 0);
  CHECK(v.begin() == v.end());
  v.shrink_to_fit();
  CHECK(v.capacity() == 0);
}

TEST_CASE("Vec grows, inserts and erases like std::vector", "[vec]") {
  Vec<std::string> v;
  std::vector<std::string> model;
  for (int i = 0; i < 100; ++i) {
    std::string s(static_cast<std::size_t>(i % 40), static_cast<char>('a' + i % 26));
    if (i % 3 == 0) {
      v.push_back(s);
      model.push_back(s);
    } else if (i % 3 == 1) {
      v.emplace_back(s);
      model.emplace_back(s);
    } else {
      const std::size_t at = static_cast<std::size_t>(i) % (model.size() + 1);
      auto it = v.insert(v.begin() + at, s);
      model.insert(model.begin() + static_cast<std::ptrdiff_t>(at), s);
      CHECK(*it == s);
    }
    REQUIRE(same(v, model));
  }
  CHECK(v.size() == 100);
  CHECK(v.front() == model.front());
  CHECK(v.back() == model.back());
  CHECK(v[17] == model[17]);
  CHECK_THROWS_AS(v.at(100), std::out_of_range);

  v.erase(v.begin() + 10, v.begin() + 30);
  model.erase(model.begin() + 10, model.begin() + 30);
  CHECK(same(v, model));
  v.erase(v.begin());
  model.erase(model.begin());
  CHECK(same(v, model));
  const std::vector<std::string> part(model.begin(), model.begin() + 3);
  v.insert(v.begin() + 5, part.begin(), part.end());
  model.insert(model.begin() + 5, part.begin(), part.end());
  CHECK(same(v, model));

  v.shrink_to_fit();
  CHECK(v.capacity() == v.size());
  CHECK(same(v, model));
  v.resize(3);
  CHECK(v.size() == 3);
  v.resize(5, "x");
  CHECK(v[4] == "x");
  v.pop_back();
  CHECK(v.size() == 4);
  v.clear();
  CHECK(v.empty());
  CHECK(v.capacity() > 0);
}

TEST_CASE("Vec copies deep, moves by pointer and compares by elements", "[vec]") {
  Vec<std::string> a{"one", "two", "a string longer than any small-string buffer"};
  Vec<std::string> b = a;
  CHECK(a == b);
  CHECK(b.data() != a.data());
  b[0] = "uno";
  CHECK(a != b);
  CHECK(a[0] == "one");
  const std::string* before = b.data();
  Vec<std::string> c = std::move(b);
  CHECK(c.data() == before);
  CHECK(b.empty());  // NOLINT(bugprone-use-after-move): a moved-from Vec is empty
  c = a;
  CHECK(c == a);
  c = c;  // NOLINT: self-assignment keeps the elements
  CHECK(c == a);
  c = std::vector<std::string>{"x", "y"};
  CHECK(same(c, std::vector<std::string>{"x", "y"}));
  CHECK(c.to_vector() == std::vector<std::string>{"x", "y"});
  CHECK(Vec<int>{1, 2} < Vec<int>{1, 3});
  std::vector<std::string> sorted(a.rbegin(), a.rend());
  CHECK(sorted.front() == a.back());
}

TEST_CASE("Vec builds and destroys every element exactly once", "[vec]") {
  Tracked::live = 0;
  {
    Vec<Tracked> v;
    for (int i = 0; i < 50; ++i) v.emplace_back(std::to_string(i));
    CHECK(Tracked::live == 50);
    Vec<Tracked> copy = v;
    CHECK(Tracked::live == 100);
    copy.erase(copy.begin() + 3, copy.end());
    CHECK(Tracked::live == 53);
    copy.shrink_to_fit();
    CHECK(Tracked::live == 53);
    v.insert(v.begin(), Tracked("front"));
    CHECK(Tracked::live == 54);
    CHECK(v.front().text == "front");
    CHECK(v[1].text == "0");
  }
  CHECK(Tracked::live == 0);
}

TEST_CASE("Vec appends one of its own elements while it grows", "[vec]") {
  Vec<std::string> v{"a string longer than any small-string buffer"};
  for (int i = 0; i < 10; ++i) v.push_back(v.front());
  CHECK(v.size() == 11);
  CHECK(std::all_of(v.begin(), v.end(), [&](const std::string& s) { return s == v.front(); }));
  Vec<std::string> w{"x", "y"};
  w.insert(w.begin(), w.begin(), w.end());
  CHECK(same(w, std::vector<std::string>{"x", "y", "x", "y"}));
}

TEST_CASE("Vec holds a recursive element type", "[vec]") {
  Tree root;
  root.value = 1;
  for (int i = 0; i < 3; ++i) {
    Tree& child = root.children.emplace_back();
    child.value = 10 + i;
    child.children.push_back(Tree{100 + i, {}});
  }
  Tree copy = root;
  CHECK(copy.children.size() == 3);
  CHECK(copy.children[2].children[0].value == 102);
  root.children.clear();
  CHECK(copy.children[1].value == 11);
}
