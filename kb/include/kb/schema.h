#pragma once

// The record schema, declared once: every namespace's fields with their type, whether
// they are required, the namespace a reference points into and a line of documentation.
// The loader checks records against it, did-you-mean and required fields come from it,
// `kb schema` prints it as Markdown or JSON Schema, `import-text` and the JSON encoder
// take their field lists from it, and records/README.md's field reference is generated
// from it.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/model.h"

namespace kb {
/// How a bool setting's value may be written (lower-case), each spelling with what it
/// means: `yes` -> `true`, `off` -> `false` (what `kb lint` and `kb check` accept).
const std::vector<std::pair<std::string_view, std::string_view>>& bool_spellings();
}  // namespace kb

namespace kb::schema {

/// What a field's value is. Scalars follow YAML 1.2's core schema, as editors read it.
enum class ValueType {
  text,             ///< a one-line scalar (a string, or a number or boolean read as text)
  markdown,         ///< Markdown, best in a block scalar
  date,             ///< YYYY-MM-DD, a real calendar date
  integer,          ///< a whole number >= 0, unquoted
  number,           ///< a number, unquoted
  boolean,          ///< true or false, unquoted
  enumeration,      ///< one of `Field::values`
  reference,        ///< the id of a record in namespace `Field::ref`, bare or in full
  version,          ///< an exact version: 0.26.0, 0.27.1rc2, v1.0
  version_range,    ///< comma-separated comparisons: ">=0.26, <0.28"
  url,              ///< an http(s) URL
  path,             ///< a URL path from a server's root: starts with '/', no spaces, ? or #
  object,           ///< a mapping with the fields of `Field::object`
  predicate,        ///< an applies_when predicate
  scalar_map,       ///< a mapping of names to scalar values
  setting_map,      ///< a mapping of settings keys (references) to scalar values
  engine_versions,  ///< a mapping of engine references to exact versions
  scalar,           ///< any scalar value (a setting's value, normalised by the setting's type)
};

/// "text", "markdown", ... for docs.
std::string_view to_string(ValueType t);

struct Struct;

/// One field of a record or of a structure nested in one.
struct Field {
  std::string_view name;
  ValueType type = ValueType::text;
  bool list = false;  ///< a list of values of `type`
  bool required = false;
  std::optional<Kind> ref;               ///< reference: the namespace it points into
  std::vector<std::string_view> values;  ///< enumeration: the allowed values
  const Struct* object = nullptr;        ///< object: its fields
  /// object: a bare scalar stands for `{shorthand: scalar}` (`vllm` for `{engine: vllm}`).
  std::string_view shorthand;
  std::string_view doc;      ///< one line
  std::string_view example;  ///< a YAML value, for docs and hints
};

/// The fields of a record namespace or of a nested structure, in canonical order.
struct Struct {
  std::string_view name;  ///< "gotcha", "citation", ...
  std::string_view doc;
  std::vector<Field> fields;
  /// At least one of these fields must be given (empty: no such rule).
  std::vector<std::string_view> one_of;
};

/// The fields of records of kind `k`: the common ones first.
const Struct& record_struct(Kind k);
/// Every structure nested in records, each once, in documentation order.
const std::vector<const Struct*>& nested_structs();
/// The field of `s` named `name`, or nullptr.
const Field* find_field(const Struct& s, std::string_view name);
/// The names of `s`'s fields, in order.
std::vector<std::string> field_names(const Struct& s);

/// One form of an `applies_when` predicate, for docs and the JSON Schema.
struct PredicateForm {
  std::string_view op;       ///< the key that selects the form: "engine", "config", ...
  std::string_view syntax;   ///< as written: "{engine: vllm, versions: \">=0.26\"}"
  std::string_view meaning;  ///< "the service runs that engine (in range)"
};
/// Every predicate form, in documentation order.
const std::vector<PredicateForm>& predicate_forms();
/// The comparison operators a `config` test may use: eq (a bare value), ne, in, ...
const std::vector<std::string_view>& config_operators();
/// The operators of `compare`: ==, !=, <, <=, >, >=.
const std::vector<std::string_view>& compare_operators();
/// The types a settings record may declare: bool, integer, ...
const std::vector<std::string_view>& setting_types();

/// The whole schema as the Markdown of records/README.md's generated reference.
std::string markdown_reference();
/// The schema of one namespace as Markdown.
std::string markdown_namespace(Kind k);

}  // namespace kb::schema
