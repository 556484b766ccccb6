// The settings reader's JSON-valued flags (`--kv-transfer-config '{...}'`): the fields
// a record spells, a list's items as whole values of the flag (MultiConnector's
// children), and values set only when the script runs.

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "core/text_util.h"
#include "deploy/settings_reader.h"
#include "deploy/settings_reader_internal.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "yaml/yaml_tree.h"

namespace kb::deploy {

using namespace settings_detail;

namespace {

// The end of the shell expansion that starts at text[i] == '$' or '`' (`$NAME`, `${...}`,
// `$(...)`, `$((...))`, a backquoted command), or i when none starts there.
std::size_t expansion_end(std::string_view t, std::size_t i) {
  if (t[i] == '`') {
    const std::size_t close = t.find('`', i + 1);
    return close == std::string_view::npos ? i : close + 1;
  }
  if (i + 1 >= t.size()) return i;
  const char c = t[i + 1];
  if (c == '{' || c == '(') {
    const char close = c == '{' ? '}' : ')';
    int depth = 0;
    for (std::size_t j = i + 1; j < t.size(); ++j) {
      if (t[j] == c) ++depth;
      if (t[j] == close && --depth == 0) return j + 1;
    }
    return i;
  }
  const auto name = [](char ch) {
    return ch == '_' || std::isalnum(static_cast<unsigned char>(ch));
  };
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '@' || c == '*' || c == '#' || c == '?') {
    return i + 2;
  }
  std::size_t j = i + 1;
  while (j < t.size() && name(t[j])) ++j;
  return j;
}

// JSON a script builds around its variables (`"max_model_len":${LEN}`): each expansion
// outside a JSON string put inside one, so that the fields around it can be read (the
// field itself is then set at run time). Empty when the text has none.
std::string quote_bare_expansions(std::string_view t) {
  std::string out;
  bool in_string = false, changed = false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < t.size()) {
        out += t[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    if (c == '$' || c == '`') {
      const std::size_t end = expansion_end(t, i);
      if (end > i + 1) {
        out += '"';
        for (std::size_t k = i; k < end; ++k) {
          if (t[k] == '"' || t[k] == '\\') out += '\\';
          out += t[k];
        }
        out += '"';
        i = end - 1;
        changed = true;
        continue;
      }
    }
    out += c;
  }
  return changed ? out : std::string();
}

}  // namespace

void SettingsReader::json_flag(const std::vector<SpellingRef>& refs, const Word& flag,
                               const Word& value, const std::string& file) {
  yaml::Limits limits;
  limits.max_bytes = 64 * 1024;
  limits.max_depth = 16;
  limits.max_nodes = 10000;
  limits.min_expansion_bytes = 64 * 1024;
  yaml::Node root;
  std::vector<Diagnostic> ignored;
  // What the value expands to (aliases are YAML, and so in a flag's value) is the input's.
  yaml::Allowance left = yaml::allowance(limits, value.text.size());
  const std::size_t allowed = left.bytes;
  bool parsed = yaml::parse(value.text, file, limits, root, ignored, left);
  if ((!parsed || !root.is_map()) && set_at_run_time(value.text)) {
    // The fields around a value the script fills in are known: read them, and the
    // field it fills in as set at run time.
    const std::string quoted = quote_bare_expansions(value.text);
    if (!quoted.empty() && quoted.size() <= limits.max_bytes) {
      yaml::Node again;
      ignored.clear();
      if (yaml::parse(quoted, file, limits, again, ignored, left) && again.is_map()) {
        root = std::move(again);
        parsed = true;
      }
    }
  }
  if (!ctx_.budget->spend(allowed - left.bytes, value.pos, "the JSON inside " + flag.text)) return;
  if ((!parsed || !root.is_map()) && set_at_run_time(value.text)) {
    // `'$KV_CONFIG'`, `$(cat kv.json)`: the JSON is made when the script runs. Each
    // field it may hold is then set but unknown, not left at its default: a clause on it
    // is possible (the role aside: a side no fact gives stays `both`).
    unread(file, value.pos, flag.text + " " + value.text, "set at run time");
    std::set<std::string> done;
    for (const SpellingRef& r : refs) {
      const std::string& field = r.spelling->field;
      const SettingDef& def = r.setting->setting;
      if (field.empty() || field.find_first_of(".[") != std::string::npos) continue;
      if (def.key == service_role::kKey || def.key == "model") continue;
      if (!engine_in_service(r) || !done.insert(def.key).second) continue;
      auto engine = ctx_.corpus.target(Kind::engine, r.engine->engine.raw);
      const int rank = engine && *engine == entry_engine_ ? kEntryFlag : kFlag;
      set(r, value.text, flag.text + " " + field, file, value.pos, value.end, rank, true);
    }
    return;
  }
  if (!parsed || !root.is_map()) {
    const bool soft = ctx_.options.allow_unknown;
    out_.diagnostics.push_back(diag(
        soft ? Severity::warning : Severity::error, diag_code("deploy.bad-json"), file, value.pos,
        "the value of " + flag.text +
            " is not a JSON object, so the settings inside it are not known",
        "write it as JSON, such as '{\"kv_connector\": \"NixlConnector\"}'"));
    return;
  }
  std::vector<std::pair<std::string, const yaml::Node*>> found;
  leaves(root, "", found);
  for (const auto& [path, node] : found) {
    if (node->is_seq()) {
      // A list the records spell `FIELD[]`: each item is a config of this same flag.
      const SpellingRef* list = nullptr;
      for (const SpellingRef& r : refs) {
        if (r.spelling->field == path + "[]") list = &r;
      }
      if (list) {
        for (std::size_t i = 0; i < node->items.size(); ++i) {
          json_part(refs, *list, node->items[i], path + "[" + std::to_string(i) + "]", flag, value,
                    file);
        }
        continue;
      }
    }
    std::vector<SpellingRef> same;
    for (const SpellingRef& r : refs) {
      if (r.spelling->field == path) same.push_back(r);
    }
    const SpellingRef* ref = choose(&same);
    if (!ref || !node->is_scalar()) {
      unread(file, value.pos, flag.text + " " + path + (node->is_scalar() ? "=" + node->value : ""),
             ref ? "not a single value" : "no settings record spells this field");
      continue;
    }
    auto engine = ctx_.corpus.target(Kind::engine, ref->engine->engine.raw);
    const int rank = engine && *engine == entry_engine_ ? kEntryFlag : kFlag;
    set(*ref, node->value, flag.text + " " + path, file, value.pos, value.end, rank);
  }
}

void SettingsReader::json_part(const std::vector<SpellingRef>& refs, const SpellingRef& list,
                               const yaml::Node& item, const std::string& at, const Word& flag,
                               const Word& value, const std::string& file) {
  if (!item.is_map()) {
    unread(file, value.pos, flag.text + " " + at, "not a JSON object");
    return;
  }
  std::vector<std::pair<std::string, const yaml::Node*>> found;
  leaves(item, "", found);
  for (const auto& [path, node] : found) {
    std::vector<SpellingRef> same;
    for (const SpellingRef& r : refs) {
      if (r.spelling->field == path) same.push_back(r);
    }
    const SpellingRef* ref = choose(&same);
    const std::string shown = flag.text + " " + at + "." + path;
    if (!ref || !node->is_scalar()) {
      unread(file, value.pos, shown + (node->is_scalar() ? "=" + node->value : ""),
             ref ? "not a single value" : "no settings record spells this field");
      continue;
    }
    if (ref->setting != list.setting) {
      // A part's own settings: weaker than what the flag states for the whole.
      set(*ref, node->value, shown, file, value.pos, value.end, kImplied);
      continue;
    }
    // The part's value of the listed setting is not the service's value (that stays
    // `multi`); it brings the engines the value runs and the settings it implies.
    part_value(*ref, node->value, shown, file, value.pos, value.end);
  }
}

void SettingsReader::part_value(const SpellingRef& ref, const std::string& raw,
                                const std::string& shown, const std::string& file, Pos pos,
                                Pos end) {
  const SettingDef& def = ref.setting->setting;
  const auto norm = normalize_value(def, raw).value;
  if (def.type != setting_type::kEnum) {
    // Several servers, ports, names: each word is one, and brings nothing else.
    if (set_at_run_time(raw)) {
      unread(file, pos, shown + " " + raw, "set at run time");
    } else if (!norm) {
      unread(file, pos, shown + "=" + raw,
             "not a value of " + def.key + " (" + ref.setting->id + ")");
    } else {
      parts_.push_back({def.key, shown.substr(0, shown.find(' ')), *norm});
    }
    return;
  }
  const SettingValue* v = nullptr;
  for (const SettingValue& x : def.values) {
    if (norm && x.value == *norm) v = &x;
  }
  if (!v) {
    unread(file, pos, shown + "=" + raw,
           "not a value of " + def.key + " (" + ref.setting->id + ")");
    return;
  }
  const std::string via = shown + " = " + raw;
  // Kept for the setting the same flag gives (read at finish()).
  parts_.push_back({def.key, shown.substr(0, shown.find(' ')), v->value.str()});
  for (const RefValue& e : v->engines) {
    auto id = ctx_.corpus.target(Kind::engine, e.raw);
    if (!id) continue;
    bool have = false;
    for (DeployedEngine& x : svc_.engines) {
      if (x.id == *id) {
        x.needs_enabling = false;  // the part enables the plugin the image ships
        have = true;
      }
    }
    if (have) continue;
    DeployedEngine de;
    de.name = std::string(text::id_slug(*id));
    de.id = *id;
    de.file = file;
    de.pos = pos;
    de.end = end;
    de.via = via;
    svc_.engines.push_back(std::move(de));
  }
  for (const KeyValue& kv : v->implies) {
    const Record* rec = ctx_.vocab.setting(kv.key.raw);
    if (!rec) continue;
    Spelling spelling;
    spelling.name = shown;
    EngineSpelling engine;
    SpellingRef implied{rec, &engine, &spelling};
    set(implied, kv.value.str(), via, file, pos, end, kImplied);
  }
}

}  // namespace kb::deploy
