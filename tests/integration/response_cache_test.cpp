#include <catch2/catch.hpp>

#include "response_cache.h"

using kb::http::ResponseCache;

TEST_CASE("response cache: one body per key and snapshot, rebuilt for a newer one",
          "[server][cache]") {
  ResponseCache cache(1 << 20);
  int made = 0;
  auto make = [&](std::string body) {
    return [&made, body] {
      ++made;
      return body;
    };
  };
  CHECK(*cache.get(1, "gotchas/a", make("a1")) == "a1");
  CHECK(*cache.get(1, "gotchas/a", make("other")) == "a1");  // cached
  CHECK(*cache.get(1, "gotchas/b", make("b1")) == "b1");
  CHECK(made == 2);
  CHECK(cache.hits() == 1);
  CHECK(cache.misses() == 2);

  CHECK(*cache.get(2, "gotchas/a", make("a2")) == "a2");  // a newer snapshot starts over
  CHECK(*cache.get(2, "gotchas/a", make("other")) == "a2");
  // A request still answering from the older snapshot gets its own answer, uncached.
  CHECK(*cache.get(1, "gotchas/a", make("a1 again")) == "a1 again");
  CHECK(*cache.get(2, "gotchas/a", make("other")) == "a2");
  CHECK(made == 4);
}

TEST_CASE("response cache: the byte budget bounds what is kept", "[server][cache]") {
  ResponseCache cache(100);
  int made = 0;
  auto make = [&made](std::size_t n) {
    return [&made, n] {
      ++made;
      return std::string(n, 'x');
    };
  };
  CHECK(cache.get(1, "big", make(200))->size() == 200);  // larger than the budget
  cache.get(1, "big", make(200));
  CHECK(made == 2);  // never kept
  cache.get(1, "k1", make(60));
  cache.get(1, "k1", make(60));
  CHECK(made == 3);
  cache.get(1, "k2", make(60));  // over budget: the cache starts over with k2 alone
  cache.get(1, "k2", make(60));
  CHECK(made == 4);
  cache.get(1, "k1", make(60));
  CHECK(made == 5);
}
