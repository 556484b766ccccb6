// The record fields `kb oracle run` adds: an oracle's runner, an engine's probe routes, a
// result's model, failures and incomplete flag; and the runner spec read from them.

#include <catch2/catch.hpp>

#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/oracle.h"

using kb::Diagnostic;
using kb::load_record_text;

namespace {

bool has(const std::vector<Diagnostic>& diags, const std::string& code, int line, int column,
         const std::string& hint_part = {}) {
  for (const auto& d : diags) {
    if (d.code == code && d.line == line && d.column == column &&
        d.hint.find(hint_part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string dump(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) s += kb::format_diagnostic(d) + "\n";
  return s;
}

std::string oracle_with(const std::string& runner) {
  return "title: Cold versus warm\n" + runner;
}

}  // namespace

TEST_CASE("an oracle's runner loads and fills in defaults", "[oracle][schema]") {
  auto r = load_record_text(
      "oracles/x.yaml",
      oracle_with("runner:\n  kind: cold-vs-warm\n  params: {warm_runs: 5, isolation: cache_salt,"
                  " salt_field: cache_salt, token_ids_field: return_token_ids}\n"));
  INFO(dump(r.diagnostics));
  REQUIRE(r.record);
  CHECK(r.diagnostics.empty());
  REQUIRE(r.record->runner);
  CHECK(r.record->runner->kind == "cold-vs-warm");
  auto spec = kb::oracle::runner_spec(*r.record);
  CHECK(spec.kind == kb::oracle::RunnerKind::cold_vs_warm);
  CHECK(spec.warm_runs == 5);
  CHECK(spec.max_tokens == 64);
  CHECK(spec.trials == 1);
  CHECK(spec.isolation == kb::oracle::Isolation::cache_salt);
  CHECK(spec.salt_field == "cache_salt");
  CHECK(spec.token_ids_field == "return_token_ids");
  CHECK(spec.determinism_check);
  CHECK(spec.describe() ==
        "cold-vs-warm: max_tokens=64, trials=1, warm_runs=5, isolation=cache_salt, "
        "salt_field=cache_salt, token_ids_field=return_token_ids, determinism_check=true");

  auto mono =
      load_record_text("oracles/m.yaml", oracle_with("runner: {kind: monolithic-equivalence}\n"));
  REQUIRE(mono.record);
  auto m = kb::oracle::runner_spec(*mono.record);
  CHECK(m.needs_baseline());
  CHECK(m.isolation == kb::oracle::Isolation::none);
  CHECK(m.token_ids_field.empty());
}

TEST_CASE("a runner's unknown kind, parameter or value is a diagnostic with a guess",
          "[oracle][schema]") {
  auto kind = load_record_text("oracles/x.yaml", oracle_with("runner: {kind: cold-vs-worm}\n"));
  INFO(dump(kind.diagnostics));
  CHECK(has(kind.diagnostics, "schema.enum", 2, 16, "did you mean 'cold-vs-warm'?"));
  CHECK_FALSE(kind.record);

  auto param = load_record_text(
      "oracles/x.yaml", oracle_with("runner:\n  kind: cold-vs-warm\n  params:\n    warm_run: 3\n"));
  INFO(dump(param.diagnostics));
  CHECK(has(param.diagnostics, "runner.unknown-param", 5, 5, "did you mean 'warm_runs'?"));

  // warm_runs belongs to cold-vs-warm only.
  auto other = load_record_text(
      "oracles/x.yaml",
      oracle_with("runner:\n  kind: monolithic-equivalence\n  params: {warm_runs: 3}\n"));
  CHECK(has(other.diagnostics, "runner.unknown-param", 4, 12));

  auto value = load_record_text(
      "oracles/x.yaml",
      oracle_with("runner:\n  kind: cold-vs-warm\n  params: {warm_runs: 0, isolation: cache-salt,"
                  " determinism_check: yes, token_ids_field: \"a b\"}\n"));
  INFO(dump(value.diagnostics));
  CHECK(has(value.diagnostics, "runner.bad-param", 4, 23));
  CHECK(has(value.diagnostics, "runner.bad-param", 4, 37));
  CHECK(has(value.diagnostics, "runner.bad-param", 4, 68));
  CHECK(has(value.diagnostics, "runner.bad-param", 4, 90));
  bool guessed = false;
  for (const auto& d : value.diagnostics) {
    if (d.message.find("did you mean 'cache_salt'?") != std::string::npos) guessed = true;
  }
  CHECK(guessed);

  auto missing = load_record_text("oracles/x.yaml", oracle_with("runner: {params: {trials: 2}}\n"));
  CHECK(has(missing.diagnostics, "schema.missing-field", 2, 9));
}

TEST_CASE("isolation cache_salt needs the record to name the salt's request field",
          "[oracle][schema]") {
  // Servers name the field differently: the record says which, kb does not guess.
  auto missing = load_record_text(
      "oracles/x.yaml",
      oracle_with("runner:\n  kind: cold-vs-warm\n  params: {isolation: cache_salt}\n"));
  INFO(dump(missing.diagnostics));
  CHECK(has(missing.diagnostics, "runner.bad-param", 4, 23, "salt_field: cache_salt"));
  auto none = load_record_text(
      "oracles/x.yaml", oracle_with("runner:\n  kind: monolithic-equivalence\n  params: "
                                    "{isolation: cache_salt, salt_field: none}\n"));
  CHECK(has(none.diagnostics, "runner.bad-param", 4, 23));
  auto other = load_record_text(
      "oracles/x.yaml", oracle_with("runner:\n  kind: cold-vs-warm\n  params: "
                                    "{isolation: cache_salt, salt_field: session_salt}\n"));
  INFO(dump(other.diagnostics));
  REQUIRE(other.record);
  CHECK(other.diagnostics.empty());
  CHECK(kb::oracle::runner_spec(*other.record).salt_field == "session_salt");
  // A nonce needs no field.
  auto nonce = load_record_text(
      "oracles/x.yaml",
      oracle_with("runner:\n  kind: cold-vs-warm\n  params: {isolation: nonce}\n"));
  CHECK(nonce.diagnostics.empty());

  kb::oracle::RunnerSpec spec;
  spec.kind = kb::oracle::RunnerKind::cold_vs_warm;
  kb::oracle::set_param(spec, "isolation", "cache_salt");
  CHECK_THROWS_WITH(kb::oracle::check_spec(spec),
                    "isolation cache_salt sends the salt in a request field: name it with "
                    "salt_field (vLLM's is cache_salt)");
  kb::oracle::set_param(spec, "salt_field", "cache_salt");
  CHECK_NOTHROW(kb::oracle::check_spec(spec));
}

TEST_CASE("running an oracle without a runner is refused with a hint", "[oracle][schema]") {
  auto r = load_record_text("oracles/x.yaml", "title: By hand\n");
  REQUIRE(r.record);
  try {
    kb::oracle::runner_spec(*r.record);
    FAIL("no exception");
  } catch (const kb::Error& e) {
    CHECK(e.code() == kb::Errc::invalid_argument);
    CHECK(std::string(e.what()) ==
          "oracles/x has no runner: kb cannot run it (add `runner: {kind: "
          "monolithic-equivalence}` to its record, or run it by hand and use `kb results "
          "import`)");
  }
}

TEST_CASE("runner parameters given on the command line are checked like the record", "[oracle][schema]") {
  kb::oracle::RunnerSpec spec;
  spec.kind = kb::oracle::RunnerKind::cold_vs_warm;
  kb::oracle::set_param(spec, "warm_runs", "7");
  kb::oracle::set_param(spec, "isolation", "nonce");
  kb::oracle::set_param(spec, "token_ids_field", "none");
  CHECK(spec.warm_runs == 7);
  CHECK(spec.isolation == kb::oracle::Isolation::nonce);
  CHECK(spec.token_ids_field.empty());
  CHECK_THROWS_WITH(kb::oracle::set_param(spec, "warmruns", "3"),
                    "runner cold-vs-warm has no parameter 'warmruns'; did you mean 'warm_runs'?");
  CHECK_THROWS_WITH(kb::oracle::set_param(spec, "trials", "-1"),
                    "trials: expected a whole number from 1 to 10000, found '-1'");
  spec.kind = kb::oracle::RunnerKind::monolithic_equivalence;
  CHECK_THROWS_WITH(
      kb::oracle::set_param(spec, "isolation", "nonce"),
      "isolation: unknown value 'nonce' (did you mean 'none'? one of none | cache_salt)");
}

TEST_CASE("an engine's probe routes load and are checked", "[oracle][schema]") {
  auto ok = load_record_text("engines/e.yaml",
                             "name: E\nprobe:\n  - {path: /version, version: version}\n"
                             "  - {path: /info, expect: {server.kind: e}}\n");
  INFO(dump(ok.diagnostics));
  REQUIRE(ok.record);
  REQUIRE(ok.record->engine->probe.size() == 2);
  CHECK(ok.record->engine->probe[0].path == "/version");
  CHECK(ok.record->engine->probe[0].version == "version");
  CHECK(ok.record->engine->probe[1].expect == std::vector<kb::ConfigEntry>{{"server.kind", "e"}});

  auto bad = load_record_text("engines/e.yaml",
                              "name: E\nprobe:\n  - {path: version, version: version}\n"
                              "  - {version: v}\n  - {path: /x}\n  - {path: /y, verison: v}\n");
  INFO(dump(bad.diagnostics));
  CHECK(has(bad.diagnostics, "schema.type", 3, 12, "relative to the server's root URL"));
  CHECK(has(bad.diagnostics, "schema.missing-field", 4, 5));
  CHECK(has(bad.diagnostics, "schema.missing-field", 5, 5, "add e.g. `version: version`"));
  CHECK(has(bad.diagnostics, "schema.unknown-field", 6, 16, "did you mean 'version'?"));
  CHECK_FALSE(bad.record);
}

TEST_CASE("a result's model, failures and incomplete flag load and are checked",
          "[oracle][schema]") {
  const std::string head =
      "oracle: cold-vs-warm-prefix-cache\ndate: 2026-10-05\n"
      "subject:\n  engines: [{engine: vllm, version: 0.26.0}]\n  model: toy-model\n";
  auto ok = load_record_text(
      "results/r.yaml",
      head +
          "passed: 1\nfailed: 1\nincomplete: true\nfailures:\n"
          "  - {prompt: 3, trial: 1, run: 2, position: 17, compared: tokens, expected: \"a b\","
          " got: \"a c\"}\n");
  INFO(dump(ok.diagnostics));
  REQUIRE(ok.record);
  CHECK(ok.diagnostics.empty());
  CHECK(ok.record->result->subject.model == "toy-model");
  CHECK(ok.record->result->incomplete);
  REQUIRE(ok.record->result->failures.size() == 1);
  const auto& f = ok.record->result->failures[0];
  CHECK(f.prompt == 3);
  CHECK(f.trial == 1);
  CHECK(f.run == 2);
  CHECK(f.position == 17);
  CHECK(f.compared == "tokens");
  CHECK(f.expected == "a b");
  CHECK(f.got == "a c");

  auto bad = load_record_text(
      "results/r.yaml",
      head +
          "passed: 1\nfailed: 1\nincomplete: maybe\nfailures:\n"
          "  - {prompt: 3, compared: bytes, expected: x, got: y}\n  - {prompt: 4, position: 1}\n");
  INFO(dump(bad.diagnostics));
  CHECK(has(bad.diagnostics, "schema.type", 8, 13));
  CHECK(has(bad.diagnostics, "schema.missing-field", 10, 5));
  CHECK(has(bad.diagnostics, "schema.enum", 10, 27, "one of tokens | text"));
  CHECK(has(bad.diagnostics, "schema.inconsistent", 10, 3));
  CHECK_FALSE(bad.record);
}
