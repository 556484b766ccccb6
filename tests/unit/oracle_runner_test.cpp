// The runner kinds against a fake server: which requests go out in which order, and
// which column each fault lands in (passed, failed at token N, error, not run).

#include <catch2/catch.hpp>

#include <mutex>
#include <random>
#include <set>

#include "kb/corpus.h"
#include "kb/oracle.h"

using kb::oracle::Generation;
using kb::oracle::Request;
using kb::oracle::RunnerKind;
using kb::oracle::RunnerSpec;
using kb::oracle::Verdict;

namespace {

// A deterministic model behind a toy prefix cache keyed by salt, nonce and prompt.
struct FakeServer {
  std::string match;          // faults apply to prompts containing this ("" = all)
  int diverge_at = -1;        // always differ from this token on
  int cache_diverge_at = -1;  // differ from this token on when the request is a cache hit
  bool random = false;
  bool fail = false;
  int truncate = -1;
  bool empty = false;
  bool report_cached = false;
  bool ignore_salt = false;
  bool token_ids = true;

  std::mutex mu;
  std::set<std::string> cache;
  std::vector<Request> log;
  std::mt19937_64 rng{42};

  Generation answer(const Request& r) {
    const std::string prompt =
        r.nonce + (r.prompt->is_chat() ? r.prompt->messages.back().content : r.prompt->text);
    bool hit = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      log.push_back(r);
      hit = !cache.insert((ignore_salt ? "" : r.salt) + "|" + prompt).second;
    }
    const bool faulty = prompt.find(match) != std::string::npos;
    Generation g;
    if (faulty && fail) {
      g.error = "HTTP 500: boom";
      return g;
    }
    int n = r.max_tokens;
    if (faulty && truncate >= 0) n = truncate;
    if (faulty && empty) n = 0;
    std::uint64_t h = std::hash<std::string>{}(prompt);
    for (int i = 0; i < n; ++i) {
      std::int64_t t = static_cast<std::int64_t>(1 + h % 50);
      if (faulty && random) {
        std::lock_guard<std::mutex> lock(mu);
        t = static_cast<std::int64_t>(1 + rng() % 50);
      }
      if (faulty && ((diverge_at >= 0 && i >= diverge_at) ||
                     (hit && cache_diverge_at >= 0 && i >= cache_diverge_at))) {
        t += 100;
      }
      g.token_ids.push_back(t);
      g.text += " w" + std::to_string(t);
      h = h * 31 + static_cast<std::uint64_t>(t);
    }
    g.has_token_ids = token_ids && !r.token_ids_field.empty();
    if (!g.has_token_ids) g.token_ids.clear();
    g.finish_reason = n == 0 ? "stop" : "length";
    g.completion_tokens = n;
    if (report_cached) g.cached_tokens = hit ? 10 : 0;
    return g;
  }
};

std::vector<kb::oracle::Prompt> prompts(int n) {
  std::vector<kb::oracle::Prompt> out;
  const char* names[] = {"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"};
  for (int i = 0; i < n; ++i) {
    kb::oracle::Prompt p;
    p.text = "A long shared prefix about ferries. Question " + std::string(names[i]);
    out.push_back(p);
  }
  return out;
}

RunnerSpec cold_vs_warm(kb::oracle::Isolation iso = kb::oracle::Isolation::cache_salt) {
  RunnerSpec s;
  s.kind = RunnerKind::cold_vs_warm;
  s.max_tokens = 8;
  s.warm_runs = 3;
  s.isolation = iso;
  s.salt_field = "cache_salt";
  s.token_ids_field = "return_token_ids";
  return s;
}

RunnerSpec monolithic(kb::oracle::Isolation iso = kb::oracle::Isolation::none) {
  RunnerSpec s;
  s.kind = RunnerKind::monolithic_equivalence;
  s.max_tokens = 8;
  s.isolation = iso;
  s.salt_field = "cache_salt";
  s.token_ids_field = "return_token_ids";
  return s;
}

kb::oracle::RunReport run(const RunnerSpec& spec, FakeServer& subject, FakeServer* baseline,
                          int n = 4, int concurrency = 1) {
  kb::oracle::RunOptions options;
  options.concurrency = concurrency;
  options.seed = 7;
  return kb::oracle::run(
      spec, prompts(n),
      [&]() -> kb::oracle::Sender {
        return [&](const Request& r) {
          return r.target == kb::oracle::Target::baseline ? baseline->answer(r) : subject.answer(r);
        };
      },
      options);
}

void check_tally(const kb::oracle::RunReport& r, int passed, int failed, int errors, int skipped) {
  CHECK(r.tally.passed == passed);
  CHECK(r.tally.failed == failed);
  CHECK(r.tally.errors == errors);
  CHECK(r.tally.skipped == skipped);
}

}  // namespace

TEST_CASE("cold-vs-warm: a cold run first, its control, then identical warm runs",
          "[oracle][runner]") {
  FakeServer server;
  auto report = run(cold_vs_warm(), server, nullptr, 1);
  check_tally(report, 1, 0, 0, 0);
  CHECK_FALSE(report.incomplete);
  REQUIRE(server.log.size() == 5);
  // No warm-up: the very first request is the cold run, with a salt of its own.
  CHECK(server.log[0].role == "cold run");
  CHECK(server.log[0].salt_field == "cache_salt");
  CHECK(server.log[0].salt == "kb-000000000000-0");
  CHECK(server.log[1].role == "second cold run");
  CHECK(server.log[1].salt == "kb-000000000000-1");
  for (int w = 1; w <= 3; ++w) {
    CHECK(server.log[1 + w].role == "warm run " + std::to_string(w));
    CHECK(server.log[1 + w].salt_field == "cache_salt");
    CHECK(server.log[1 + w].salt == server.log[0].salt);
  }
  CHECK(server.log[0].token_ids_field == "return_token_ids");
  CHECK(server.log[0].max_tokens == 8);
}

TEST_CASE("the salt goes in the field the spec names, whatever it is", "[oracle][runner]") {
  FakeServer server;
  RunnerSpec spec = cold_vs_warm();
  spec.salt_field = "kb_salt";
  auto report = run(spec, server, nullptr, 1);
  check_tally(report, 1, 0, 0, 0);
  REQUIRE_FALSE(server.log.empty());
  for (const auto& r : server.log) CHECK(r.salt_field == "kb_salt");
}

TEST_CASE("cold-vs-warm: a divergence after a cache hit fails at its token", "[oracle][runner]") {
  FakeServer server;
  server.match = "bravo";
  server.cache_diverge_at = 5;
  auto report = run(cold_vs_warm(), server, nullptr, 4);
  check_tally(report, 3, 1, 0, 0);
  const auto& o = report.outcomes[1];
  CHECK(o.verdict == Verdict::failed);
  CHECK(o.failure.prompt == 1);
  CHECK(o.failure.trial == 1);
  CHECK(o.failure.run == 1);
  CHECK(o.failure.position == 5);
  CHECK(o.failure.compared == "tokens");
  CHECK(o.message == "warm run 1 diverges from the cold run at token 5");
}

TEST_CASE("cold-vs-warm: a server that ignores temperature is an error, not a divergence",
          "[oracle][runner]") {
  FakeServer salted;
  salted.random = true;
  auto a = run(cold_vs_warm(), salted, nullptr, 2);
  check_tally(a, 0, 0, 2, 0);
  CHECK(a.outcomes[0].message.rfind(
            "nondeterministic at temperature 0: two cold runs differ at token ", 0) == 0);

  // With a nonce there is no second cold run; the warm runs must agree instead.
  FakeServer nonced;
  nonced.random = true;
  auto b = run(cold_vs_warm(kb::oracle::Isolation::nonce), nonced, nullptr, 2);
  check_tally(b, 0, 0, 2, 0);
  CHECK(b.outcomes[0].message.rfind(
            "nondeterministic at temperature 0: warm runs of the identical request differ", 0) ==
        0);
  REQUIRE(nonced.log.size() == 8);
  CHECK(nonced.log[0].nonce == "kb-nonce kb-000000000000-0\n");
  CHECK(nonced.log[0].salt.empty());
  CHECK(nonced.log[1].nonce == nonced.log[0].nonce);
  CHECK(nonced.log[4].nonce == "kb-nonce kb-000000000000-1\n");
}

TEST_CASE("cold-vs-warm: a cold run the cache answered is an error", "[oracle][runner]") {
  FakeServer server;
  server.ignore_salt = true;
  server.report_cached = true;
  auto report = run(cold_vs_warm(), server, nullptr, 1);
  check_tally(report, 0, 0, 1, 0);
  CHECK(report.outcomes[0].message ==
        "second cold run: 10 prompt tokens came from the prefix cache; the isolation "
        "(cache_salt) did not keep the request cold");
}

TEST_CASE("cold-vs-warm: failed, cut short and empty answers are errors", "[oracle][runner]") {
  FakeServer failing;
  failing.match = "charlie";
  failing.fail = true;
  auto a = run(cold_vs_warm(), failing, nullptr, 4);
  check_tally(a, 3, 0, 1, 0);
  CHECK(a.outcomes[2].message == "cold run: HTTP 500: boom");

  FakeServer truncated;
  truncated.match = "alpha";
  truncated.truncate = 3;
  auto b = run(cold_vs_warm(), truncated, nullptr, 4);
  check_tally(b, 3, 0, 1, 0);
  CHECK(b.outcomes[0].message == "cold run: cut short: finish_reason 'length' after 3 of 8 tokens");

  FakeServer empty;
  empty.match = "delta";
  empty.empty = true;
  auto c = run(cold_vs_warm(), empty, nullptr, 4);
  check_tally(c, 3, 0, 1, 0);
  CHECK(c.outcomes[3].message == "cold run: empty answer (finish_reason 'stop')");
}

TEST_CASE("monolithic: identical servers pass, a differing subject fails at its token",
          "[oracle][runner]") {
  FakeServer subject, baseline;
  auto same = run(monolithic(), subject, &baseline, 4);
  check_tally(same, 4, 0, 0, 0);
  // Per prompt: the baseline twice, then the subject once.
  CHECK(baseline.log.size() == 8);
  CHECK(subject.log.size() == 4);

  FakeServer differs, base2;
  differs.match = "delta";
  differs.diverge_at = 3;
  auto report = run(monolithic(), differs, &base2, 4);
  check_tally(report, 3, 1, 0, 0);
  CHECK(report.outcomes[3].failure.prompt == 3);
  CHECK(report.outcomes[3].failure.position == 3);
  CHECK(report.outcomes[3].failure.run == 0);
  CHECK(report.outcomes[3].message == "the subject diverges from the baseline at token 3");

  // Without token ids on one side the text is compared.
  FakeServer no_ids, base3;
  no_ids.match = "delta";
  no_ids.diverge_at = 3;
  no_ids.token_ids = false;
  auto by_text = run(monolithic(), no_ids, &base3, 4);
  check_tally(by_text, 3, 1, 0, 0);
  CHECK(by_text.outcomes[3].failure.compared == "text");
}

TEST_CASE("monolithic: nondeterminism and a cached baseline are errors", "[oracle][runner]") {
  FakeServer subject, random_base;
  random_base.random = true;
  auto a = run(monolithic(), subject, &random_base, 2);
  check_tally(a, 0, 0, 2, 0);
  CHECK(a.outcomes[0].message.rfind(
            "nondeterministic at temperature 0: two identical requests to the baseline differ",
            0) == 0);

  // The subject's own cold pair (fresh salts) catches a subject that ignores temperature.
  FakeServer random_subject, base;
  random_subject.random = true;
  auto b = run(monolithic(kb::oracle::Isolation::cache_salt), random_subject, &base, 2);
  check_tally(b, 0, 0, 2, 0);
  CHECK(b.outcomes[1].message.rfind(
            "nondeterministic at temperature 0: two cold requests to the subject differ", 0) == 0);

  FakeServer sub2, cached_base;
  cached_base.report_cached = true;
  auto c = run(monolithic(), sub2, &cached_base, 1);
  check_tally(c, 0, 0, 1, 0);
  CHECK(c.outcomes[0].message ==
        "baseline, second request: 10 prompt tokens came from the prefix cache; the baseline "
        "must run with prefix caching off");
}

TEST_CASE("trials and concurrency give the same counts", "[oracle][runner]") {
  FakeServer one;
  one.match = "bravo";
  one.cache_diverge_at = 2;
  auto spec = cold_vs_warm();
  spec.trials = 3;
  auto serial = run(spec, one, nullptr, 5, 1);
  FakeServer many;
  many.match = "bravo";
  many.cache_diverge_at = 2;
  auto parallel = run(spec, many, nullptr, 5, 4);
  check_tally(serial, 12, 3, 0, 0);
  check_tally(parallel, 12, 3, 0, 0);
  REQUIRE(parallel.outcomes.size() == 15);
  CHECK(parallel.outcomes[6].prompt == 1);
  CHECK(parallel.outcomes[6].trial == 2);
  CHECK(parallel.outcomes[6].verdict == Verdict::failed);
  CHECK(parallel.outcomes[6].failure.trial == 2);
}

TEST_CASE("a stopped run counts what it did not measure as not run", "[oracle][runner]") {
  FakeServer server;
  std::atomic<bool> stop{false};
  kb::oracle::RunOptions options;
  options.stop = &stop;
  options.seed = 1;
  int calls = 0;
  auto report = kb::oracle::run(
      cold_vs_warm(), prompts(4),
      [&]() -> kb::oracle::Sender {
        return [&](const Request& r) {
          // Ctrl-C arrives during the second prompt's third request.
          if (++calls == 8) stop = true;
          return server.answer(r);
        };
      },
      options);
  check_tally(report, 1, 0, 0, 3);
  CHECK(report.incomplete);
  CHECK(report.outcomes[1].verdict == Verdict::skipped);
  CHECK(report.outcomes[1].message == "not run: stopped");
}

TEST_CASE("the result record of a run lints clean and round-trips through JUnit",
          "[oracle][runner]") {
  FakeServer server;
  server.match = "bravo";
  server.cache_diverge_at = 5;
  auto spec = cold_vs_warm();
  auto report = run(spec, server, nullptr, 4);
  report.outcomes[3].verdict = Verdict::error;
  report.outcomes[3].message = "cold run: HTTP 500: boom";
  report.tally.passed = 2;
  report.tally.errors = 1;

  kb::oracle::ResultContext ctx;
  ctx.oracle = "oracles/cold-vs-warm-prefix-cache";
  ctx.oracle_title = "Cold-vs-warm";
  ctx.date = "2026-10-05";
  ctx.time = "101500";
  kb::RefValue vllm;
  vllm.raw = "vllm";
  vllm.versions = "0.26.0";
  ctx.subject.engines.push_back(vllm);
  ctx.subject.model = "toy-model";
  ctx.evidence_for = {"gotchas/pd-cache-hit-silently-differs-from-cold-run"};
  ctx.prompts_from = "the built-in prompt set";
  ctx.prompt_count = 4;
  auto result = kb::oracle::result_spec(spec, report, ctx);
  CHECK(result.id == "results/cold-vs-warm-prefix-cache-vllm-0-26-0-2026-10-05-101500");
  CHECK(result.title == "Cold-vs-warm on vllm 0.26.0, model toy-model");
  CHECK(result.counts.passed == 2);
  CHECK(result.counts.failed == 1);
  CHECK(result.counts.errors == 1);
  REQUIRE(result.failures.size() == 1);
  CHECK(result.failures[0].position == 5);

  const std::string yaml = kb::result_record_yaml(result);
  CHECK(yaml.find("  model: toy-model\n") != std::string::npos);
  CHECK(yaml.find("failures:\n  - {prompt: 1, trial: 1, run: 1, position: 5, compared: tokens, "
                  "expected: ") != std::string::npos);
  CHECK(yaml.find("- prompt 3: cold run: HTTP 500: boom\n") != std::string::npos);
  CHECK(yaml.find("incomplete") == std::string::npos);
  auto loaded = kb::load_record_text(result.id + ".yaml", yaml);
  REQUIRE(loaded.record);
  CHECK(loaded.diagnostics.empty());
  CHECK(loaded.record->result->failures.size() == 1);
  CHECK(loaded.record->result->subject.model == "toy-model");

  const std::string xml = kb::oracle::junit_report({{&spec, &report, &result}});
  auto parsed = kb::parse_junit(xml, "run.xml");
  REQUIRE(parsed.counts);
  CHECK(parsed.diagnostics.empty());
  CHECK(parsed.counts->passed == 2);
  CHECK(parsed.counts->failed == 1);
  CHECK(parsed.counts->errors == 1);
  CHECK(parsed.counts->skipped == 0);
  CHECK(parsed.counts->failing == std::vector<std::string>{"cold-vs-warm-prefix-cache.prompt 1",
                                                           "cold-vs-warm-prefix-cache.prompt 3"});
}
