#include <catch2/catch.hpp>

#include "kb/text.h"

using namespace kb::text;

TEST_CASE("one trim, one lower, one id -> slug", "[text]") {
  CHECK(trim(" \t\r\n x y \f\v") == "x y");
  CHECK(trim("   ").empty());
  CHECK(lower("MoonCake-0.9") == "mooncake-0.9");
  CHECK(lower("CAF\xC3\x89") == "caf\xC3\x89");  // only ASCII folds
  CHECK(id_slug("gotchas/x") == "x");
  CHECK(id_slug("engines/a/b") == "a/b");
  CHECK(id_slug("vllm") == "vllm");
}

TEST_CASE("a slug is one lower-case segment, an id is slugs joined by '/'", "[text]") {
  CHECK(valid_slug("pd-cache-hit"));
  CHECK(valid_slug("0.26_x"));
  CHECK(valid_slug("a..b"));  // a harmless file name; no segment can be '..'
  CHECK_FALSE(valid_slug(""));
  CHECK_FALSE(valid_slug(".."));
  CHECK_FALSE(valid_slug(".hidden"));
  CHECK_FALSE(valid_slug("-x"));
  CHECK_FALSE(valid_slug("Upper"));
  CHECK_FALSE(valid_slug("a/b"));
  CHECK_FALSE(valid_slug("sp ace"));
  CHECK_FALSE(valid_slug("caf\xC3\xA9"));
  CHECK(valid_slug(std::string(200, 'a')));
  CHECK_FALSE(valid_slug(std::string(201, 'a')));
  CHECK(valid_id("gotchas/x"));
  CHECK(valid_id("gotchas/sub/x"));
  CHECK_FALSE(valid_id("gotchas/"));
  CHECK_FALSE(valid_id("/x"));
  CHECK_FALSE(valid_id("gotchas//x"));
  CHECK_FALSE(valid_id("gotchas/../x"));
}
