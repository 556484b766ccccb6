#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "check/check_predicate.h"
#include "check_fixture.h"
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
    {"settings/kv-transfer.yaml", R"(title: KV transfer between instances
type: enum
values: [pd, none]
)"},
    {"settings/kv-offload.yaml",
     "title: KV offload tier\ntype: enum\nvalues: [none, local, shared]\n"},
    {"settings/prefix-caching.yaml", R"(title: Prefix caching
type: bool
synonyms: [enable_prefix_caching]
)"},
    {"settings/batch-invariant.yaml", R"(title: Batch invariance
type: bool
synonyms: [VLLM_BATCH_INVARIANT]
)"},
    {"settings/connector.yaml", R"(title: KV connector
type: enum
values:
  - {value: lmcache, synonyms: [LMCacheConnectorV1], engines: [lmcache]}
  - {value: nixl, synonyms: [NixlConnector], engines: [nixl]}
)"},
    {"settings/symptom.yaml", R"(title: Symptom words
key: symptom
type: enum
scope: symptom
values:
  - {value: differs, synonyms: [nondeterministic]}
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

// A service with vllm (no version) in slot 0 and `k = on`, as the evaluator sees it.
struct Leaves {
  kb::Service svc;
  kb::DeployedEngine vllm{"vllm", "", {1, 1}, {}, "engines/vllm"};
  kb::Setting k{"k", "on", {2, 1}};
  kb::check::Env env;
  Leaves() {
    env.services.resize(1);
    auto& s = env.services[0];
    s.service = &svc;
    s.by_slot = {{{&vllm, std::nullopt}}};
    s.config.emplace("k", &k);
  }
  Truth eval(const kb::check::Node& n) const { return kb::check::eval(n, env, env.services[0]); }
};

kb::check::Node leaf(Truth t) {
  // config_set [k] is yes; an engine with a range and no version is maybe; role prefill no.
  kb::check::Node n;
  if (t == Truth::maybe) {
    n.op = Op::engine;
    n.engine = 0;
    n.engine_name = "vllm";
    n.range_text = ">=1";
    n.range = std::make_shared<const kb::VersionRange>(*kb::VersionRange::parse(">=1"));
  } else if (t == Truth::yes) {
    n.op = Op::config_set;
    kb::check::Test k;
    k.key = "k";
    n.keys = {k};
  } else {
    n.op = Op::role;
    n.roles = {"prefill"};
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
  Leaves l;
  const Truth values[] = {Truth::no, Truth::maybe, Truth::yes};
  REQUIRE(l.eval(leaf(Truth::no)) == Truth::no);
  REQUIRE(l.eval(leaf(Truth::maybe)) == Truth::maybe);
  REQUIRE(l.eval(leaf(Truth::yes)) == Truth::yes);
  for (Truth a : values) {
    CHECK(l.eval(combine(Op::negate, {leaf(a)})) == static_cast<Truth>(2 - static_cast<int>(a)));
    for (Truth b : values) {
      INFO(static_cast<int>(a) << " " << static_cast<int>(b));
      CHECK(l.eval(combine(Op::all, {leaf(a), leaf(b)})) == std::min(a, b));
      CHECK(l.eval(combine(Op::any, {leaf(a), leaf(b)})) == std::max(a, b));
    }
  }
  CHECK(l.eval(combine(Op::all, {})) == Truth::no);
  CHECK(l.eval(combine(Op::any, {})) == Truth::no);
  CHECK(l.eval(combine(Op::negate, {})) == Truth::no);
}

TEST_CASE("config atoms compare normalised values", "[check]") {
  const std::string id = "gotchas/batch-invariant";
  for (const char* on : {"1", "\"1\"", "true", "True", "yes", "on"}) {
    INFO(on);
    auto r = fixture().clean(std::string("config: {VLLM_BATCH_INVARIANT: ") + on +
                             ", kv_transfer: pd}\n");
    CHECK(ids(r.findings) == std::vector<std::string>{id});
  }
  for (const char* off : {"0", "false", "no", "off"}) {
    INFO(off);
    auto r =
        fixture().clean(std::string("config: {batch_invariant: ") + off + ", kv_transfer: pd}\n");
    CHECK(r.findings.empty());
  }
  // A synonym and the case of an enum value normalise too, and the normalisation is shown.
  auto upper = fixture().clean("config: {VLLM_BATCH_INVARIANT: yes, kv_transfer: PD}\n");
  CHECK(ids(upper.findings) == std::vector<std::string>{id});
  REQUIRE(upper.diagnostics.size() == 2);
  CHECK(upper.diagnostics[0].code == "check.normalized");
  CHECK(upper.diagnostics[0].severity == kb::Severity::note);
  CHECK(upper.diagnostics[0].message ==
        "VLLM_BATCH_INVARIANT: yes is read as batch_invariant: true");
  CHECK(upper.diagnostics[1].message == "kv_transfer: PD is read as kv_transfer: pd");
  CHECK(upper.deployment.services.at(0).find("batch_invariant")->value == "true");
}

TEST_CASE("engine atoms: presence, ranges, several instances", "[check]") {
  kb::Service svc;
  kb::DeployedEngine old{"vLLM", "0.25.1", {1, 1}, {}, "engines/vllm"};
  kb::DeployedEngine cur{"vllm", "0.26.0+cu128", {2, 1}, {}, "engines/vllm"};
  kb::check::Env env;
  env.services.resize(1);
  auto& s = env.services[0];
  s.service = &svc;
  s.by_slot = {{{&old, kb::Version::parse(old.version)}, {&cur, kb::Version::parse(cur.version)}},
               {}};
  kb::check::Node n;
  n.op = Op::engine;
  n.engine = 0;
  n.engine_name = "vllm";
  CHECK(kb::check::eval(n, env, s) == Truth::yes);
  n.range_text = ">=0.26, <0.28";
  n.range = std::make_shared<const kb::VersionRange>(*kb::VersionRange::parse(n.range_text));
  CHECK(kb::check::eval(n, env, s) == Truth::yes);
  std::vector<kb::check::Why> why;
  kb::check::explain(n, env, s, why);
  REQUIRE(why.size() == 1);
  CHECK(why[0].text == "engine vllm 0.26.0+cu128 in >=0.26, <0.28");
  CHECK(why[0].pos.line == 2);
  n.range = std::make_shared<const kb::VersionRange>(*kb::VersionRange::parse("<0.25"));
  CHECK(kb::check::eval(n, env, s) == Truth::no);
  n.engine = 1;
  n.range.reset();
  CHECK(kb::check::eval(n, env, s) == Truth::no);
  n.engine = -1;
  CHECK(kb::check::eval(n, env, s) == Truth::no);
}

TEST_CASE("seed 000 applies to LMCache P/D on vLLM 0.26-0.27 and to prefix caching", "[check]") {
  const std::string id = "gotchas/pd-cache-hit";
  auto r = fixture().check(R"(engines:
  - {engine: vllm, version: 0.26.0}
  - {engine: lmcache, version: 0.3.9}
config: {kv_transfer: pd, connector: lmcache}
)");
  REQUIRE(r.diagnostics.empty());
  REQUIRE(ids(r.findings) == std::vector<std::string>{id, "gotchas/no-nixl"});
  const auto& f = find(r, id);
  CHECK(f.title == "P/D cache hit differs from a cold run");
  CHECK(f.severity == "blocker");
  CHECK(f.status == "open");
  CHECK(f.evidence == "reproduced");
  CHECK_FALSE(f.possible);
  CHECK(f.why == std::vector<std::string>{"engine vllm 0.26.0 in >=0.26, <0.28",
                                          "engine lmcache 0.3.9", "kv_transfer = pd"});
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
        std::vector<std::string>{"engine vllm 0.29.0", "prefix_caching = true"});
  CHECK(prefix.findings[0].pos.line == 1);
}

TEST_CASE("seed 002 needs batch invariance and a shared KV path", "[check]") {
  const std::string id = "gotchas/batch-invariant";
  auto shared = fixture().check(R"({"engines": [{"engine": "vllm", "version": "0.29.0"}],
 "config": {"VLLM_BATCH_INVARIANT": 1, "kv_offload": "shared"}})");
  REQUIRE(ids(shared.findings) == std::vector<std::string>{id});
  CHECK(shared.findings[0].why ==
        std::vector<std::string>{"batch_invariant = true", "kv_offload = shared"});
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
                                          "engine lmcache", "kv_transfer = pd"});
  CHECK_FALSE(find(r, "gotchas/no-nixl").possible);
  CHECK(find(r, "gotchas/no-nixl").why ==
        std::vector<std::string>{"engine vllm", "not (engine nixl)", "kv_transfer = pd"});
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

TEST_CASE("the gate fails closed on unknown engines, settings and values", "[check]") {
  auto r = fixture().check("engines: [{engine: mooncache, version: 0.3.1}, {engine: tgi}]\n");
  CHECK(r.findings.empty());
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].code == "check.unknown-engine");
  CHECK(r.diagnostics[0].severity == kb::Severity::error);
  CHECK(r.diagnostics[0].line == 1);
  CHECK(r.diagnostics[0].message == "engine 'mooncache' is not in the knowledge base");
  CHECK(r.diagnostics[0].hint == "did you mean 'mooncake'?");
  CHECK(r.diagnostics[1].message == "engine 'tgi' is not in the knowledge base");
  CHECK(r.deployment.engines[0].id.empty());

  auto key = fixture().check("engines: [vllm]\nconfig: {kv_transfr: pd, prefix_caching: maybe}\n");
  REQUIRE(key.diagnostics.size() == 2);
  CHECK(key.diagnostics[0].code == "check.unknown-setting");
  CHECK(key.diagnostics[0].severity == kb::Severity::error);
  CHECK(key.diagnostics[0].column == 10);
  CHECK(key.diagnostics[0].hint == "did you mean 'kv_transfer'?");
  CHECK(key.diagnostics[1].code == "check.bad-value");
  CHECK(key.diagnostics[1].message ==
        "prefix_caching: 'maybe' is not a boolean (true/false, yes/no, on/off, 1/0)");

  // The escape hatch downgrades them to warnings; the rest is still checked.
  auto allowed = fixture().check(
      "engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}, {engine: tgi}]\n"
      "config: {kv_transfer: pd, colour: blue}\n",
      {true});
  CHECK(kb::count_severity(allowed.diagnostics, kb::Severity::error) == 0);
  CHECK(kb::count_severity(allowed.diagnostics, kb::Severity::warning) == 2);
  CHECK(ids(allowed.findings) ==
        std::vector<std::string>{"gotchas/pd-cache-hit", "gotchas/no-nixl"});

  auto twice =
      fixture().check("config: {prefix_caching: true, enable_prefix_caching: false}\n", {true});
  REQUIRE(twice.diagnostics.size() == 2);
  CHECK(twice.diagnostics[1].code == "check.conflicting-setting");
  CHECK(twice.diagnostics[1].severity == kb::Severity::error);
}

TEST_CASE("a symptom word is never a deployment's setting", "[check]") {
  auto r = fixture().check("engines: [vllm]\nconfig: {symptom: differs}\n");
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "check.unknown-setting");
  CHECK(r.diagnostics[0].severity == kb::Severity::error);
  CHECK(r.diagnostics[0].message ==
        "'symptom' names the words search takes for a symptom (settings/symptom), not a "
        "setting a deployment has");
  CHECK(r.deployment.config.empty());
}

TEST_CASE("a connector's value brings its engine", "[check]") {
  auto r = fixture().clean(
      "engines: [{engine: vllm, version: 0.26.0}]\nconfig: {kv_transfer: pd, connector: "
      "LMCacheConnectorV1}\n");
  REQUIRE(ids(r.findings) == std::vector<std::string>{"gotchas/pd-cache-hit", "gotchas/no-nixl"});
  const auto& why = r.findings[0].why;
  CHECK(std::find(why.begin(), why.end(), "engine lmcache (connector = lmcache)") != why.end());
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
