// The field reference of records/README.md, generated from the schema table so it cannot
// drift from what the loader checks (a test compares the committed copy).

#include <sstream>
#include <string>
#include <vector>

#include "kb/schema.h"
#include "schema/setting_values.h"

namespace kb::schema {
namespace {

std::string code(std::string_view s) {
  return "`" + std::string(s) + "`";
}

// "list of references to engines", "one of `a`, `b`", ...
std::string type_text(const Field& f) {
  std::string t;
  switch (f.type) {
    case ValueType::reference:
      t = "reference to " + std::string(kind_namespace(*f.ref));
      break;
    case ValueType::enumeration: {
      t = "one of ";
      for (std::size_t i = 0; i < f.values.size(); ++i) t += (i ? ", " : "") + code(f.values[i]);
      break;
    }
    case ValueType::object: {
      t = "[" + std::string(f.object->name) + "](#" + std::string(f.object->name) + ")";
      if (!f.shorthand.empty()) t += " (or just its " + code(f.shorthand) + ")";
      break;
    }
    default:
      t = std::string(to_string(f.type));
  }
  return f.list ? "list of " + t : t;
}

void table(std::ostringstream& out, const Struct& s) {
  out << "| field | type | required | meaning |\n|---|---|---|---|\n";
  for (const Field& f : s.fields) {
    std::string doc(f.doc);
    if (!f.example.empty() && f.example != "|") doc += " (e.g. " + code(f.example) + ")";
    out << "| " << code(f.name) << " | " << type_text(f) << " | " << (f.required ? "yes" : "")
        << " | " << doc << " |\n";
  }
  if (!s.one_of.empty()) {
    out << "\nAt least one of ";
    for (std::size_t i = 0; i < s.one_of.size(); ++i) out << (i ? ", " : "") << code(s.one_of[i]);
    out << " is required.\n";
  }
}

}  // namespace

std::string markdown_namespace(Kind k) {
  std::ostringstream out;
  const Struct& s = record_struct(k);
  out << "### " << kind_namespace(k) << "/\n\n" << s.doc << "\n\n";
  table(out, s);
  return out.str();
}

// The bool spellings values are read with, as pairs: `true/false`, `yes/no`, ...
static std::string bool_spellings_text() {
  std::vector<std::string_view> yes, no;
  for (const auto& [word, value] : bool_spellings()) (value == "true" ? yes : no).push_back(word);
  std::string out;
  for (std::size_t i = 0; i < yes.size() || i < no.size(); ++i) {
    if (!out.empty()) out += ", ";
    out += "`";
    if (i < yes.size()) out += yes[i];
    out += "/";
    if (i < no.size()) out += no[i];
    out += "`";
  }
  return out;
}

std::string markdown_reference() {
  std::ostringstream out;
  out << "## Field reference\n\n"
         "Generated from the schema table by `kb schema --format markdown`; `kb schema "
         "--format json-schema NAMESPACE` gives the same as a JSON Schema, which the files "
         "under `schemas/` are. Unknown fields are errors. Scalars are read as YAML 1.2's "
         "core schema reads them: `3` is an integer and `\"3\"` is text, `true` a boolean, "
         "`2026-10-03` text.\n\n";
  for (Kind k : kAllKinds) out << markdown_namespace(k) << "\n";
  out << "### Nested structures\n\n";
  for (const Struct* s : nested_structs()) {
    out << "#### " << s->name << "\n\n" << s->doc << "\n\n";
    table(out, *s);
    out << "\n";
  }
  out << "## Predicates (`applies_when`)\n\n"
         "A deployment is one or more services, each with a role: a value of the `role` "
         "settings record (`settings/role`: `prefill`, `decode`, `both`, `router`, "
         "`cache-server`, ...; a deployment of one service has role `both`). "
         "`applies_when` is evaluated for each service, and a gotcha hits the deployment when "
         "it holds for at least one; `differs` and role-qualified `compare` sides look across "
         "services. Each part is true, false or unknown: an engine whose version is not given "
         "(or a default that depends on it) is unknown, and a finding that rests on an "
         "unknown part is reported as *possible*. A setting that is neither set nor "
         "defaulted has no value: every comparison with it is false (write `not: {config: "
         "...}` to include it); a model's trait is the exception, unknown when the model is "
         "not named, no `models/` record matches it, or its record does not state the trait. "
         "Without `applies_when`, a gotcha applies when a service runs "
         "an engine it `affects` (in that entry's `versions`).\n\n"
         "| form | true for a service when |\n|---|---|\n";
  for (const PredicateForm& p : predicate_forms()) {
    out << "| `" << p.syntax << "` | " << p.meaning << " |\n";
  }
  out << "\nEvery KEY is a settings key or one of its synonyms (`settings/`); a typo is an "
         "error with did-you-mean, and `kb repair --write` fixes it when it is unambiguous. "
         "Every ROLE (of `role` and of `ROLE.KEY`, the part before the first `.`) is a value "
         "of `settings/role` as the record writes it, not a synonym. "
         "Every VALUE must fit the setting's type; a value that can never match (a pattern "
         "such as `*` for a text setting, `gt` on a bool) is an error.\n\n"
         "## Values\n\n"
         "A setting's `type` decides how values are read, in records and in deployments "
         "alike:\n\n"
         "| type | accepted | compared as |\n|---|---|---|\n"
         "| `bool` | "
      << bool_spellings_text()
      << ", any case | `true` or `false` |\n"
         "| `integer` | whole numbers, `04` = `4` | numbers (`gt`, `lt`, ... work) |\n"
         "| `number` | decimal numbers | numbers |\n"
         "| `enum` | a value or one of its synonyms, case-insensitively, `-` and `_` alike | "
         "the canonical value |\n"
         "| `string` | any text, trimmed | exact text |\n"
         "| `version` | a version (below), a leading `v` dropped | versions |\n\n"
         "## Versions and ranges\n\n"
         "Versions are ordered like PEP 440 and compatible with semver for X.Y.Z: `0.26.0`, "
         "`v0.4`, `0.27.1rc2`, `1.0.0-beta.1`, `0.26.post1`, `0.28.dev3`, `1!2.0`, "
         "`0.26.0+cu128`. Trailing zeros compare equal (`0.28` = `0.28.0`); pre-releases sort "
         "before the release; a local tag (`+cu128`) is ignored by a bound without one.\n\n"
         "A range is a comma-separated conjunction: `>=0.26.0, <0.28`, `==0.27.1`, `0.27.1` "
         "(exact), `!=0.26.1`, `~=0.26` (compatible release), `==0.26.*` (prefix), `*` "
         "(any). `<V` excludes pre-releases of V itself: `0.27.1rc2` is in `>=0.26, <0.28`, "
         "`0.28rc1` is not.\n\n"
         "## References\n\n"
         "A reference names another record: bare (`mooncake`) where the field implies the "
         "namespace, or in full (`engines/mooncake`). It resolves through the id, an alias "
         "or former id, an engine's `name` or `repo` (also as a GitHub URL), and a setting's "
         "`key` or synonyms; case, surrounding space and `-`/`_` do not matter. A value that "
         "resolves to nothing is an error with the closest names; `kb repair --write` "
         "applies a candidate only when it is unambiguous.\n";
  return out.str();
}

}  // namespace kb::schema
