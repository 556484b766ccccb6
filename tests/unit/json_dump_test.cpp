// json::dump_pretty against nlohmann's own dump(2), on documents shaped like records and
// on random ones built from the characters every escaping rule is about.

#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "json_dump.h"

using nlohmann::json;

namespace {

// Strings from pieces that each take a different path: plain text, the two-character
// escapes, other control characters, DEL, two- to four-byte UTF-8.
std::string random_text(std::mt19937& rng) {
  static const char* const pieces[] = {
      "plain text ", "\"",     "\\",   "\n",   "\t",          "\r",           "\b",
      "\f",          "\x01",   "\x1f", "\x7f", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
      "/",           "{}[],:", "",     "  "};
  std::string s;
  const int n = static_cast<int>(rng() % 8);
  for (int i = 0; i < n; ++i) s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
  return s;
}

json random_value(std::mt19937& rng, int depth) {
  switch (rng() % (depth > 3 ? 6 : 8)) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<std::int64_t>(rng()) - (1LL << 31);
    case 3:
      return static_cast<std::uint64_t>(rng()) << 20;
    case 4:
      return static_cast<double>(rng() % 1000) / 8.0;
    case 5:
      return random_text(rng);
    case 6: {
      json a = json::array();
      for (int i = static_cast<int>(rng() % 4); i > 0; --i)
        a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      for (int i = static_cast<int>(rng() % 4); i > 0; --i)
        o[random_text(rng)] = random_value(rng, depth + 1);
      return o;
    }
  }
}

}  // namespace

TEST_CASE("dump_pretty writes what dump(2) writes", "[json]") {
  const json record = {{"id", "gotchas/x"},
                       {"symptom", "A \"cache hit\"\nreturns\tother text\\ \x01 caf\xc3\xa9"},
                       {"affects", json::array({{{"raw", "vllm"}, {"versions", ">=0.6"}}})},
                       {"aliases", json::array()},
                       {"evidence", json::object()},
                       {"confidence", 0.5},
                       {"count", 3},
                       {"stale", false},
                       {"fixed_in", nullptr}};
  CHECK(kb::json::dump_pretty(record) == record.dump(2));
  for (const json& scalar : {json("x"), json(1), json(-1), json(nullptr), json(true), json(1e300),
                             json::array(), json::object()}) {
    CHECK(kb::json::dump_pretty(scalar) == scalar.dump(2));
  }
  std::mt19937 rng(19);
  for (int i = 0; i < 3000; ++i) {
    const json doc = random_value(rng, 0);
    INFO(doc.dump());
    REQUIRE(kb::json::dump_pretty(doc) == doc.dump(2));
  }
}

TEST_CASE("dump_pretty refuses text that is not UTF-8 as dump(2) does", "[json]") {
  for (const char* bad : {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "\xe2\x82", "ok \x80 no"}) {
    const json doc = {{"k", json::array({"fine", bad})}};
    INFO(json(std::string(bad)).dump(-1, ' ', true, json::error_handler_t::replace));
    CHECK_THROWS_AS(doc.dump(2), json::type_error);
    CHECK_THROWS_AS(kb::json::dump_pretty(doc), json::type_error);
  }
  const json bad_key = {{"\xff", 1}};
  CHECK_THROWS_AS(kb::json::dump_pretty(bad_key), json::type_error);
}

namespace {

// Pieces of every kind, valid or not, so that random strings mix them.
const char* const kMixedPieces[] = {"plain ",       "\"",
                                       "\\",           "\n",
                                       "\x01",         "\x1f",
                                       "\x7f",         "caf\xc3\xa9",
                                       "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                       "\xef\xbf\xbf", "\xff",
                                       "\xc3",         "\xc0\xaf",
                                       "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                       "\xe2\x82",     "\x80"};

std::string mixed_text(std::mt19937& rng) {
  std::string s;
  for (int k = static_cast<int>(rng() % 6); k > 0; --k)
    s += kMixedPieces[rng() % (sizeof kMixedPieces / sizeof *kMixedPieces)];
  return s;
}

}  // namespace

TEST_CASE("append_ascii_string writes what dump(-1, ' ', true, replace) writes", "[json]") {
  std::mt19937 rng(23);
  for (int i = 0; i < 5000; ++i) {
    const std::string s = mixed_text(rng);
    std::string out = "prefix";
    kb::json::append_ascii_string(out, s);
    REQUIRE(out == "prefix" + json(s).dump(-1, ' ', true, json::error_handler_t::replace));
  }
}

TEST_CASE("append_string writes what dump(-1, ' ', false, replace) writes", "[json]") {
  std::mt19937 rng(29);
  for (int i = 0; i < 5000; ++i) {
    const std::string s = mixed_text(rng);
    std::string out = "prefix";
    kb::json::append_string(out, s);
    REQUIRE(out == "prefix" + json(s).dump(-1, ' ', false, json::error_handler_t::replace));
  }
}
