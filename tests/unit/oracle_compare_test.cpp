// Comparing generations: which answers count at all, the first diverging token or
// character, and the excerpts kept of both sides.

#include <catch2/catch.hpp>

#include "kb/oracle.h"

using kb::oracle::Generation;

namespace {

Generation tokens(std::vector<std::int64_t> ids, std::string text = "some text") {
  Generation g;
  g.token_ids = std::move(ids);
  g.has_token_ids = true;
  g.text = std::move(text);
  g.finish_reason = "length";
  return g;
}

Generation text(std::string t) {
  Generation g;
  g.text = std::move(t);
  g.finish_reason = "stop";
  return g;
}

}  // namespace

TEST_CASE("token ids are compared from generated token 0", "[oracle][compare]") {
  auto a = tokens({5, 6, 7, 8}, " amber birch cedar delta");
  CHECK_FALSE(kb::oracle::first_divergence(a, tokens({5, 6, 7, 8}, " amber birch cedar delta")));

  auto d = kb::oracle::first_divergence(a, tokens({5, 6, 9, 9}, " amber birch ember ember"));
  REQUIRE(d);
  CHECK(d->position == 2);
  CHECK_FALSE(d->by_text);
  CHECK(d->expected == " amber birch cedar delta");
  CHECK(d->got == " amber birch ember ember");

  auto first = kb::oracle::first_divergence(a, tokens({1, 6, 7, 8}, " x birch cedar delta"));
  REQUIRE(first);
  CHECK(first->position == 0);

  // One stops early: they diverge where the shorter one ends.
  auto shorter = kb::oracle::first_divergence(a, tokens({5, 6}, " amber birch"));
  REQUIRE(shorter);
  CHECK(shorter->position == 2);
}

TEST_CASE("ids that differ under the same text show the ids", "[oracle][compare]") {
  auto d = kb::oracle::first_divergence(tokens({1, 2, 3, 4, 5, 6, 7, 8, 9}, "same"),
                                        tokens({1, 2, 3, 4, 50, 6, 7, 8, 9}, "same"));
  REQUIRE(d);
  CHECK(d->position == 4);
  CHECK(d->expected == "token ids […, 3, 4, 5, 6, 7, 8, …]");
  CHECK(d->got == "token ids […, 3, 4, 50, 6, 7, 8, …]");
}

TEST_CASE("without ids on both sides the text is compared by character", "[oracle][compare]") {
  // "é" is two bytes: the position counts characters, not bytes.
  auto d = kb::oracle::first_divergence(text("café au lait"), tokens({1, 2}, "café au thé"));
  REQUIRE(d);
  CHECK(d->by_text);
  CHECK(d->position == 8);
  CHECK(d->expected == "café au lait");
  CHECK(d->got == "café au thé");
  CHECK_FALSE(kb::oracle::first_divergence(text("same"), text("same")));

  // A difference inside a multi-byte character starts at that character.
  auto inside = kb::oracle::first_divergence(text("x\xC3\xA9"), text("x\xC3\xA8"));
  REQUIRE(inside);
  CHECK(inside->position == 1);
}

TEST_CASE("excerpts keep context, cut on characters and stay printable", "[oracle][compare]") {
  const std::string long_text(100, 'a');
  auto d = kb::oracle::first_divergence(text(long_text + "XYZ"), text(long_text + "XQZ"));
  REQUIRE(d);
  CHECK(d->position == 101);
  CHECK(d->expected == "…aaaaaaaaaaaaaaaaaaaXYZ");
  CHECK(d->got == "…aaaaaaaaaaaaaaaaaaaXQZ");

  CHECK(kb::oracle::excerpt("a\tb\x01"
                            "c",
                            0) == "a b c");
  CHECK(kb::oracle::excerpt("ab\xFF"
                            "c",
                            0) ==
        "ab\xEF\xBF\xBD"
        "c");
  CHECK(kb::oracle::excerpt("héllo wörld", 2, 4) == "…éll…");
  CHECK(kb::oracle::excerpt(std::string(10, 'z'), 0, 4) == "zzzz…");
}

TEST_CASE("an answer that is missing, empty or cut short cannot be compared", "[oracle][compare]") {
  Generation failed;
  failed.error = "HTTP 500: boom";
  CHECK(kb::oracle::unusable(failed, 8) == std::optional<std::string>("HTTP 500: boom"));

  Generation empty;
  empty.has_token_ids = true;
  empty.finish_reason = "stop";
  CHECK(kb::oracle::unusable(empty, 8) ==
        std::optional<std::string>("empty answer (finish_reason 'stop')"));

  // Stopping at the limit that was asked for is normal; before it, the answer was cut.
  CHECK_FALSE(kb::oracle::unusable(tokens({1, 2, 3, 4, 5, 6, 7, 8}), 8));
  CHECK(kb::oracle::unusable(tokens({1, 2, 3}), 8) ==
        std::optional<std::string>("cut short: finish_reason 'length' after 3 of 8 tokens"));
  Generation by_usage = text("a b c");
  by_usage.finish_reason = "length";
  by_usage.completion_tokens = 3;
  CHECK(kb::oracle::unusable(by_usage, 8) ==
        std::optional<std::string>("cut short: finish_reason 'length' after 3 of 8 tokens"));
  // A natural stop before the limit is fine, as is an unknown count.
  auto stopped = tokens({1, 2, 3});
  stopped.finish_reason = "stop";
  CHECK_FALSE(kb::oracle::unusable(stopped, 8));

  auto aborted = tokens({1});
  aborted.finish_reason = "abort";
  CHECK(kb::oracle::unusable(aborted, 8) ==
        std::optional<std::string>("the generation ended with finish_reason 'abort'"));
  CHECK(kb::oracle::unusable(tokens({1, 2, 3}), 2) ==
        std::optional<std::string>("returned 3 tokens, more than the 2 asked for"));
}
