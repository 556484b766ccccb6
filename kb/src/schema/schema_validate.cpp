#include "schema/schema_validate.h"

#include <algorithm>

#include "core/similarity.h"
#include "core/text_util.h"
#include "kb/diagnostic_codes.h"
#include "kb/version.h"

namespace kb::schema {
namespace {

using yaml::CoreType;

std::string join(const std::vector<std::string_view>& v, std::string_view sep) {
  std::string out;
  for (auto s : v) out += (out.empty() ? "" : std::string(sep)) + std::string(s);
  return out;
}

std::vector<std::string> strings(const std::vector<std::string_view>& v) {
  return {v.begin(), v.end()};
}

std::string sub(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

// "a date", "a version", ... for "expected X" messages.
std::string expected(const Field& f) {
  switch (f.type) {
    case ValueType::date:
      return "a date YYYY-MM-DD";
    case ValueType::integer:
      return "a whole number >= 0";
    case ValueType::number:
      return "a number";
    case ValueType::boolean:
      return "true or false";
    case ValueType::version:
      return "a version";
    case ValueType::version_range:
      return "a version range";
    case ValueType::url:
      return "an http(s) URL";
    case ValueType::path:
      return "a path such as /version";
    case ValueType::object:
      return "a mapping";
    case ValueType::scalar_map:
    case ValueType::setting_map:
    case ValueType::engine_versions:
      return "a mapping";
    case ValueType::predicate:
      return "a predicate";
    case ValueType::reference:
      return "a reference";
    default:
      return "a single value";
  }
}

}  // namespace

bool blank(const yaml::Node& n) {
  return n.is_null() || (n.is_scalar() && text::trim(n.value).empty());
}

void Validator::error(const std::string& code, Pos p, std::string msg, std::string hint) {
  out_.push_back(
      {Severity::error, code, file_, p.line, p.column, std::move(msg), std::move(hint), ""});
  ++errors_;
}

void Validator::record(const Node& root, Kind k, const std::string& id) {
  object(root, record_struct(k), "");
  if (const Node* v = root.find("id"); v && v->is_scalar() && v->value != id) {
    error(diag_code("schema.id-mismatch"), v->pos,
          "id '" + v->value + "' does not match the file path",
          "the path decides the id: write `id: " + id + "` or move the file");
  }
}

void Validator::unknown_key(const Node& key, const std::string& path,
                            const std::vector<std::string>& choices) {
  auto guess = did_you_mean(key.value, choices);
  error(diag_code("schema.unknown-field"), key.pos,
        (path.empty() ? "" : path + ": ") + "unknown field '" + key.value + "'",
        guess ? "did you mean '" + *guess + "'?" : "");
}

void Validator::object(const Node& v, const Struct& s, const std::string& path) {
  if (!v.is_map()) {
    error(diag_code("schema.type"), v.pos,
          (path.empty() ? std::string("the record") : path) + ": expected a mapping, found " +
              std::string(yaml::type_name(v)));
    return;
  }
  for (const auto& [k, val] : v.entries) {
    if (!k.is_scalar()) {
      error(diag_code("schema.invalid-key"), k.pos,
            (path.empty() ? "" : path + ": ") + "keys must be plain names");
      continue;
    }
    const Field* f = find_field(s, k.value);
    if (!f) {
      unknown_key(k, path, field_names(s));
      continue;
    }
    if (val.is_null()) continue;  // absent; required fields are checked below
    field(*f, val, sub(path, f->name));
  }
  for (const Field& f : s.fields) {
    if (!f.required) continue;
    const Node* val = v.find(f.name);
    const bool empty_list = val && f.list && val->is_seq() && val->items.empty();
    if (!val || blank(*val) || empty_list) {
      std::string where = path.empty() ? "" : path + ": ";
      error(diag_code("schema.missing-field"), v.pos,
            where + "missing required field '" + std::string(f.name) + "'",
            f.example.empty()
                ? ""
                : "add e.g. `" + std::string(f.name) + ": " + std::string(f.example) + "`");
    }
  }
  if (!s.one_of.empty()) {
    bool any = std::any_of(s.one_of.begin(), s.one_of.end(), [&](std::string_view n) {
      const Node* x = v.find(n);
      return x && !blank(*x);
    });
    if (!any) {
      const Field* first = find_field(s, s.one_of.front());
      error(diag_code("schema.missing-field"), v.pos,
            (path.empty() ? "" : path + ": ") + "needs one of " + join(s.one_of, ", "),
            first && !first->example.empty()
                ? "add e.g. `" + std::string(first->name) + ": " + std::string(first->example) + "`"
                : "");
    }
  }
}

void Validator::field(const Field& f, const Node& v, const std::string& path) {
  if (!f.list) {
    value(f, v, path);
    return;
  }
  if (!v.is_seq()) {
    error(diag_code("schema.type"), v.pos,
          path + ": expected a list, found " + std::string(yaml::type_name(v)),
          v.is_scalar() ? "write `" + path + ": [" + v.value + "]`" : "");
    return;
  }
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    const std::string item = path + "[" + std::to_string(i) + "]";
    if (v.items[i].is_null()) {
      error(diag_code("schema.type"), v.items[i].pos,
            item + ": expected " + expected(f) + ", found nothing");
      continue;
    }
    value(f, v.items[i], item);
  }
}

void Validator::value(const Field& f, const Node& v, const std::string& path) {
  switch (f.type) {
    case ValueType::object:
      if (v.is_scalar() && !f.shorthand.empty()) {
        value(*find_field(*f.object, f.shorthand), v, path);
        return;
      }
      object(v, *f.object, path);
      return;
    case ValueType::predicate:
      predicate(v, path, 0);
      return;
    case ValueType::scalar_map:
    case ValueType::setting_map:
    case ValueType::engine_versions:
      map_of(f, v, path);
      return;
    default:
      scalar(f, v, path);
  }
}

void Validator::map_of(const Field& f, const Node& v, const std::string& path) {
  if (!v.is_map()) {
    error(diag_code("schema.type"), v.pos,
          path + ": expected a mapping, found " + std::string(yaml::type_name(v)),
          f.example.empty() ? "" : "e.g. " + std::string(f.example));
    return;
  }
  Field item = f;
  item.list = false;
  item.type = f.type == ValueType::engine_versions ? ValueType::version : ValueType::scalar;
  for (const auto& [k, val] : v.entries) {
    if (!k.is_scalar() || blank(k)) {
      error(diag_code("schema.invalid-key"), k.pos, path + ": keys must be plain names");
      continue;
    }
    if (val.is_null()) {
      if (f.type == ValueType::scalar_map) continue;  // a key set to nothing
      error(diag_code("schema.type"), val.pos,
            sub(path, k.value) + ": expected a value, found nothing");
      continue;
    }
    scalar(item, val, sub(path, k.value));
  }
}

void Validator::scalar(const Field& f, const Node& v, const std::string& path) {
  if (!v.is_scalar()) {
    error(diag_code("schema.type"), v.pos,
          path + ": expected " + expected(f) + ", found " + std::string(yaml::type_name(v)));
    return;
  }
  const CoreType ct = yaml::core_type(v);
  const std::string& s = v.value;
  auto wrong = [&](const std::string& code, std::string hint = {}) {
    error(code, v.pos,
          path + ": expected " + expected(f) + ", found " + std::string(yaml::core_type_name(ct)) +
              " '" + s + "'",
          std::move(hint));
  };
  switch (f.type) {
    case ValueType::date:
      if (ct != CoreType::string || !text::valid_date(s)) {
        error(diag_code("schema.date"), v.pos, path + ": '" + s + "' is not a date",
              "write dates as YYYY-MM-DD, e.g. 2026-10-03");
      }
      return;
    case ValueType::integer:
      if (ct != CoreType::integer || s[0] == '-')
        wrong(diag_code("schema.type"), "write it unquoted, e.g. 3");
      return;
    case ValueType::number:
      if (ct != CoreType::integer && ct != CoreType::floating) wrong(diag_code("schema.type"));
      return;
    case ValueType::boolean:
      if (ct != CoreType::boolean) wrong(diag_code("schema.type"), "write true or false, unquoted");
      return;
    case ValueType::enumeration: {
      if (std::find(f.values.begin(), f.values.end(), s) != f.values.end()) return;
      auto guess = did_you_mean(s, strings(f.values));
      const std::string list = join(f.values, " | ");
      error(diag_code("schema.enum"), v.pos, path + ": unknown value '" + s + "'",
            guess ? "did you mean '" + *guess + "'? (one of " + list + ")" : "one of " + list);
      return;
    }
    case ValueType::reference:
      if (text::trim(s).empty())
        error(diag_code("schema.empty-value"), v.pos, path + ": empty reference");
      return;
    case ValueType::version:
    case ValueType::version_range: {
      const bool is_version = f.type == ValueType::version;
      ParseError err{"'" + s + "' is not a version", 0};
      if (ct != CoreType::boolean) {
        if (is_version) {
          auto parsed = Version::parse_or_error(s);
          if (parsed.value) return;
          err = std::move(parsed.error);
        } else {
          auto parsed = VersionRange::parse_or_error(s);
          if (parsed.value) return;
          err = std::move(parsed.error);
        }
      }
      // The column points at the offending character when the value is written verbatim.
      error(diag_code("version.invalid"), yaml::value_pos(v, err.offset), path + ": " + err.message,
            is_version ? "write a version such as 0.26.0 or 0.27.1rc2"
                       : "write a range such as \">=0.26.0, <0.28\"");
      return;
    }
    case ValueType::url:
      if (ct != CoreType::string || (!s.starts_with("http://") && !s.starts_with("https://"))) {
        error(diag_code("schema.url"), v.pos, path + ": only http(s) URLs are allowed");
      }
      return;
    case ValueType::path:
      if (ct != CoreType::string || s.empty() || s.front() != '/' ||
          s.find_first_of(" \t?#") != std::string::npos) {
        error(diag_code("schema.type"), v.pos, path + ": expected a path such as /version",
              "the path is relative to the server's root URL, without a query");
      }
      return;
    default:
      return;  // text, markdown, scalar: any scalar
  }
}

}  // namespace kb::schema
