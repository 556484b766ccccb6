// The YAML front end's positions and its handling of repeated keys, beyond what the
// tests/data/invalid/ fixtures show (cases the fuzzers found).

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "yaml/yaml_tree.h"

namespace {

struct Parsed {
  bool ok = false;
  kb::yaml::Node root;
  std::vector<kb::Diagnostic> diags;
};

Parsed parse(const std::string& text) {
  Parsed p;
  p.ok = kb::yaml::parse(text, "t.yaml", kb::yaml::Limits{}, p.root, p.diags);
  return p;
}

}  // namespace

TEST_CASE("a syntax error at the end of a text without a final newline is on its last line",
          "[yaml]") {
  // libyaml moves its end-of-stream mark to a line after the last one.
  const Parsed p = parse("title: x\nrefs:\n  - {type: issue, repo: y");
  REQUIRE_FALSE(p.ok);
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].code == "yaml.syntax");
  CHECK(p.diags[0].line == 3);
  CHECK(p.diags[0].column == 26);  // just past the last character of line 3

  const Parsed with_newline = parse("title: x\nrefs:\n  - {type: issue, repo: y\n");
  REQUIRE(with_newline.diags.size() == 1);
  CHECK(with_newline.diags[0].line == 4);  // that line exists: the text ends with a newline
  CHECK(with_newline.diags[0].column == 1);
}

TEST_CASE("a repeated key is reported and only its first value is kept", "[yaml]") {
  const Parsed p = parse("config: {a: 1}\nname: n\nconfig: {a: 2}\n");
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].code == "yaml.duplicate-key");
  CHECK(p.diags[0].line == 3);
  CHECK(p.diags[0].column == 1);
  REQUIRE(p.root.entries.size() == 2);
  CHECK(p.root.entries[0].first.value == "config");
  CHECK(p.root.entries[1].first.value == "name");
  const kb::yaml::Node* config = p.root.find("config");
  REQUIRE(config != nullptr);
  REQUIRE(config->entries.size() == 1);
  CHECK(config->entries[0].second.value == "1");

  // Nested mappings are deduplicated too, inside lists.
  const Parsed nested = parse("items:\n  - {k: 1, k: 2, j: 3}\n");
  REQUIRE(nested.diags.size() == 1);
  CHECK(nested.diags[0].line == 2);
  CHECK(nested.diags[0].column == 12);
  const auto& item = nested.root.find("items")->items.at(0);
  REQUIRE(item.entries.size() == 2);
  CHECK(item.entries[0].second.value == "1");
  CHECK(item.entries[1].first.value == "j");
}

TEST_CASE("lines end at a lone carriage return, as YAML counts them", "[yaml]") {
  // Old Mac line ends: libyaml counts each lone \r as a line break, and so do positions.
  const Parsed p = parse("title: x\r\rrefs: [a\r");
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].code == "yaml.syntax");
  CHECK(p.diags[0].line == 4);  // the text ends with a line break: line 4 is empty
  CHECK(p.diags[0].column == 1);
  const Parsed crlf = parse("title: x\r\nrefs: [a");
  REQUIRE(crlf.diags.size() == 1);
  CHECK(crlf.diags[0].line == 2);
  CHECK(crlf.diags[0].column == 9);  // just past `refs: [a`
}
