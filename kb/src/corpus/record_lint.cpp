// Checks of one record that need the rest of the corpus but not the evidence: settings and
// their values in predicates, models' traits and settings' own definitions against the
// vocabulary, and a gotcha's fix chain against its status and ranges.

#include "corpus/record_lint.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/log_signature.h"
#include "core/similarity.h"
#include "core/text_util.h"
#include "corpus/vocab.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"
#include "kb/resolver.h"
#include "kb/version.h"
#include "resolve/resolver_internal.h"

namespace kb {
namespace {

class Linter {
 public:
  Linter(const Corpus& corpus, const Record& r, std::vector<Diagnostic>& out)
      : corpus_(corpus), r_(r), out_(out) {}

  void run() {
    switch (r_.kind) {
      case Kind::gotcha:
        if (r_.applies_when) predicate(*r_.applies_when);
        fixes();
        signatures();
        break;
      case Kind::engine:
        for (std::size_t i = 0; i < r_.engine->entrypoints.size(); ++i) {
          const Entrypoint& ep = r_.engine->entrypoints[i];
          for (const KeyValue& kv : ep.implies) key_value(kv, setting_scope::kService);
          if (ep.role.empty()) continue;
          role(ep.role, ep.role_pos, "entrypoints[" + std::to_string(i) + "].role",
               diag_code("setting.bad-value"));
        }
        // The roles a platform's pods or a chart's services take (at their entry's line).
        for (std::size_t i = 0; i < r_.engine->resources.size(); ++i) {
          const auto& pods = r_.engine->resources[i].pods;
          for (std::size_t j = 0; j < pods.size(); ++j) {
            if (pods[j].role.empty()) continue;
            role(pods[j].role, pods[j].pos,
                 "resources[" + std::to_string(i) + "].pods[" + std::to_string(j) + "].role",
                 diag_code("setting.bad-value"));
          }
        }
        for (std::size_t i = 0; i < r_.engine->charts.size(); ++i) {
          const ChartValues& chart = r_.engine->charts[i];
          if (chart.role.empty()) continue;
          role(chart.role, chart.pos, "charts[" + std::to_string(i) + "].role",
               diag_code("setting.bad-value"));
        }
        break;
      case Kind::setting:
        setting();
        break;
      case Kind::model:
        for (const KeyValue& kv : r_.traits) key_value(kv, setting_scope::kModel);
        break;
      default:
        break;
    }
  }

 private:
  void add(Severity s, const std::string& code, Pos p, std::string msg, std::string hint = {}) {
    out_.push_back({s, code, r_.file, p.line, p.column, std::move(msg), std::move(hint), r_.id});
  }

  const Record* setting_of(std::string_view key) const {
    auto id = corpus_.target(Kind::setting, key);
    const Record* rec = id ? corpus_.find(*id) : nullptr;
    return rec && rec->kind == Kind::setting ? rec : nullptr;
  }
  const Record* setting_of(const RefValue& key) const { return setting_of(key.raw.view()); }

  // Whether `raw` is a role the role record declares, written as the record writes it
  // (predicates compare roles as written); reports it when not. Which roles there are is
  // the record's to say: code knows only the few it has mechanisms for.
  void role(const std::string& raw, Pos pos, const std::string& field, const char* code) {
    const Record* rec = setting_of(service_role::kKey);
    if (!rec) {
      add(Severity::error, diag_code("setting.missing-role"), pos,
          field + ": role '" + raw + "', but no settings record declares the roles",
          "add records/settings/role.yaml (key: role, type: enum) listing the roles as values");
      return;
    }
    std::vector<std::string> values;
    for (const SettingValue& v : rec->setting->values) {
      if (v.value == raw) return;
      values.push_back(v.value);
    }
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
    if (auto canonical = normalize_value(rec->setting, raw).value) {
      add(Severity::error, code, pos,
          field + ": '" + raw + "' is a synonym of role '" + *canonical + "'",
          "write the role as " + rec->id + " does: '" + *canonical + "'");
      return;
    }
    auto guess = did_you_mean(raw, values);
    add(Severity::error, code, pos, field + ": unknown role '" + raw + "'",
        (guess ? "did you mean '" + *guess + "'? " : std::string()) + "the roles of " + rec->id +
            ": " + list);
  }

  // The choices of an enum setting, for did-you-mean.
  static std::vector<std::string> choices(const SettingDef& def) {
    std::vector<std::string> out;
    for (const auto& v : def.values) {
      out.push_back(text::lower(v.value));
      for (const auto& s : v.synonyms) out.push_back(text::lower(s));
    }
    return out;
  }

  // Whether `raw` is a valid value of `rec`; reports it when not.
  bool value(const Record& rec, const std::string& raw, Pos pos, const std::string& field,
             const char* code) {
    auto normalized = normalize_value(rec.setting, raw);
    if (normalized.value) return true;
    const std::string& why = normalized.error.message;
    std::string hint = "see " + rec.id;
    std::optional<std::string> guess;
    if (rec.setting->type == setting_type::kEnum) guess = did_you_mean(raw, choices(rec.setting));
    if (guess) hint = "did you mean '" + *guess + "'?";
    // In a predicate, say whether `kb repair --write` would fix it, as for a reference.
    if (code == std::string_view(diag_code("predicate.bad-value"))) {
      Resolution res = resolve_value(rec.id, rec.setting, raw);
      if (res.repairable) {
        hint = "did you mean '" + res.candidates.front().matched + "'? (" +
               format_score(res.confidence) + ", `kb repair --write` would apply it)";
      } else if (guess) {
        hint = "did you mean '" + *guess + "'? (not applied: " + res.reason + ")";
      }
    }
    add(Severity::error, code, pos, field + ": " + why, hint);
    return false;
  }

  void key_value(const KeyValue& kv, std::string_view scope) {
    const Record* rec = setting_of(kv.key);
    if (!rec) return;  // the reference check reports it
    value(*rec, kv.value, kv.value_pos, kv.key.field, diag_code("setting.bad-value"));
    if (!scope.empty() && rec->setting->scope != scope) {
      add(Severity::error, diag_code("setting.wrong-scope"), kv.key.pos,
          kv.key.field + ": " + rec->setting->key + " is a " + rec->setting->scope + " setting",
          "only settings of scope " + std::string(scope) + " belong here");
    }
  }

  void predicate(const Predicate& p) {
    for (const auto& c : p.children) predicate(c);
    if (p.op == Predicate::Op::config) {
      for (const ConfigTest& t : p.config) test(t, p.scope);
    } else if (p.op == Predicate::Op::compare) {
      compare(p);
    } else if (p.op == Predicate::Op::role) {
      for (std::size_t i = 0; i < p.roles.size(); ++i) {
        role(p.roles[i], i < p.role_pos.size() ? p.role_pos[i] : p.pos, "applies_when",
             diag_code("predicate.bad-value"));
      }
    }
  }

  // A clause on a setting no artifact kb reads can set fires only on a hand-written
  // deployment: on a real file the gotcha is silently never found.
  void reachable(const Record& rec, const RefValue& key, Pos pos) {
    if (corpus_.settable(rec.id)) return;
    add(Severity::warning, diag_code("predicate.unreachable"), pos,
        key.field + ": no artifact kb reads can set " + rec.setting->key +
            " (no engine spells or defaults it, no `derive:` rule, setting value, entry point "
            "or model trait gives it), so this clause holds only on a hand-written deployment",
        "add the engine's spelling or a `derive:` rule to " + rec.id +
            ", or test a setting that deployments carry");
  }

  void test(const ConfigTest& t, const std::string& scope) {
    const Record* rec = setting_of(t.key);
    if (!rec) return;
    reachable(*rec, t.key, t.key.pos);
    const SettingDef& def = rec->setting;
    if (def.scope == setting_scope::kSymptom) {
      add(Severity::error, diag_code("setting.wrong-scope"), t.key.pos,
          t.key.field + ": " + def.key +
              " is a symptom setting: words search reads, which no deployment has",
          "test a setting deployments carry");
    } else if (!scope.empty() && def.scope != scope) {
      add(Severity::error, diag_code("setting.wrong-scope"), t.key.pos,
          t.key.field + ": " + def.key + " is a " + def.scope + " setting, not a " + scope + " one",
          def.scope == setting_scope::kService || def.scope == setting_scope::kTraffic
              ? "test it under config:"
              : "test it under " + def.scope + ":");
    }
    const bool ordered_op = t.op == "gt" || t.op == "gte" || t.op == "lt" || t.op == "lte";
    if (ordered_op && !ordered_type(def)) {
      add(Severity::error, diag_code("predicate.bad-operator"), t.key.pos,
          t.key.field + ": " + t.op + " compares numbers or versions; " + def.key + " is " +
              def.type,
          "use eq, ne, in or not_in");
    }
    for (std::size_t i = 0; i < t.values.size(); ++i) {
      const Pos pos = i < t.value_pos.size() ? t.value_pos[i] : t.key.pos;
      const std::string& v = t.values[i];
      if (def.type == setting_type::kString && v.find_first_of("*?[") != std::string::npos) {
        add(Severity::error, diag_code("predicate.never-matches"), pos,
            t.key.field + ": '" + v + "' is compared as text; it is not a pattern",
            "values match exactly; to test that the setting is set at all, use config_set");
        continue;
      }
      value(*rec, v, pos, t.key.field, diag_code("predicate.bad-value"));
    }
  }

  void compare(const Predicate& p) {
    if (p.compare->left.is_literal && p.compare->right.is_literal) {
      add(Severity::error, diag_code("predicate.invalid"), p.pos,
          "compare: both sides are literals", "one side must be a setting");
      return;
    }
    const bool ordered_op = p.compare->cmp != "==" && p.compare->cmp != "!=";
    for (const Operand* o : {&p.compare->left, &p.compare->right}) {
      if (o->is_literal) continue;
      if (!o->role.empty()) {
        role(o->role, o->pos, "compare: " + o->role.str() + "." + o->key.raw.str(),
             diag_code("predicate.bad-value"));
      }
      const Record* rec = setting_of(o->key);
      if (rec) reachable(*rec, o->key, o->pos);
      if (rec && ordered_op && !ordered_type(rec->setting)) {
        add(Severity::error, diag_code("predicate.bad-operator"), o->pos,
            "compare: " + p.compare->cmp + " compares numbers or versions; " + rec->setting->key +
                " is " + rec->setting->type,
            "use == or !=");
      }
    }
  }

  void setting() {
    const SettingDef& def = r_.setting;
    if (setting_of(service_role::kKey) == &r_) required_roles();
    for (std::size_t i = 0; i < def.derive.size(); ++i) {
      const Derivation& dv = def.derive[i];
      const std::string field = "derive[" + std::to_string(i) + "]";
      for (const std::string& r : dv.roles)
        role(r, dv.pos, field + ".roles", diag_code("setting.bad-value"));
      for (const std::string& k : dv.shared) {
        if (!setting_of(k))
          add(Severity::error, diag_code("setting.bad-value"), dv.pos,
              field + ".shared: no setting has the key '" + k + "'",
              "name the key of a settings record (records/settings/)");
      }
      value(r_, dv.value, dv.pos, field + ".value", diag_code("setting.bad-value"));
    }
    if (!def.key.empty() && !valid_key(def.key)) {
      add(Severity::error, diag_code("setting.bad-key"), Pos{1, 1},
          "key '" + def.key + "' must be lower-case letters, digits and '_'",
          "a key is how predicates and deployments name the setting, e.g. prefix_caching");
    }
    for (const std::string& name : names()) {
      auto ids = corpus_.names().exact(Kind::setting, name);
      for (const auto& id : ids) {
        if (id == r_.id) continue;
        add(Severity::error, diag_code("setting.key-collision"), Pos{1, 1},
            "'" + name + "' also names " + id, "every key and synonym names one setting only");
        break;
      }
    }
    if (def.scope == setting_scope::kSymptom) symptom_shape(def);
    if (def.type == setting_type::kEnum && def.values.empty()) {
      add(Severity::error, diag_code("setting.no-values"), Pos{1, 1},
          "an enum setting lists its values", "values: [a, b]");
    }
    if (def.type != setting_type::kEnum && !def.values.empty()) {
      add(Severity::error, diag_code("setting.values-not-enum"), def.values.front().pos,
          "values: only enum settings list values", "type: enum");
    }
    std::map<std::string, std::string> name_words;  // in_names word -> the value it gives
    for (const SettingValue& v : def.values) {
      for (const std::string& k : v.routed_by) {
        if (!setting_of(k)) {
          add(Severity::error, diag_code("setting.bad-value"), v.pos,
              "routed_by: no setting has the key '" + k + "'",
              "name the key of a settings record a router's flag is read into "
              "(records/settings/)");
        } else if (!setting_of(service_role::kPortKey)) {
          add(Severity::error, diag_code("setting.bad-value"), v.pos,
              "routed_by: a router names its servers by their port, and no setting has the key '" +
                  std::string(service_role::kPortKey) + "'",
              "add a settings record of key port that spells the servers' --port");
        }
      }
      for (const std::string& w : v.in_names) {
        auto [it, fresh] = name_words.emplace(text::lower(w), v.value.str());
        if (!fresh && it->second != v.value.str()) {
          add(Severity::error, diag_code("setting.in-names-collision"), v.pos,
              "in_names: '" + w + "' is also a word of value '" + it->second +
                  "', so a workload named with it would take both",
              "keep the word in one value's in_names");
        }
      }
    }
    std::set<std::string> seen;
    for (const SettingValue& v : def.values) {
      for (std::string_view s : all_names(v)) {
        std::string f = text::lower(s);
        std::replace(f.begin(), f.end(), '_', '-');
        if (!seen.insert(f).second) {
          add(Severity::error, diag_code("setting.duplicate-value"), v.pos,
              "value '" + std::string(s) +
                  "' is given twice (values compare case- and '-'/'_'-insensitively)");
        }
      }
      for (const KeyValue& kv : v.implies) key_value(kv, {});
    }
    for (const EngineSpelling& e : def.engines) {
      for (const SettingDefault& d : e.defaults) {
        if (!d.value.empty() && !d.derived.empty()) {
          add(Severity::error, diag_code("setting.bad-default"), d.pos,
              "a default has a value or says what it is derived from, not both");
        } else if (d.derived.empty()) {
          value(r_, d.value, d.pos, "defaults", diag_code("setting.bad-value"));
        }
        for (const std::string& r : d.roles)
          role(r, d.pos, "defaults.roles", diag_code("setting.bad-value"));
      }
      for (const auto* list : {&e.flags, &e.env, &e.keys}) {
        for (const Spelling& s : *list) {
          if (s.has_value) value(r_, s.value, s.pos, s.name, diag_code("setting.bad-value"));
          if (!s.several.empty())
            value(r_, s.several, s.pos, s.name + " several", diag_code("setting.bad-value"));
          if (s.takes_value && def.type != setting_type::kBool) {
            add(Severity::error, diag_code("setting.bad-takes-value"), s.pos,
                s.name + ": takes_value is for bool settings (a flag of type " +
                    std::string(def.type.str()) + " always takes the next word)");
          }
          if (s.invert && def.type != setting_type::kBool) {
            add(Severity::error, diag_code("setting.bad-invert"), s.pos,
                s.name + ": invert is for bool settings");
          }
        }
      }
    }
  }

  // A symptom setting only gives search its words: an enum whose every spelling is one
  // search term, which no engine spells and nothing derives.
  void symptom_shape(const SettingDef& def) {
    auto bad = [&](Pos pos, const std::string& why) {
      add(Severity::error, diag_code("setting.symptom-shape"), pos, why,
          "scope: symptom lists what operators call a symptom: type: enum, values: [{value: "
          "differs, synonyms: [nondeterministic]}]");
    };
    if (def.type != setting_type::kEnum)
      bad(Pos{1, 1}, "a symptom setting is an enum of words, not " + def.type.str());
    if (!def.engines.empty() || !def.derive.empty() || !def.file_of.raw.empty())
      bad(Pos{1, 1},
          "a symptom is what operators see, never a deployment's setting: drop "
          "engines, derive and file_of");
    for (const SettingValue& v : def.values) {
      for (std::string_view s : all_names(v)) {
        const bool one_word = !s.empty() && std::none_of(s.begin(), s.end(), [](char c) {
          return std::isspace(static_cast<unsigned char>(c)) || c == '*';
        });
        if (!one_word)
          bad(v.pos, "'" + std::string(s) +
                         "' is not one search word (no spaces, no '*'): search matches a "
                         "query's words one by one");
      }
    }
  }

  // The role record declares the roles code has mechanisms for, as values of their own:
  // `differs` pairs prefill with decode services, and a service no fact gives a role is
  // `both`.
  void required_roles() {
    for (std::string_view needed : service_role::kRequired) {
      const bool declared = std::any_of(r_.setting->values.begin(), r_.setting->values.end(),
                                        [&](const SettingValue& v) { return v.value == needed; });
      if (declared) continue;
      add(Severity::error, diag_code("setting.missing-role"), key_pos("values"),
          "values: no role '" + std::string(needed) + "', which kb check has mechanisms for",
          "list it as a value of its own (not a synonym): prefill, decode and both are the "
          "roles code compares against");
    }
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out = r_.setting->synonyms.to_vector();
    out.push_back(r_.setting->key);
    return out;
  }

  static std::vector<std::string_view> all_names(const SettingValue& v) {
    std::vector<std::string_view> out{v.value.view()};
    for (const auto& s : v.synonyms) out.push_back(s);
    return out;
  }

  static bool valid_key(const std::string& k) {
    return !k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
  }

  // Engine atoms of applies_when naming `engine_id`.
  void engine_atoms(const Predicate& p, const std::string& engine_id,
                    std::vector<const RefValue*>& out) const {
    if (p.op == Predicate::Op::engine && p.engine &&
        corpus_.target(Kind::engine, p.engine->raw) == engine_id)
      out.push_back(&*p.engine);
    for (const auto& c : p.children) engine_atoms(c, engine_id, out);
  }

  void range_excludes(const RefValue& ref, const Version& fixed, const FixChain& f) {
    auto range = VersionRange::parse(ref.versions);
    const bool all = text::trim(ref.versions).empty() || (range && range->is_any());
    if (all || (range && range->contains(fixed))) {
      add(Severity::error, diag_code("fixes.range-mismatch"),
          ref.versions_pos.line ? ref.versions_pos : ref.pos,
          ref.field + ": " + (all ? std::string("every version") : "'" + ref.versions + "'") +
              " includes " + f.fixed_in + ", the first fixed version of its fix chain",
          "end the range before the fix, e.g. \"<" + f.fixed_in + "\"");
    }
  }

  // A signature's regex compiles, so `kb triage` can use it.
  void signatures() {
    if (!r_.detection) return;
    for (std::size_t i = 0; i < r_.detection->signatures.size(); ++i) {
      const Signature& sig = r_.detection->signatures[i];
      if (sig.regex.empty()) continue;
      if (auto why = regex_error(sig.regex)) {
        add(Severity::error, diag_code("detection.bad-regex"), sig.pos,
            "detection.signatures[" + std::to_string(i) + "].regex: " + *why,
            "fix the pattern, or give the text as `literal` (matched as written)");
      }
    }
  }

  void fixes() {
    bool any_fixed = false;
    bool all_fixed = !r_.fixes.empty();
    for (const FixChain& f : r_.fixes) {
      const bool documented = f.resolution == fix_resolution::kDocumented;
      const bool fixed =
          documented ||
          (!f.fixed_in.empty() && (f.resolution.empty() || f.resolution == fix_resolution::kFixed));
      if (!f.fixed_in.empty() && !f.resolution.empty() && f.resolution != fix_resolution::kFixed &&
          f.resolution != fix_resolution::kDisabled && f.resolution != fix_resolution::kWarned &&
          !documented) {
        add(Severity::error, diag_code("fixes.resolution"), f.pos,
            "fixes: fixed_in " + f.fixed_in + " with resolution " + f.resolution,
            "a first fixed version goes with resolution fixed, disabled, warned or documented");
      }
      any_fixed |= fixed;
      all_fixed &= fixed;
      if (!fixed || documented) continue;
      auto id = corpus_.target(Kind::engine, f.engine.raw);
      auto version = Version::parse(f.fixed_in);
      if (!id || !version) continue;
      if (!f.cause.empty()) {
        // One cause of several: its own range ends before its fix; the gotcha's range
        // goes on while another cause is unfixed.
        if (!f.affected.empty()) {
          RefValue own;
          own.raw = f.engine.raw;
          own.field = "fixes." + f.cause.str() + ".affected";
          own.versions = f.affected;
          own.versions_pos = f.affected_pos;
          own.pos = f.pos;
          range_excludes(own, *version, f);
        }
        continue;
      }
      for (const RefValue& a : r_.affects) {
        if (corpus_.target(Kind::engine, a.raw) == *id) range_excludes(a, *version, f);
      }
      if (r_.applies_when) {
        std::vector<const RefValue*> atoms;
        engine_atoms(*r_.applies_when, *id, atoms);
        for (const RefValue* a : atoms) range_excludes(*a, *version, f);
      }
    }
    if (r_.status == GotchaStatus::fixed && r_.fixes.empty()) {
      add(Severity::warning, diag_code("fixes.missing"), status_pos(),
          "status fixed, but no fix chain says which version fixed it",
          "add fixes: [{engine: ..., fixed_in: ..., resolution: fixed}] so kb check can tell "
          "fixed deployments from affected ones");
    } else if (r_.status == GotchaStatus::fixed && !any_fixed) {
      const bool disabled = std::any_of(r_.fixes.begin(), r_.fixes.end(), [](const FixChain& f) {
        return f.resolution == fix_resolution::kDisabled;
      });
      add(Severity::error, diag_code("fixes.status-mismatch"), status_pos(),
          disabled ? "status fixed, but the fix chain only disables the feature"
                   : "status fixed, but no fix chain gives a first fixed version",
          disabled ? "turning a feature off is not a fix: write status: mitigated"
                   : "add fixes: [{engine: ..., fixed_in: ..., resolution: fixed}]");
    }
    if ((r_.status == GotchaStatus::open || r_.status == GotchaStatus::stale ||
         r_.status == GotchaStatus::unknown) &&
        all_fixed) {
      add(Severity::warning, diag_code("fixes.status-open"), status_pos(),
          "status " + std::string(to_string(r_.status)) +
              ", but every fix chain gives a first fixed version",
          "write status: fixed, or say in the fix chain what is still open");
    }
  }

  Pos status_pos() const { return key_pos("status"); }

  // Where top-level field `key` starts; the record's start when it is not written.
  Pos key_pos(std::string_view key) const {
    const std::string source = corpus_.source_text(r_);
    auto p = source.find("\n" + std::string(key) + ":");
    if (p == std::string::npos) return Pos{1, 1};
    return text::offset_to_pos(source, p + 1);
  }

  const Corpus& corpus_;
  const Record& r_;
  std::vector<Diagnostic>& out_;
};

}  // namespace

void lint_record(const Corpus& corpus, const Record& r, std::vector<Diagnostic>& out) {
  Linter(corpus, r, out).run();
}

}  // namespace kb
