#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli/cli_support.h"

using namespace kb_test;
using nlohmann::json;

namespace {

// The shipped records: their signatures are quoted from the upstream reports.
std::string records() {
  return "--records '" + (fs::path(KB_SOURCE_DIR) / "records").string() + "'";
}

const char* kNixlGotcha = "gotchas/nixl-side-channel-host-unset-silent-recompute";

}  // namespace

TEST_CASE("kb triage: a log line names its gotcha and exits 1", "[cli][triage]") {
  auto dir = scratch("triage");
  spit(dir / "decode.log",
       "INFO 10-20 12:00:01 engine started\n"
       "ERROR 10-20 12:00:05 [nixl_connector.py:612] Remote NIXL agent engine ID mismatch. "
       "Expected abc, received def.\n"
       "INFO done\n");
  Run r = kb(dir, "triage '" + (dir / "decode.log").string() + "' " + records());
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.out.find(kNixlGotcha) != std::string::npos);
  CHECK(r.out.find("decode.log:2: ERROR") != std::string::npos);
  CHECK(r.out.find("signature: Remote NIXL agent engine ID mismatch (vllm)") != std::string::npos);

  Run j = kb(dir, "triage -f json '" + (dir / "decode.log").string() + "' " + records());
  CHECK(j.code == 1);
  json doc = json::parse(j.out, nullptr, false);
  REQUIRE_FALSE(doc.is_discarded());
  CHECK(doc["schema_version"].is_string());
  REQUIRE(doc["matches"].size() == 1);
  CHECK(doc["matches"][0]["id"] == kNixlGotcha);
  CHECK(doc["matches"][0]["lines"][0]["line"] == 2);
  CHECK(doc["lines"] == 3);

  // Standard input, and -o writes what stdout would get.
  Run s = kb_stdin(dir, "triage - -f json -o '" + (dir / "out.json").string() + "' " + records(),
                   dir / "decode.log");
  CHECK(s.code == 1);
  CHECK(s.out.empty());
  CHECK(json::parse(slurp(dir / "out.json"))["matches"][0]["id"] == kNixlGotcha);
}

TEST_CASE("kb triage: a clean log exits 0 and an unreadable one 2", "[cli][triage]") {
  auto dir = scratch("triage_clean");
  spit(dir / "ok.log", "INFO all good\n");
  Run r = kb(dir, "triage '" + (dir / "ok.log").string() + "' " + records());
  CHECK(r.code == 0);
  CHECK(r.out.find("no known gotcha's signature in 1 line") != std::string::npos);
  Run missing = kb(dir, "triage '" + (dir / "nope.log").string() + "' " + records());
  CHECK(missing.code == 2);
  CHECK(missing.err.find("cannot open") != std::string::npos);
}
