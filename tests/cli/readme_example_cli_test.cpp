// The README's "Checking a deployment" example, run exactly as printed there against the
// shipped records: it must keep producing the findings the README shows. The README text
// is read at test time, so editing the example without its output fails here.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli/cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

constexpr const char* kMarker = "# deployment.yaml, the hand-written format\n";

// The YAML block of the README that starts with kMarker, fence excluded.
std::string readme_example() {
  const std::string readme = slurp(fs::path(KB_SOURCE_DIR) / "README.md");
  const auto start = readme.find(kMarker);
  REQUIRE(start != std::string::npos);
  const auto end = readme.find("```", start);
  REQUIRE(end != std::string::npos);
  return readme.substr(start, end - start);
}

}  // namespace

TEST_CASE("README: the example deployment finds what the README shows", "[cli][check][readme]") {
  const fs::path dir = scratch("readme_example");
  spit(dir / "deployment.yaml", readme_example());
  const std::string records = " --records '" + std::string(KB_SOURCE_DIR) + "/records'";
  Run r =
      kb(dir, "check '" + (dir / "deployment.yaml").string() + "'" + records + " --format json");
  INFO(r.err);
  CHECK(r.code == 1);  // blockers found: the default --fail-on
  const json j = json::parse(r.out, nullptr, false);
  REQUIRE_FALSE(j.is_discarded());
  std::vector<std::string> ids;
  for (const auto& f : j["findings"]) ids.push_back(f["id"].get<std::string>());
  // The findings the README prints; records may add more, never lose these.
  for (const char* shown :
       {"gotchas/lmcache-pd-full-hit-diverges-token0",
        "gotchas/pd-cache-hit-silently-differs-from-cold-run",
        "gotchas/lmcache-partial-chunk-overlap", "gotchas/apc-warm-hit-differs-from-cold"}) {
    INFO(shown);
    CHECK(std::find(ids.begin(), ids.end(), shown) != ids.end());
  }
  for (const auto& f : j["findings"]) {
    if (f["id"] == "gotchas/lmcache-partial-chunk-overlap") {
      CHECK(f["severity"] == "blocker");
      CHECK(f["status"] == "fixed");
    }
    if (f["id"] == "gotchas/pd-cache-hit-silently-differs-from-cold-run") {
      CHECK(f["evidence"] == "reproduced");
    }
  }
  // The text the README shows: the summary line and the advice of a fix chain.
  Run text = kb(dir, "check '" + (dir / "deployment.yaml").string() + "'" + records);
  CHECK(text.code == 1);
  CHECK(text.out.find("blocker  gotchas/lmcache-pd-full-hit-diverges-token0") != std::string::npos);
  CHECK(text.out.find("fix: upgrade lmcache from 0.3.9 to 0.3.12 or later (fixed there)") !=
        std::string::npos);
}
