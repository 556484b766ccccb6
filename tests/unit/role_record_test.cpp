// The roles a service may have are the values of the `role` settings record, not a list in
// the code: lint checks predicates and entry points against the record, kb check reads
// deployments by it, and a role the record adds works without a change to kb. Code keeps
// the few roles it has mechanisms for (kb/model.h's service_role), which the record must
// declare (setting.missing-role).

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "check_fixture.h"
#include "kb/corpus.h"
#include "kb/diagnostic.h"

namespace {

using Files = std::vector<std::pair<std::string, std::string>>;

// The roles of records/settings/role.yaml and one it does not have: `encode`, the
// encoder of an E/P/D (encode-prefill-decode) deployment.
const char* kRoleWithEncode = R"(title: Role of a service
key: role
type: enum
values:
  - {value: prefill, synonyms: [kv_producer]}
  - {value: decode, synonyms: [kv_consumer]}
  - {value: both, synonyms: [kv_both]}
  - {value: router, synonyms: [proxy]}
  - {value: encode, synonyms: [encoder, vision_encoder]}
)";

std::string gotcha(const std::string& applies_when) {
  return "title: t\nseverity: major\nstatus: open\nsymptom: s\naffects: [e]\napplies_when: " +
         applies_when + "\n";
}

std::vector<kb::Diagnostic> lint(const Files& records) {
  std::vector<kb::FileResult> files;
  for (const auto& [file, yaml] : records) files.push_back(kb::load_record_text(file, yaml));
  return kb::Corpus::from_files("records", std::move(files))->diagnostics();
}

std::string dump(const std::vector<kb::Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) s += kb::format_diagnostic(d) + "\n";
  return s;
}

// The diagnostic of `code` in `file`, or nullptr.
const kb::Diagnostic* find(const std::vector<kb::Diagnostic>& diags, const std::string& file,
                           const std::string& code) {
  for (const auto& d : diags) {
    if (d.file == file && d.code == code) return &d;
  }
  return nullptr;
}

std::vector<std::string> ids(const kb::CheckReport& r) {
  std::vector<std::string> out;
  for (const auto& f : r.findings) out.push_back(f.id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a role added only in the role record works in lint and in check", "[roles]") {
  // The fixture fails on any lint error: predicates and an entry point naming `encode`
  // lint clean because the record declares it.
  const kb::test::CheckFixture f(Files{
      {"engines/e.yaml",
       "name: E\nentrypoints: [{command: \"e encode\", role: encode}, {command: \"e serve\"}]\n"},
      {"settings/role.yaml", kRoleWithEncode},
      {"settings/k.yaml", "title: k\ntype: string\n"},
      {"gotchas/encoder.yaml", gotcha("{role: encode}")},
      {"gotchas/encoder-k.yaml", gotcha("{compare: [encode.k, \"!=\", k]}")},
      {"gotchas/decoder.yaml", gotcha("{role: [decode]}")},
  });

  // A deployment giving a service that role (by its synonym, too) is checked by it.
  const kb::CheckReport r = f.clean(R"(services:
  - {name: enc, role: encoder, engines: [e], config: {k: a}}
  - {name: dec, role: decode, engines: [e], config: {k: b}}
)");
  REQUIRE(r.deployment.services.size() == 2);
  CHECK(r.deployment.services[0].role == "encode");
  CHECK(ids(r) == std::vector<std::string>{"gotchas/decoder", "gotchas/encoder",
                                           "gotchas/encoder-k"});

  // A role the record does not declare is refused, naming the record's roles.
  const kb::CheckReport bad = f.check("services:\n  - {name: x, role: audio, engines: [e]}\n");
  bool refused = false;
  for (const auto& d : bad.diagnostics) {
    if (d.code == "check.bad-value" && d.severity == kb::Severity::error &&
        d.message.find("'audio' is not one of prefill, decode, both, router, encode") !=
            std::string::npos)
      refused = true;
  }
  CHECK(refused);
}

TEST_CASE("lint checks roles against the role record, with did-you-mean", "[roles]") {
  const auto diags = lint(Files{
      {"engines/e.yaml", "name: E\nentrypoints: [{command: \"e route\", role: routr}]\n"},
      {"settings/role.yaml", kRoleWithEncode},
      {"settings/k.yaml", "title: k\ntype: string\n"},
      {"gotchas/typo.yaml", gotcha("{role: [prefill, decod]}")},
      {"gotchas/synonym.yaml", gotcha("{role: kv_consumer}")},
      {"gotchas/prefix.yaml", gotcha("{compare: [encoder.k, \"==\", {value: x}]}")},
  });
  INFO(dump(diags));
  const kb::Diagnostic* typo = find(diags, "gotchas/typo.yaml", "predicate.bad-value");
  REQUIRE(typo != nullptr);
  CHECK(typo->line == 6);
  CHECK(typo->column == 32);
  CHECK(typo->message == "applies_when: unknown role 'decod'");
  CHECK(typo->hint.find("did you mean 'decode'?") == 0);
  CHECK(typo->hint.find("prefill, decode, both, router, encode") != std::string::npos);
  // Predicates compare roles as the record writes them: a synonym is named as such.
  const kb::Diagnostic* synonym = find(diags, "gotchas/synonym.yaml", "predicate.bad-value");
  REQUIRE(synonym != nullptr);
  CHECK(synonym->message == "applies_when: 'kv_consumer' is a synonym of role 'decode'");
  const kb::Diagnostic* prefix = find(diags, "gotchas/prefix.yaml", "predicate.bad-value");
  REQUIRE(prefix != nullptr);
  CHECK(prefix->message == "compare: encoder.k: 'encoder' is a synonym of role 'encode'");
  const kb::Diagnostic* entry = find(diags, "engines/e.yaml", "setting.bad-value");
  REQUIRE(entry != nullptr);
  CHECK(entry->message == "entrypoints[0].role: unknown role 'routr'");
  CHECK(entry->line == 2);
  CHECK(entry->column == 42);
}

TEST_CASE("roles need the role record, and it needs the roles code compares against",
          "[roles]") {
  // Nothing names a role: no role record is needed.
  CHECK(lint(Files{{"engines/e.yaml", "name: E\n"}, {"gotchas/g.yaml", gotcha("{engine: e}")}})
            .empty());

  // A role is named, but no record says which roles there are.
  const auto none = lint(Files{{"engines/e.yaml", "name: E\n"},
                               {"gotchas/g.yaml", gotcha("{role: decode}")}});
  INFO(dump(none));
  const kb::Diagnostic* missing = find(none, "gotchas/g.yaml", "setting.missing-role");
  REQUIRE(missing != nullptr);
  CHECK(missing->severity == kb::Severity::error);
  CHECK(missing->line == 6);
  CHECK(missing->column == 22);

  // The record lacks `both` (here only a synonym): an error on the record, naming it.
  const auto folded =
      lint(Files{{"settings/role.yaml",
                  "title: r\ntype: enum\nvalues:\n  - prefill\n  - decode\n"
                  "  - {value: monolithic, synonyms: [both]}\n"}});
  INFO(dump(folded));
  const kb::Diagnostic* lacks = find(folded, "settings/role.yaml", "setting.missing-role");
  REQUIRE(lacks != nullptr);
  CHECK(lacks->line == 3);
  CHECK(lacks->column == 1);
  CHECK(lacks->message == "values: no role 'both', which kb check has mechanisms for");
  CHECK(std::count_if(folded.begin(), folded.end(), [](const kb::Diagnostic& d) {
          return d.code == "setting.missing-role";
        }) == 1);
}

TEST_CASE("lint checks the roles a platform's pods and a chart's services take", "[roles]") {
  const auto diags = lint(Files{
      {"settings/role.yaml", kRoleWithEncode},
      {"engines/e.yaml",
       "name: E\nresources:\n  - kind: Pool\n    pods:\n      - {path: spec.p, role: prefil}\n"
       "      - {path: spec, role: encode}\ncharts:\n  - {values: a.b, role: routr}\n"}});
  INFO(dump(diags));
  const kb::Diagnostic* pods = nullptr;
  const kb::Diagnostic* chart = nullptr;
  for (const auto& d : diags) {
    if (d.code != "setting.bad-value") continue;
    if (d.message.starts_with("resources[0].pods[0].role")) pods = &d;
    if (d.message.starts_with("charts[0].role")) chart = &d;
  }
  REQUIRE(pods);
  CHECK(pods->line == 5);
  CHECK(pods->hint.find("did you mean 'prefill'?") != std::string::npos);
  REQUIRE(chart);
  CHECK(chart->line == 8);
  // A role the record declares is accepted wherever it stands.
  CHECK(std::none_of(diags.begin(), diags.end(), [](const kb::Diagnostic& d) {
    return d.message.starts_with("resources[0].pods[1]");
  }));
}

TEST_CASE("lint checks a role's routed_by keys and that servers have a port to be named by",
          "[roles]") {
  const std::string role =
      std::string(kRoleWithEncode) + "  - {value: zz, routed_by: [zz_servers]}\n";
  const std::string servers = "title: s\nkey: zz_servers\ntype: string\n";
  // No setting of the key: an error on the value.
  auto diags = lint({{"settings/role.yaml", role}});
  const kb::Diagnostic* missing = find(diags, "settings/role.yaml", "setting.bad-value");
  REQUIRE(missing);
  CHECK(missing->message.find("no setting has the key 'zz_servers'") != std::string::npos);
  CHECK(missing->line == 10);
  // The key, but no `port` setting: nothing could match what the router names.
  diags = lint({{"settings/role.yaml", role}, {"settings/zz-servers.yaml", servers}});
  const kb::Diagnostic* no_port = find(diags, "settings/role.yaml", "setting.bad-value");
  REQUIRE(no_port);
  CHECK(no_port->message.find("no setting has the key 'port'") != std::string::npos);
  // Both: clean.
  diags = lint({{"settings/role.yaml", role},
                {"settings/zz-servers.yaml", servers},
                {"settings/port.yaml", "title: p\nkey: port\ntype: integer\n"}});
  INFO(dump(diags));
  CHECK_FALSE(find(diags, "settings/role.yaml", "setting.bad-value"));
}

TEST_CASE("lint checks the roles a setting's default holds for", "[roles]") {
  const auto diags = lint(Files{
      {"settings/role.yaml", kRoleWithEncode},
      {"settings/zz.yaml",
       "title: z\nkey: zz\ntype: enum\nvalues: [a, b]\nengines:\n  - engine: e\n"
       "    defaults:\n      - {value: a, roles: [prefil, decode]}\n"},
      {"engines/e.yaml", "name: E\n"}});
  INFO(dump(diags));
  const kb::Diagnostic* bad = find(diags, "settings/zz.yaml", "setting.bad-value");
  REQUIRE(bad);
  CHECK(bad->line == 8);
  CHECK(bad->message.starts_with("defaults.roles"));
  CHECK(bad->hint.find("did you mean 'prefill'?") != std::string::npos);
  // `decode` is a role: one diagnostic only.
  CHECK(std::count_if(diags.begin(), diags.end(), [](const kb::Diagnostic& d) {
          return d.code == "setting.bad-value";
        }) == 1);
}
