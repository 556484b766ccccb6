// The one YAML scalar writer: whatever it writes reads back through yaml-cpp as the same
// string, in a block mapping and inside a flow sequence, and it writes plain only what
// YAML would not read as a bool, null or number.

#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include "yaml/yaml_scalar.h"

using kb::yaml_out::Quote;
using kb::yaml_out::scalar;

namespace {

const char* const kSamples[] = {
    "gotchas/x", "0.26.0", "Mooncake", "yes", "Yes", "NO", "on", "Off", "y", "~", "null",
    "true", "False", "1e3", "1E-3", "12", "-12", "+1", "0x1F", "0o17", "0b101", "1_000",
    "1.5", ".5", "6.", "nan", ".inf", "a: b", "a:b", "# not a comment", "x #y", "x,y",
    "[x]", "{x}", "  leading", "trailing  ", "-", "- item", "?", "!tag", "&anchor", "*alias",
    "@at", "`tick", "%percent", "it's", "say \"hi\"", "back\\slash", "tab\there", "new\nline",
    "caf\xC3\xA9", "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E", "line\xE2\x80\xA8sep", "\xEF\xBB\xBF" "bom",
    "ctl\x01x", "", " ", "vllm 0.26.0 + lmcache", ">=0.8.0, <0.9", "a|b", "a>b",
};

std::string reread_block(const std::string& text) {
  return YAML::Load("key: " + text + "\n")["key"].as<std::string>();
}

std::string reread_flow(const std::string& text) {
  return YAML::Load("[" + text + ", other]\n")[0].as<std::string>();
}

}  // namespace

TEST_CASE("every scalar reads back as the same string, in block and flow context", "[yaml]") {
  for (const char* sample : kSamples) {
    for (Quote q : {Quote::plain, Quote::single, Quote::double_}) {
      const std::string written = scalar(sample, q);
      INFO("'" << sample << "' written as " << written);
      CHECK(reread_block(written) == sample);
      CHECK(reread_flow(written) == sample);
    }
  }
}

TEST_CASE("plain only where YAML reads no bool, null or number", "[yaml]") {
  CHECK(scalar("gotchas/x") == "gotchas/x");
  CHECK(scalar("0.26.0") == "0.26.0");
  CHECK(scalar("Mooncake") == "Mooncake");
  CHECK(scalar("vllm 0.26.0 + lmcache") == "vllm 0.26.0 + lmcache");
  CHECK(scalar("yes") == "\"yes\"");
  CHECK(scalar("Off") == "\"Off\"");
  CHECK(scalar("~") == "\"~\"");
  CHECK(scalar("1e3") == "\"1e3\"");
  CHECK(scalar("0x1F") == "\"0x1F\"");
  CHECK(scalar("1_000") == "\"1_000\"");
  CHECK(scalar("12") == "\"12\"");
  CHECK(scalar("1.5") == "\"1.5\"");
  CHECK(scalar("a: b") == "\"a: b\"");
  CHECK(scalar("x #y") == "\"x #y\"");
  CHECK(scalar("x,y") == "\"x,y\"");
  CHECK(scalar("  leading") == "\"  leading\"");
  CHECK(scalar("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
  CHECK(scalar("tab\there") == "\"tab\\there\"");
}

TEST_CASE("a typed value stays plain when YAML reads it as the bool or number it is", "[yaml]") {
  CHECK(kb::yaml_out::typed_scalar("true") == "true");
  CHECK(kb::yaml_out::typed_scalar("64") == "64");
  CHECK(kb::yaml_out::typed_scalar("-1") == "-1");
  CHECK(kb::yaml_out::typed_scalar("0.5") == "0.5");
  CHECK(kb::yaml_out::typed_scalar("0.26.0") == "0.26.0");
  CHECK(kb::yaml_out::typed_scalar("yes") == "\"yes\"");
  CHECK(kb::yaml_out::typed_scalar("1e3") == "\"1e3\"");
  CHECK(kb::yaml_out::typed_scalar("a: b") == "\"a: b\"");
}

TEST_CASE("a preferred quoting style is kept when it can hold the text", "[yaml]") {
  CHECK(scalar("mooncake", Quote::single) == "'mooncake'");
  CHECK(scalar("it's", Quote::single) == "'it''s'");
  CHECK(scalar("new\nline", Quote::single) == "\"new\\nline\"");
  CHECK(scalar("mooncake", Quote::double_) == "\"mooncake\"");
  CHECK(scalar("line\xE2\x80\xA8sep", Quote::single) == "\"line\\u2028sep\"");
}
