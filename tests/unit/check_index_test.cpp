#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "check_fixture.h"
#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/evidence.h"

// CheckIndex::run evaluates only the gotchas a deployment can trigger (by engine and
// config key) plus those that hold for an empty deployment: each case below is a shape
// of predicate whose trigger a wrong index would miss.

namespace {

std::string gotcha(const std::string& applies_when, const std::string& affects = "[a]") {
  return "title: t\nseverity: major\nstatus: open\nsymptom: s\naffects: " + affects +
         (applies_when.empty() ? "" : "\napplies_when: " + applies_when) + "\n";
}

// Three engines and six gotchas, one per shape of predicate.
std::vector<std::pair<std::string, std::string>> records() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char* e : {"a", "b", "c"})
    out.emplace_back(std::string("engines/") + e + ".yaml", std::string("name: ") + e + "\n");
  for (const char* k : {"k", "j", "m"})
    out.emplace_back(std::string("settings/") + k + ".yaml", "title: " + std::string(k) + "\ntype: string\n");
  const std::vector<std::pair<std::string, std::string>> gotchas = {
      {"not-b", gotcha("{not: {engine: b}}")},
      {"a-and-k", gotcha("{all: [{engine: a}, {config: {k: \"on\"}}]}")},
      {"k-and-j", gotcha("{config: {k: \"on\", j: x}}")},
      {"c-unless-m", gotcha("{all: [{engine: c}, {any: [{not: {config_set: [m]}}, {engine: b}]}]}")},
      {"implicit-b", gotcha("", "[{engine: b, versions: \">=1.0, <2\"}]")},
      {"any-a-or-j", gotcha("{any: [{engine: a, versions: \"<1\"}, {config_set: [j]}]}")},
  };
  for (const auto& [slug, yaml] : gotchas) out.emplace_back("gotchas/" + slug + ".yaml", yaml);
  return out;
}

struct Fixture : kb::test::CheckFixture {
  Fixture() : CheckFixture(records()) {}

  std::vector<std::string> found(const std::string& yaml) const {
    std::vector<std::string> out;
    for (const auto& f : check(yaml).findings) out.push_back(f.id.substr(sizeof "gotchas/" - 1));
    return out;
  }
};

const Fixture& fixture() {
  static const Fixture f;
  return f;
}

using Ids = std::vector<std::string>;

}  // namespace

TEST_CASE("check index: gotchas true for an empty deployment are always evaluated", "[check]") {
  CHECK(fixture().index.size() == 6);
  CHECK(fixture().found("config: {unrelated: 1}\n") == Ids{"not-b"});
  CHECK(fixture().found("engines: [{engine: b, version: 3.0}]\n").empty());
}

TEST_CASE("check index: an engine and a config key both trigger", "[check]") {
  CHECK(fixture().found("engines: [{engine: a, version: 1.2}]\n") == Ids{"not-b"});
  CHECK(fixture().found("engines: [{engine: a, version: 1.2}]\nconfig: {k: \"on\"}\n") ==
        Ids{"a-and-k", "not-b"});
  CHECK(fixture().found("engines: [{engine: a, version: 0.5}]\n") == Ids{"any-a-or-j", "not-b"});
  CHECK(fixture().found("config: {j: x}\n") == Ids{"any-a-or-j", "not-b"});
  // Indexed under k alone, found with both keys whatever their order.
  CHECK(fixture().found("config: {j: x, k: \"on\"}\n") == Ids{"any-a-or-j", "k-and-j", "not-b"});
  CHECK(fixture().found("engines: [{engine: b, version: 1.5}]\n") == Ids{"implicit-b"});
}

TEST_CASE("check index: a negated key inside any still lets its engine trigger", "[check]") {
  CHECK(fixture().found("engines: [c]\n") == Ids{"c-unless-m", "not-b"});
  CHECK(fixture().found("engines: [c]\nconfig: {m: 1}\n") == Ids{"not-b"});
  CHECK(fixture().found("engines: [c, {engine: b, version: 5.0}]\nconfig: {m: 1}\n") ==
        Ids{"c-unless-m"});
}
