// `kb oracle run` against the toy OpenAI-compatible server: every fault lands in the
// right column, the result record lints clean and flips the gotcha's reproduction state.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

#include "cli_support.h"
#include "toy_process.h"

using namespace kb_test;
using nlohmann::json;

namespace {

const std::string kOracleData = std::string(KB_TEST_DATA) + "/oracle/";

fs::path fixture_tree(const fs::path& dir) {
  fs::path out = dir / "records";
  fs::copy(kOracleData + "records", out, fs::copy_options::recursive);
  return out;
}

std::string common(const fs::path& records) {
  return " --prompts '" + kOracleData + "prompts.jsonl' --date 2026-10-05 --records '" +
         records.string() + "'";
}

json show(const fs::path& dir, const fs::path& records, const std::string& id) {
  auto r = kb(
      dir, "show " + id + " --format json --today 2026-10-05 --records '" + records.string() + "'");
  REQUIRE(r.code == 0);
  return json::parse(r.out);
}

json lint(const fs::path& dir, const fs::path& records) {
  auto r = kb(dir, "lint --format json --today 2026-10-05 --records '" + records.string() + "'");
  INFO(r.out);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("identical servers pass the monolithic oracle", "[cli][oracle]") {
  auto dir = scratch("oracle_identical");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--version", "0.26.0"});
  ToyProcess baseline({});
  auto r = kb(dir, "oracle run monolithic-equivalence --subject " + subject.url() + " --baseline " +
                       baseline.url() + common(records));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("id: results/monolithic-equivalence-vllm-0-26-0-2026-10-05-") == 0);
  CHECK(r.out.find("\noracle: oracles/monolithic-equivalence\ndate: 2026-10-05\nsubject:\n"
                   "  engines:\n    - {engine: vllm, version: 0.26.0}\n  model: toy-model\n"
                   "passed: 5\nfailed: 0\nerrors: 0\nskipped: 0\n") != std::string::npos);
  CHECK(r.out.find("failures") == std::string::npos);
  CHECK(r.out.find("Subject: model toy-model; vllm 0.26.0 (GET /version: version).") !=
        std::string::npos);
  CHECK(r.err.find("kb oracle run: monolithic-equivalence: 5/5 done (5 passed, 0 failed, 0 "
                   "errors)\n") != std::string::npos);
}

TEST_CASE("a divergence after a cache hit is written, lints clean and reproduces the gotcha",
          "[cli][oracle]") {
  auto dir = scratch("oracle_diverge");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--fault", "cache-diverge:bravo:4", "--fault", "cache-diverge:echo:0"});
  CHECK(show(dir, records, "gotchas/cache-hit-diverges")["evidence"]["state"] == "no-evidence");

  const fs::path out = records / "results" / "toy-run.yaml";
  auto r = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() +
                       " --evidence-for cache-hit-diverges --config prefix_caching=true --out '" +
                       out.string() + "'" + common(records));
  INFO(r.err);
  CHECK(r.code == 1);
  REQUIRE(fs::exists(out));
  CHECK(r.out == "wrote " + out.generic_string() +
                     ": 3 passed, 2 failed, 0 errors\n"
                     "  gotchas/cache-hit-diverges: no-evidence -> reproduced (reproduced: 2/5 "
                     "failed in 1 run)\n");
  const std::string text = slurp(out);
  CHECK(text.find("id: results/toy-run\n") == 0);
  CHECK(text.find("  config:\n    prefix_caching: true\n") != std::string::npos);
  CHECK(text.find("passed: 3\nfailed: 2\nerrors: 0\nskipped: 0\n"
                  "evidence_for:\n  - gotchas/cache-hit-diverges\n") != std::string::npos);
  CHECK(text.find("failures:\n  - {prompt: 1, trial: 1, run: 1, position: 4, compared: tokens, ") !=
        std::string::npos);
  CHECK(text.find("  - {prompt: 4, trial: 1, run: 1, position: 0, compared: tokens, ") !=
        std::string::npos);

  auto report = lint(dir, records);
  CHECK(report["errors"] == 0);
  CHECK(report["warnings"] == 0);
  auto gotcha = show(dir, records, "gotchas/cache-hit-diverges");
  CHECK(gotcha["evidence"]["state"] == "reproduced");
  CHECK(gotcha["evidence"]["failed"] == 2);
  auto result = show(dir, records, "results/toy-run");
  CHECK(result["subject"]["model"] == "toy-model");
  CHECK(result["incomplete"] == false);
  REQUIRE(result["failures"].size() == 2);
  CHECK(result["failures"][0]["prompt"] == 1);
  CHECK(result["failures"][0]["position"] == 4);
  CHECK(result["failures"][0]["run"] == 1);

  // The same file again would count twice: refused before anything is sent.
  auto again = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() + " --out '" +
                           out.string() + "'" + common(records));
  CHECK(again.code == 2);
  CHECK(again.err == "kb oracle run: --out " + out.string() +
                         " already exists; a result is never overwritten\n");
}

TEST_CASE("failed, slow, cut short and empty answers are errors, never passes", "[cli][oracle]") {
  auto dir = scratch("oracle_errors");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--fault", "http500:alpha", "--fault", "slow:bravo:3000", "--fault",
                      "truncate:charlie:5", "--fault", "empty:delta"});
  auto r = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() + " --timeout 0.5" +
                       common(records) + " --format json");
  INFO(r.err);
  CHECK(r.code == 2);
  auto j = json::parse(r.out);
  CHECK(j["passed"] == 1);
  CHECK(j["failed"] == 0);
  CHECK(j["errors"] == 4);
  CHECK(j["tests"][0]["message"] == "cold run: HTTP 500: toy fault: internal error");
  CHECK(j["tests"][1]["message"] == "cold run: " + subject.url() +
                                        "/v1/completions gave no complete answer within 0.5 s, "
                                        "kb's deadline for a request");
  CHECK(j["tests"][2]["message"] ==
        "cold run: cut short: finish_reason 'length' after 5 of 12 tokens");
  CHECK(j["tests"][3]["message"] == "cold run: empty answer (finish_reason 'stop')");
  CHECK(j["tests"][4]["outcome"] == "passed");
}

TEST_CASE("a server that ignores temperature 0 is an error", "[cli][oracle]") {
  auto dir = scratch("oracle_random");
  auto records = fixture_tree(dir);
  ToyProcess random({"--fault", "random"});
  ToyProcess good({});
  auto cold = kb(dir, "oracle run cold-vs-warm --subject " + random.url() + common(records));
  CHECK(cold.code == 2);
  CHECK(cold.out.find("passed: 0\nfailed: 0\nerrors: 5\n") != std::string::npos);
  CHECK(cold.out.find("- prompt 0: nondeterministic at temperature 0: two cold runs differ at "
                      "token ") != std::string::npos);
  // As the baseline of the monolithic oracle, too.
  auto mono = kb(dir, "oracle run monolithic-equivalence --subject " + good.url() + " --baseline " +
                          random.url() + common(records));
  CHECK(mono.code == 2);
  CHECK(mono.out.find("passed: 0\nfailed: 0\nerrors: 5\n") != std::string::npos);
}

TEST_CASE("a subject that differs from the baseline fails at its token", "[cli][oracle]") {
  auto dir = scratch("oracle_differs");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--fault", "diverge:charlie:7", "--no-token-ids"});
  ToyProcess baseline({});
  auto r = kb(dir, "oracle run monolithic-equivalence --subject " + subject.url() + " --baseline " +
                       baseline.url() + common(records) + " --format json");
  INFO(r.err);
  CHECK(r.code == 1);
  auto j = json::parse(r.out);
  CHECK(j["passed"] == 4);
  CHECK(j["failed"] == 1);
  REQUIRE(j["failures"].size() == 1);
  CHECK(j["failures"][0]["prompt"] == 2);
  // The subject returns no token ids: the text is compared, by character.
  CHECK(j["failures"][0]["compared"] == "text");
  CHECK(j["tests"][2]["outcome"] == "failed");
}

TEST_CASE("bad usage is exit 2 with a hint, before any request", "[cli][oracle]") {
  auto dir = scratch("oracle_usage");
  auto records = fixture_tree(dir);
  ToyProcess s({});
  auto run = [&](const std::string& args) {
    return kb(dir, "oracle run " + args + common(records));
  };

  auto by_hand = run("by-hand --subject " + s.url());
  CHECK(by_hand.code == 2);
  CHECK(by_hand.err ==
        "kb oracle run: oracles/by-hand has no runner: kb cannot run it (add `runner: {kind: "
        "monolithic-equivalence}` to its record, or run it by hand and use `kb results import`)\n");
  auto no_baseline = run("monolithic-equivalence --subject " + s.url());
  CHECK(no_baseline.code == 2);
  CHECK(no_baseline.err.find("pass --baseline URL") != std::string::npos);
  auto typo = run("cold-vs-worm --subject " + s.url());
  CHECK(typo.code == 2);
  CHECK(typo.err.find("no oracle 'cold-vs-worm'") != std::string::npos);
  CHECK(typo.err.find("did you mean 'oracles/cold-vs-warm'?") != std::string::npos);
  auto param = run("cold-vs-warm --param warm_run=2 --subject " + s.url());
  CHECK(param.code == 2);
  CHECK(param.err ==
        "kb oracle run: runner cold-vs-warm has no parameter 'warm_run'; did you "
        "mean 'warm_runs'?\n");
  auto header = run("cold-vs-warm --header nocolon --subject " + s.url());
  CHECK(header.code == 2);
  auto model = run("cold-vs-warm --model other --subject " + s.url());
  CHECK(model.code == 2);
  CHECK(model.err.find("does not serve model 'other' (it serves toy-model)") != std::string::npos);
  auto url = run("cold-vs-warm --subject ftp://x");
  CHECK(url.code == 2);
  auto down = run("cold-vs-warm --model toy-model --subject http://127.0.0.1:1");
  CHECK(down.code == 2);
  CHECK(down.err ==
        "kb oracle run: --subject http://127.0.0.1:1: GET /v1/models: cannot connect\n");
  CHECK(down.out.empty());
  auto gotcha = run("cold-vs-warm --subject " + s.url() + " --evidence-for no-such-gotcha");
  CHECK(gotcha.code == 2);
  CHECK(gotcha.out.empty());
  const fs::path bad = dir / "bad.jsonl";
  spit(bad, "{\"prompt\": \"a\"}\n{\"text\": 1}\n");
  auto prompts = kb(dir, "oracle run cold-vs-warm --subject " + s.url() + " --prompts '" +
                             bad.string() + "' --records '" + records.string() + "'");
  CHECK(prompts.code == 2);
  CHECK(prompts.err.find(bad.string() + ":2:1: error[prompts.bad-shape]") != std::string::npos);
  // A repeatable flag takes one value each time: the oracle after it stays the oracle.
  auto order = run("--engine lmcache cold-vs-warm --subject " + s.url());
  CHECK(order.code == 0);
  CHECK(order.out.find("    - {engine: vllm, version: 0.26.0}\n    - {engine: lmcache}\n") !=
        std::string::npos);
  auto neither =
      kb(dir, "oracle run --subject " + s.url() + " --records '" + records.string() + "'");
  CHECK(neither.code == 2);
}

TEST_CASE("the salt goes in the request field the oracle record names", "[cli][oracle]") {
  auto dir = scratch("oracle_salt_field");
  auto records = fixture_tree(dir);
  // A server that reads its salt from `kb_salt`: the record's vLLM field leaves every
  // request unsalted, so the second cold run of each prompt is answered from the cache.
  ToyProcess subject({"--salt-field", "kb_salt", "--report-cached-tokens"});
  auto vllm_field = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() + common(records) +
                                " --format json");
  INFO(vllm_field.err);
  CHECK(vllm_field.code == 2);
  auto j = json::parse(vllm_field.out);
  CHECK(j["passed"] == 0);
  CHECK(j["errors"] == 5);
  CHECK(j["tests"][0]["message"].get<std::string>().find("second cold run: ") == 0);

  // The record names the server's field: nothing in kb knows it, and the run passes.
  const fs::path oracle = records / "oracles" / "cold-vs-warm.yaml";
  std::string text = slurp(oracle);
  const std::string vllm = "salt_field: cache_salt";
  REQUIRE(text.find(vllm) != std::string::npos);
  text.replace(text.find(vllm), vllm.size(), "salt_field: kb_salt");
  spit(oracle, text);
  CHECK(lint(dir, records)["errors"] == 0);
  auto own_field = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() + common(records) +
                               " --format json");
  INFO(own_field.err);
  CHECK(own_field.code == 0);
  auto k = json::parse(own_field.out);
  CHECK(k["passed"] == 5);
  CHECK(k["errors"] == 0);

  // Without a field to carry it, a salt cannot be sent: refused before any request.
  auto none = kb(dir, "oracle run cold-vs-warm --param salt_field=none --subject " + subject.url() +
                          common(records));
  CHECK(none.code == 2);
  CHECK(none.err ==
        "kb oracle run: isolation cache_salt sends the salt in a request field: name it with "
        "salt_field (vLLM's is cache_salt)\n");
}

TEST_CASE("JUnit and JSON output round-trip through kb results import", "[cli][oracle]") {
  auto dir = scratch("oracle_junit");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--fault", "cache-diverge:bravo:4", "--fault", "http500:delta"});
  const fs::path xml = dir / "run.xml";
  auto r = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() +
                       " --format junit --out '" + xml.string() + "'" + common(records));
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.out.empty());
  const std::string import =
      " --oracle cold-vs-warm --subject vllm@0.26.0 --date 2026-10-05 "
      "--dry-run --format json --records '" +
      records.string() + "'";
  auto junit = kb(dir, "results import '" + xml.string() + "'" + import);
  INFO(junit.err);
  REQUIRE(junit.code == 0);
  const std::string record = json::parse(junit.out)["record"];
  CHECK(record.find("passed: 3\nfailed: 1\nerrors: 1\nskipped: 0\n") != std::string::npos);

  const fs::path js = dir / "run.json";
  auto j = kb(dir, "oracle run cold-vs-warm --subject " + subject.url() + " --format json --out '" +
                       js.string() + "'" + common(records));
  CHECK(j.code == 1);
  auto imported = kb(dir, "results import '" + js.string() + "'" + import);
  INFO(imported.err);
  REQUIRE(imported.code == 0);
  CHECK(json::parse(imported.out)["record"].get<std::string>().find(
            "passed: 3\nfailed: 1\nerrors: 1\nskipped: 0\n") != std::string::npos);
}

TEST_CASE("oracle run --for runs every oracle a gotcha names, one result each", "[cli][oracle]") {
  auto dir = scratch("oracle_for");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--fault", "cache-diverge:alpha:1", "--sglang", "--version", "0.5.2"});
  ToyProcess baseline({});
  const fs::path out = records / "results";
  auto r =
      kb(dir, "oracle run --for cache-hit-diverges --subject " + subject.url() + " --baseline " +
                  baseline.url() + " --out '" + out.string() + "'" + common(records));
  INFO(r.err);
  CHECK(r.code == 1);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(out)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 2);
  CHECK(files[0].filename().string().rfind("cold-vs-warm-sglang-0-5-2-2026-10-05-", 0) == 0);
  CHECK(files[1].filename().string().rfind("monolithic-equivalence-sglang-0-5-2-2026-10-05-", 0) ==
        0);
  for (const auto& f : files) {
    CHECK(slurp(f).find("evidence_for:\n  - gotchas/cache-hit-diverges\n") != std::string::npos);
  }
  CHECK(slurp(files[0]).find("passed: 4\nfailed: 1\n") != std::string::npos);
  CHECK(slurp(files[1]).find("passed: 5\nfailed: 0\n") != std::string::npos);
  CHECK(r.out.find("  gotchas/cache-hit-diverges: no-evidence -> reproduced (reproduced: 1/10 "
                   "failed in 2 runs (cold-vs-warm 1/5, monolithic-equivalence 0/5))\n") !=
        std::string::npos);
  CHECK(r.out.find("gotchas/cache-hit-diverges:") == r.out.rfind("gotchas/cache-hit-diverges:"));
  CHECK(lint(dir, records)["errors"] == 0);
  auto ev = show(dir, records, "gotchas/cache-hit-diverges")["evidence"];
  CHECK(ev["state"] == "reproduced");
  CHECK(ev["runs"] == 2);

  // A gotcha whose oracle has no runner is refused as a whole.
  auto by_hand =
      kb(dir, "oracle run --for judged-by-hand --subject " + subject.url() + common(records));
  CHECK(by_hand.code == 2);
  CHECK(by_hand.err.find("oracles/by-hand has no runner") != std::string::npos);
}

TEST_CASE("Ctrl-C writes what was measured, marked incomplete, and exits 130", "[cli][oracle]") {
  auto dir = scratch("oracle_sigint");
  auto records = fixture_tree(dir);
  ToyProcess subject({"--fault", "slow::300"});
  const pid_t pid = kb_background(
      dir.string(), "oracle run cold-vs-warm --subject " + subject.url() + common(records));
  // Wait for the first comparison to finish, then interrupt.
  bool started = false;
  for (int i = 0; i < 600 && !started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    started = slurp(dir / "stderr").find("1/5 done") != std::string::npos;
  }
  REQUIRE(started);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  const std::string out = slurp(dir / "stdout");
  INFO(out << slurp(dir / "stderr"));
  CHECK(out.find("passed: 1\nfailed: 0\nerrors: 0\nskipped: 4\n") != std::string::npos);
  CHECK(out.find("\nincomplete: true\n") != std::string::npos);
  CHECK(out.find("Interrupted: 4 comparisons of 5 not run (counted as skipped).") !=
        std::string::npos);
  // What was written is a valid record.
  spit(records / "results" / "interrupted.yaml",
       "id: results/interrupted\n" + out.substr(out.find('\n') + 1));
  CHECK(lint(dir, records)["errors"] == 0);
}
