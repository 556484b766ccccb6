#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "check_fixture.h"
#include "check_predicate.h"
#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/evidence.h"

namespace {

using kb::check::Truth;
using Op = kb::Predicate::Op;

const std::vector<std::pair<std::string, std::string>> kRecords = {
    {"engines/vllm.yaml", "name: vLLM\nrepo: vllm-project/vllm\n"},
    {"engines/lmcache.yaml", "name: LMCache\nrepo: LMCache/LMCache\n"},
    {"engines/nixl.yaml", "name: NIXL\nrepo: ai-dynamo/nixl\n"},
    {"engines/mooncake.yaml", "name: Mooncake\nrepo: kvcache-ai/Mooncake\n"},
    {"gotchas/pd-cache-hit.yaml", R"(title: P/D cache hit differs from a cold run
severity: blocker
status: open
symptom: wrong text
affects: [vllm, lmcache]
applies_when:
  any:
    - all:
        - {engine: vllm, versions: ">=0.26, <0.28"}
        - {engine: lmcache}
        - {config: {kv_transfer: pd}}
    - all:
        - {engine: vllm}
        - {config: {prefix_caching: true}}
)"},
    {"gotchas/batch-invariant.yaml", R"(title: Batch-invariant mode is not in the KV namespace
severity: major
status: open
symptom: none yet
affects: [vllm]
applies_when:
  all:
    - {config: {VLLM_BATCH_INVARIANT: "1"}}
    - any: [{config: {kv_transfer: pd}}, {config: {kv_offload: shared}}]
)"},
    {"gotchas/mooncake-old.yaml", R"(title: Old Mooncake
severity: minor
status: mitigated
symptom: slow
affects:
  - {engine: mooncake, versions: ">=0.3.0, <0.4"}
  - nixl
)"},
    {"gotchas/no-nixl.yaml", R"(title: Without NIXL
severity: info
status: open
symptom: info
applies_when:
  all:
    - {engine: vllm}
    - not: {engine: nixl}
    - {config_set: [kv_transfer]}
)"},
    {"gotchas/gone.yaml", R"(title: Withdrawn
severity: blocker
status: withdrawn
symptom: never mind
affects: [vllm]
)"},
    {"oracles/mono.yaml", "title: Monolithic equivalence\nmethod: compare\npass_criterion: same\n"},
    {"results/run-a.yaml", R"(title: Run A
oracle: mono
date: 2026-09-30
subject: {engines: [{engine: vllm, version: 0.26.0}]}
passed: 0
failed: 3
evidence_for: [gotchas/pd-cache-hit]
)"},
};

const kb::test::CheckFixture& fixture() {
  static const kb::test::CheckFixture f(kRecords);
  return f;
}

std::vector<std::string> ids(const std::vector<kb::Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.id);
  return out;
}

const kb::Finding& find(const kb::CheckReport& r, const std::string& id) {
  for (const auto& f : r.findings) {
    if (f.id == id) return f;
  }
  FAIL("no finding " << id);
  return r.findings.front();
}

kb::check::Node leaf(Truth t) {
  // config {k: v} is yes when set to v; an engine with a range and no version is maybe.
  kb::check::Node n;
  if (t == Truth::maybe) {
    n.op = Op::engine;
    n.engine = 0;
    n.engine_name = "vllm";
    n.range_text = ">=1";
    n.range = kb::VersionRange::parse(">=1");
  } else {
    n.op = Op::config;
    n.config = {{"k", t == Truth::yes ? "on" : "off"}};
  }
  return n;
}

kb::check::Node combine(Op op, std::vector<kb::check::Node> children) {
  kb::check::Node n;
  n.op = op;
  n.children = std::move(children);
  return n;
}

}  // namespace

TEST_CASE("predicate truth tables are three-valued (Kleene)", "[check]") {
  kb::DeployedEngine vllm{"vllm", "", {1, 1}, {}, "engines/vllm"};
  kb::Setting k{"k", "on", {2, 1}};
  kb::check::Env env;
  env.by_slot = {{{&vllm, std::nullopt}}};
  env.config.emplace("k", std::make_pair(&k, std::string("on")));
  const Truth values[] = {Truth::no, Truth::maybe, Truth::yes};
  REQUIRE(kb::check::eval(leaf(Truth::no), env) == Truth::no);
  REQUIRE(kb::check::eval(leaf(Truth::maybe), env) == Truth::maybe);
  REQUIRE(kb::check::eval(leaf(Truth::yes), env) == Truth::yes);
  for (Truth a : values) {
    CHECK(kb::check::eval(combine(Op::negate, {leaf(a)}), env) ==
          static_cast<Truth>(2 - static_cast<int>(a)));
    for (Truth b : values) {
      INFO(static_cast<int>(a) << " " << static_cast<int>(b));
      CHECK(kb::check::eval(combine(Op::all, {leaf(a), leaf(b)}), env) == std::min(a, b));
      CHECK(kb::check::eval(combine(Op::any, {leaf(a), leaf(b)}), env) == std::max(a, b));
    }
  }
  CHECK(kb::check::eval(combine(Op::all, {}), env) == Truth::no);
  CHECK(kb::check::eval(combine(Op::any, {}), env) == Truth::no);
  CHECK(kb::check::eval(combine(Op::negate, {}), env) == Truth::no);
}

TEST_CASE("config and config_set atoms", "[check]") {
  kb::Setting pd{"kv_transfer", "pd", {1, 1}};
  kb::Setting flag{"VLLM_BATCH_INVARIANT", "1", {2, 1}};
  kb::Setting yes{"prefix_caching", "True", {3, 1}};
  kb::check::Env env;
  for (const kb::Setting* s : {&pd, &flag, &yes}) {
    env.config.emplace(s->key, std::make_pair(s, kb::check::canonical_value(s->value)));
  }
  auto config = [&](std::vector<std::pair<std::string, std::string>> kv) {
    kb::check::Node n;
    n.op = Op::config;
    for (auto& [k, v] : kv) n.config.emplace_back(k, kb::check::canonical_value(v));
    return kb::check::eval(n, env);
  };
  auto set = [&](std::vector<std::string> keys) {
    kb::check::Node n;
    n.op = Op::config_set;
    n.keys = std::move(keys);
    return kb::check::eval(n, env);
  };
  CHECK(config({{"kv_transfer", "pd"}}) == Truth::yes);
  CHECK(config({{"kv_transfer", "pd"}, {"VLLM_BATCH_INVARIANT", "1"}}) == Truth::yes);
  CHECK(config({{"kv_transfer", "pd"}, {"VLLM_BATCH_INVARIANT", "0"}}) == Truth::no);
  CHECK(config({{"kv_transfer", "PD"}}) == Truth::no);
  CHECK(config({{"prefix_caching", "true"}}) == Truth::yes);
  CHECK(config({{"VLLM_BATCH_INVARIANT", "1.0"}}) == Truth::no);
  CHECK(config({{"missing", "x"}}) == Truth::no);
  CHECK(set({"kv_transfer"}) == Truth::yes);
  CHECK(set({"kv_transfer", "prefix_caching"}) == Truth::yes);
  CHECK(set({"kv_transfer", "missing"}) == Truth::no);
}

TEST_CASE("engine atoms: presence, ranges, several instances", "[check]") {
  kb::DeployedEngine old{"vLLM", "0.25.1", {1, 1}, {}, "engines/vllm"};
  kb::DeployedEngine cur{"vllm", "0.26.0+cu128", {2, 1}, {}, "engines/vllm"};
  kb::check::Env env;
  env.by_slot = {{{&old, kb::Version::parse(old.version)}, {&cur, kb::Version::parse(cur.version)}},
                 {}};
  kb::check::Node n;
  n.op = Op::engine;
  n.engine = 0;
  n.engine_name = "vllm";
  CHECK(kb::check::eval(n, env) == Truth::yes);
  n.range_text = ">=0.26, <0.28";
  n.range = kb::VersionRange::parse(n.range_text);
  CHECK(kb::check::eval(n, env) == Truth::yes);
  std::vector<std::string> why;
  kb::Pos pos;
  kb::check::explain(n, env, why, pos);
  CHECK(why == std::vector<std::string>{"engine vllm 0.26.0+cu128 in >=0.26, <0.28"});
  CHECK(pos.line == 2);
  n.range = kb::VersionRange::parse("<0.25");
  CHECK(kb::check::eval(n, env) == Truth::no);
  n.engine = 1;
  n.range.reset();
  CHECK(kb::check::eval(n, env) == Truth::no);
  n.engine = -1;
  CHECK(kb::check::eval(n, env) == Truth::no);
}

TEST_CASE("seed 000 applies to LMCache P/D on vLLM 0.26-0.27 and to prefix caching", "[check]") {
  const std::string id = "gotchas/pd-cache-hit";
  auto r = fixture().check(R"(engines:
  - {engine: vllm, version: 0.26.0}
  - {engine: lmcache, version: 0.3.9}
config: {kv_transfer: pd, connector: lmcache}
)");
  REQUIRE(ids(r.findings) == std::vector<std::string>{id, "gotchas/no-nixl"});
  const auto& f = find(r, id);
  CHECK(f.title == "P/D cache hit differs from a cold run");
  CHECK(f.severity == "blocker");
  CHECK(f.status == "open");
  CHECK(f.evidence == "reproduced");
  CHECK_FALSE(f.possible);
  CHECK(f.why == std::vector<std::string>{"engine vllm 0.26.0 in >=0.26, <0.28",
                                          "engine lmcache 0.3.9", "config kv_transfer = pd"});
  CHECK(f.pos.line == 2);
  CHECK(r.deployment.engines[0].id == "engines/vllm");

  auto rc = fixture().check(
      "engines: [{engine: vLLM, version: 0.27.1rc2}, {engine: LMCache}]\n"
      "config: {kv_transfer: pd}\n");
  CHECK(find(rc, id).why.front() == "engine vllm 0.27.1rc2 in >=0.26, <0.28");

  auto nixl = fixture().check(
      "engines: [{engine: vllm, version: 0.26.0}, {engine: nixl}]\nconfig: {kv_transfer: pd}\n");
  CHECK(ids(nixl.findings) == std::vector<std::string>{"gotchas/mooncake-old"});

  auto newer = fixture().check(
      "engines: [{engine: vllm, version: 0.28.0rc1}, {engine: lmcache}]\n"
      "config: {kv_transfer: pd}\n");
  CHECK(ids(newer.findings) == std::vector<std::string>{"gotchas/no-nixl"});

  auto prefix = fixture().check(
      "engines: [{engine: vllm, version: 0.29.0}]\nconfig: {prefix_caching: True}\n");
  REQUIRE(ids(prefix.findings) == std::vector<std::string>{id});
  CHECK(prefix.findings[0].why ==
        std::vector<std::string>{"engine vllm 0.29.0", "config prefix_caching = True"});
  CHECK(prefix.findings[0].pos.line == 1);
}

TEST_CASE("seed 002 needs batch invariance and a shared KV path", "[check]") {
  const std::string id = "gotchas/batch-invariant";
  auto shared = fixture().check(R"({"engines": [{"engine": "vllm", "version": "0.29.0"}],
 "config": {"VLLM_BATCH_INVARIANT": 1, "kv_offload": "shared"}})");
  REQUIRE(ids(shared.findings) == std::vector<std::string>{id});
  CHECK(shared.findings[0].why ==
        std::vector<std::string>{"config VLLM_BATCH_INVARIANT = 1", "config kv_offload = shared"});
  CHECK(shared.findings[0].evidence == "no-evidence");
  CHECK(shared.findings[0].pos.line == 2);

  auto quoted = fixture().check("config: {VLLM_BATCH_INVARIANT: \"1\", kv_transfer: pd}\n");
  CHECK(ids(quoted.findings) == std::vector<std::string>{id});
  auto off = fixture().check("config: {VLLM_BATCH_INVARIANT: 0, kv_transfer: pd}\n");
  CHECK(off.findings.empty());
  auto local = fixture().check("config: {VLLM_BATCH_INVARIANT: 1, kv_offload: local}\n");
  CHECK(local.findings.empty());
}

TEST_CASE("implicit applicability: any affected engine within its range", "[check]") {
  auto in = fixture().check("engines: [{engine: kvcache-ai/Mooncake, version: 0.3.5}]\n");
  REQUIRE(ids(in.findings) == std::vector<std::string>{"gotchas/mooncake-old"});
  CHECK(in.findings[0].why == std::vector<std::string>{"engine mooncake 0.3.5 in >=0.3.0, <0.4"});
  CHECK(in.findings[0].status == "mitigated");
  auto out = fixture().check("engines: [{engine: mooncake, version: 0.4.0}]\n");
  CHECK(out.findings.empty());
  auto url = fixture().check("engines: [{engine: 'https://github.com/ai-dynamo/nixl'}]\n");
  CHECK(ids(url.findings) == std::vector<std::string>{"gotchas/mooncake-old"});
}

TEST_CASE("an engine without a version may be in range: reported as possible", "[check]") {
  auto r = fixture().check("engines: [{engine: vllm}, lmcache]\nconfig: {kv_transfer: pd}\n");
  const auto& f = find(r, "gotchas/pd-cache-hit");
  CHECK(f.possible);
  CHECK(f.why == std::vector<std::string>{"engine vllm (version not given) may be in >=0.26, <0.28",
                                          "engine lmcache", "config kv_transfer = pd"});
  CHECK_FALSE(find(r, "gotchas/no-nixl").possible);
  CHECK(find(r, "gotchas/no-nixl").why ==
        std::vector<std::string>{"engine vllm", "not (engine nixl)", "config kv_transfer is set"});
}

TEST_CASE("findings are sorted by severity then id, and withdrawn gotchas never apply", "[check]") {
  auto r = fixture().check(R"(engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}]
config: {kv_transfer: pd, VLLM_BATCH_INVARIANT: 1}
)");
  CHECK(ids(r.findings) == std::vector<std::string>{"gotchas/pd-cache-hit",
                                                    "gotchas/batch-invariant", "gotchas/no-nixl"});
  CHECK(fixture().index.size() == 4);
  CHECK(kb::fails(r, kb::GotchaSeverity::blocker));
  auto minor = fixture().check("engines: [{engine: mooncake, version: 0.3.1}]\n");
  CHECK_FALSE(kb::fails(minor, kb::GotchaSeverity::blocker));
  CHECK_FALSE(kb::fails(minor, kb::GotchaSeverity::major));
  CHECK(kb::fails(minor, kb::GotchaSeverity::minor));
  CHECK(kb::fails(minor, kb::GotchaSeverity::info));
}

TEST_CASE("unknown engines are reported with the closest name", "[check]") {
  auto r = fixture().check("engines: [{engine: mooncache, version: 0.3.1}, {engine: tgi}]\n");
  CHECK(r.findings.empty());
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].code == "check.unknown-engine");
  CHECK(r.diagnostics[0].severity == kb::Severity::warning);
  CHECK(r.diagnostics[0].line == 1);
  CHECK(r.diagnostics[0].message == "engine 'mooncache' is not in the knowledge base");
  CHECK(r.diagnostics[0].hint == "did you mean 'mooncake'?");
  CHECK(r.diagnostics[1].message == "engine 'tgi' is not in the knowledge base");
  CHECK(r.deployment.engines[0].id.empty());
}

TEST_CASE("ignore files move findings aside and warn about stale entries", "[check]") {
  auto r = fixture().check(R"(engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}]
config: {kv_transfer: pd}
)");
  std::vector<kb::Diagnostic> diags;
  auto ignores = kb::parse_ignore_file(R"(ignore:
  - {id: pd-cache-hit, reason: "we pin connector v2", expires: 2027-01-01}
  - {id: gotchas/no-nixl, reason: "accepted", expires: 2026-01-01}
  - {id: gotchas/batch-invariant, reason: "not used"}
  - {id: gotchas/nope, reason: "typo"}
)",
                                       "ignore.yaml", diags);
  REQUIRE(diags.empty());
  fixture().index.apply_ignores(r, ignores, "2026-10-05");
  CHECK(ids(r.findings) == std::vector<std::string>{"gotchas/no-nixl"});
  REQUIRE(ids(r.ignored) == std::vector<std::string>{"gotchas/pd-cache-hit"});
  CHECK(r.ignored[0].ignore_reason == "we pin connector v2");
  CHECK(r.ignored[0].ignore_expires == "2027-01-01");
  CHECK_FALSE(kb::fails(r, kb::GotchaSeverity::blocker));
  REQUIRE(r.diagnostics.size() == 3);
  CHECK(r.diagnostics[0].code == "check.ignore-expired");
  CHECK(r.diagnostics[0].file == "ignore.yaml");
  CHECK(r.diagnostics[0].line == 3);
  CHECK(r.diagnostics[1].code == "check.ignore-unused");
  CHECK(r.diagnostics[1].line == 4);
  CHECK(r.diagnostics[1].message ==
        "the ignore of 'gotchas/batch-invariant' matched no finding of this deployment");
  CHECK(r.diagnostics[2].code == "check.ignore-unused");
  CHECK(r.diagnostics[2].message == "the ignore of 'gotchas/nope' names no gotcha");

  auto again = fixture().check(
      "engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}]\n"
      "config: {kv_transfer: pd}\n");
  fixture().index.apply_ignores(again, ignores, "2027-01-01");
  CHECK(again.ignored.empty());
  CHECK(again.diagnostics[0].code == "check.ignore-expired");
  CHECK(again.diagnostics[0].line == 2);
}

TEST_CASE("severity names", "[check]") {
  CHECK(kb::to_string(kb::GotchaSeverity::major) == "major");
  CHECK(kb::parse_gotcha_severity("minor") == kb::GotchaSeverity::minor);
  CHECK_FALSE(kb::parse_gotcha_severity("critical"));
}
