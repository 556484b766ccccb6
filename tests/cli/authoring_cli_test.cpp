// `kb new` and `kb vocab`: writing a record, and finding which record spells a word.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;

TEST_CASE("kb new: a scaffold lint flags until every required field is written",
          "[cli][authoring]") {
  auto dir = scratch("new");
  const fs::path rec = copy_records(dir);
  const std::string records = "--records '" + rec.string() + "'";
  Run r = kb(dir, "new gotcha zz-fresh " + records);
  INFO(r.err);
  CHECK(r.code == 0);
  const fs::path file = rec / "gotchas" / "zz-fresh.yaml";
  const std::string text = slurp(file);
  CHECK(text.rfind("# yaml-language-server: $schema=../../schemas/gotchas.schema.json\n", 0) == 0);
  CHECK(text.find("id: gotchas/zz-fresh\n") != std::string::npos);
  CHECK(text.find("severity:  # ") != std::string::npos);
  // Every empty required field is an error until written.
  Run lint = kb(dir, "lint '" + file.string() + "' " + records);
  CHECK(lint.code == 1);
  for (const char* field : {"title", "severity", "status", "symptom"}) {
    CHECK(lint.out.find("missing required field '" + std::string(field) + "'") !=
          std::string::npos);
  }
  // Filled in, it lints clean.
  std::string filled = text;
  auto fill = [&](const std::string& key, const std::string& value) {
    const auto at = filled.find(key + ":  #");
    REQUIRE(at != std::string::npos);
    filled.replace(at, filled.find('\n', at) - at, key + ": " + value);
  };
  fill("title", "Something fresh goes wrong");
  fill("severity", "minor");
  fill("status", "open");
  fill("symptom", "It breaks.");
  spit(file, filled + "affects: [vllm]\n");
  Run clean = kb(dir, "lint '" + file.string() + "' " + records);
  INFO(clean.out);
  CHECK(clean.code == 0);
  // An existing record is not overwritten; a bad name is bad usage.
  CHECK(kb(dir, "new gotcha zz-fresh " + records).code == 2);
  CHECK(slurp(file) == filled + "affects: [vllm]\n");
  CHECK(kb(dir, "new setting Not_A_Slug " + records).code == 2);
  CHECK(kb(dir, "new widget x " + records).code == 2);
  CHECK(kb(dir, "new settings zz-knob " + records).code == 0);
  CHECK(slurp(rec / "settings" / "zz-knob.yaml").find("\ntype:  # ") != std::string::npos);
}

TEST_CASE("kb vocab: which record spells a flag, a variable, a value, an image",
          "[cli][authoring]") {
  auto dir = scratch("vocab");
  const std::string records = "--records '" + (fs::path(KB_SOURCE_DIR) / "records").string() + "'";
  Run flag = kb(dir, "vocab --enable-prefix-caching " + records);
  CHECK(flag.code == 0);
  CHECK(flag.out.find("flag (of vllm, key prefix_caching) in settings/prefix-caching") !=
        std::string::npos);
  // Underscores and dashes are one spelling; a value's synonym names its setting.
  CHECK(kb(dir, "vocab --enable_prefix_caching " + records).out == flag.out);
  Run value = kb(dir, "vocab NixlConnector " + records);
  CHECK(value.out.find("value synonym (kv_connector = nixl) in settings/kv-connector") !=
        std::string::npos);
  Run image = kb(dir, "vocab lmcache/vllm-openai:v0.3.9 " + records + " -f json");
  auto j = nlohmann::json::parse(image.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  CHECK(j["hits"][0]["record"] == "engines/lmcache");
  CHECK(j["hits"][0]["what"] == "image");
  // Nothing spells it: exit 1, with the resolver's did-you-mean for a typo'd engine.
  Run none = kb(dir, "vocab lmcahce " + records);
  CHECK(none.code == 1);
  CHECK(none.out.find("did you mean 'lmcache'") != std::string::npos);
  CHECK(kb(dir, "vocab " + records).code == 2);
}
