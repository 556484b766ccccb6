#include "schema/schema_extract.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "core/text_util.h"
#include "kb/schema.h"

namespace kb::schema {
namespace {

using yaml::Node;

// A checked core-schema integer (decimal, 0x, 0o); 0 when it does not fit.
std::int64_t integer(const std::string& s) {
  std::int64_t out = 0;
  int base = 10;
  std::size_t skip = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
    base = s[1] == 'x' ? 16 : 8;
    skip = 2;
  } else if (!s.empty() && s[0] == '+') {
    skip = 1;
  }
  auto [p, ec] = std::from_chars(s.data() + skip, s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size() ? out : 0;
}

std::string scalar(const Node& v) {
  return v.is_scalar() ? v.value : std::string();
}

// A checked core-schema boolean.
bool truth(const Node& v) {
  const std::string s = scalar(v);
  return s == "true" || s == "True" || s == "TRUE";
}

std::vector<std::string> strings(const Node& v) {
  std::vector<std::string> out;
  for (const Node& item : v.items) {
    if (item.is_scalar()) out.push_back(item.value);
  }
  return out;
}

std::string item_path(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

RefValue ref(const Node& v, const std::string& field) {
  RefValue r;
  r.raw = scalar(v);
  r.field = field;
  r.pos = v.pos;
  return r;
}

std::vector<RefValue> refs(const Node& v, const std::string& path) {
  std::vector<RefValue> out;
  for (std::size_t i = 0; i < v.items.size(); ++i)
    out.push_back(ref(v.items[i], item_path(path, i)));
  return out;
}

std::string sub(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}

// Calls `each(key, value)` for every entry of a mapping whose value is not null.
template <class F>
void entries(const Node& v, F each) {
  for (const auto& [k, val] : v.entries) {
    if (!val.is_null()) each(k.value, val);
  }
}

// A scalar mapping as written: `{a: 1, b: x}`.
std::vector<ConfigEntry> pairs(const Node& v) {
  std::vector<ConfigEntry> out;
  for (const auto& [k, val] : v.entries) {
    if (!val.is_null()) out.emplace_back(k.value, scalar(val));
  }
  return out;
}

std::vector<KeyValue> key_values(const Node& v, const std::string& path) {
  std::vector<KeyValue> out;
  for (const auto& [k, val] : v.entries) {
    if (val.is_null()) continue;
    out.push_back({ref(k, path + "." + k.value), scalar(val), val.pos});
  }
  return out;
}

// How one field of a structure read into a `T` is set: the table's field, its value, and
// the path of the structure it stands in ("" for a record, "fixes[0]" for a fix chain).
template <class T>
using Set = void (*)(T&, const Field&, const Node&, const std::string&);

// The setters of one structure of the table, by field name: the only place a field's
// value reaches the model. `structs` names the table's structures they read (a citation's
// setters read the issue and PR citations too); extract_drift() holds both to the table.
template <class T>
struct Setters {
  std::vector<std::string_view> structs;
  std::vector<std::pair<std::string_view, Set<T>>> fields;

  Set<T> find(std::string_view name) const {
    for (const auto& [n, set] : fields) {
      if (n == name) return set;
    }
    return nullptr;
  }
};

// A setter: `x` the structure, `f` the table's field, `v` its value, `p` the structure's
// path.
#define SET(T)                                                                                \
  []([[maybe_unused]] T & x, [[maybe_unused]] const Field& f, [[maybe_unused]] const Node& v, \
     [[maybe_unused]] const std::string& p) -> void
#define TEXT(T, member)   \
  SET(T) {                \
    x.member = scalar(v); \
  }

// Sets the fields of mapping `v` that the table declares in `table`, each by its setter.
template <class T>
void read_fields(const Setters<T>& s, const Struct& table, T& t, const Node& v,
                 const std::string& path) {
  entries(v, [&](const std::string& k, const Node& val) {
    const Field* f = find_field(table, k);
    if (!f) return;
    if (Set<T> set = s.find(f->name)) set(t, *f, val, path);
  });
}

// One value of the object field `f`: a mapping of `f.object`'s fields, or a bare scalar
// standing for its shorthand field.
template <class T>
T object(const Setters<T>& s, const Field& f, const Node& item, const std::string& path) {
  T t{};
  if constexpr (requires { t.pos = item.pos; }) t.pos = item.pos;
  if (item.is_scalar()) {
    const Field* part = f.shorthand.empty() ? nullptr : find_field(*f.object, f.shorthand);
    if (Set<T> set = part ? s.find(part->name) : nullptr) set(t, *part, item, path);
  } else {
    read_fields(s, *f.object, t, item, path);
  }
  return t;
}

// The values of the object list `f` at `path`.
template <class T>
std::vector<T> objects(const Setters<T>& s, const Field& f, const Node& v,
                       const std::string& path) {
  std::vector<T> out;
  for (std::size_t i = 0; i < v.items.size(); ++i)
    out.push_back(object(s, f, v.items[i], item_path(path, i)));
  return out;
}

const Setters<Citation>& citation_setters() {
  static const Setters<Citation> s = {
      {"citation", "issue-citation", "pr-citation"},
      {{"type", TEXT(Citation, type)}, {"repo", TEXT(Citation, repo)},
       {"number", SET(Citation){x.number = integer(scalar(v));
}
}  // namespace
, {"ref", TEXT(Citation, ref)}, {"url", TEXT(Citation, url)}, {"title", TEXT(Citation, title)},
    {"state", TEXT(Citation, state)}, {"as_of", TEXT(Citation, as_of)},
    {"date", TEXT(Citation, date)}, {
  "note", TEXT(Citation, note)
}
}  // namespace kb::schema
}
;
return s;
}

// A list of citations; those without a type get `default_type`, which their list implies.
std::vector<Citation> citations(const Field& f, const Node& v, const std::string& path,
                                std::string_view default_type = {}) {
  std::vector<Citation> out = objects(citation_setters(), f, v, path);
  for (Citation& c : out) {
    if (c.type.empty()) c.type = default_type;
  }
  return out;
}

// An engine reference with its versions: `vllm` or `{engine: vllm, versions: ...}`. The
// reference stands at the item's path.
void engine_of(RefValue& x, const Node& v, const std::string& p) {
  x.raw = scalar(v);
  x.pos = v.pos;
  x.field = p;
}
void versions_of(RefValue& x, const Node& v) {
  if (!v.is_scalar()) return;
  x.versions = v.value;
  x.versions_pos = v.pos;
}

const Setters<RefValue>& engine_range_setters() {
  static const Setters<RefValue> s = {{"engine-range"},
                                      {{"engine", SET(RefValue){engine_of(x, v, p);
}
}
, {
  "versions", SET(RefValue) {
    versions_of(x, v);
  }
}
}
}
;
return s;
}

const Setters<RefValue>& subject_engine_setters() {
  static const Setters<RefValue> s = {{"subject-engine"},
                                      {{"engine", SET(RefValue){engine_of(x, v, p);
}
}
, {
  "version", SET(RefValue) {
    versions_of(x, v);
  }
}
}
}
;
return s;
}

// A list of engine references; a map item without `engine` still stands at its path.
std::vector<RefValue> engine_refs(const Setters<RefValue>& s, const Field& f, const Node& v,
                                  const std::string& path) {
  std::vector<RefValue> out = objects(s, f, v, path);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!v.items[i].is_scalar()) {
      if (!v.items[i].find("engine")) out[i].pos = Pos{};
      out[i].field = item_path(path, i);
    }
  }
  return out;
}

const Setters<FixChain>& fix_chain_setters() {
  static const Setters<FixChain> s = {{"fix-chain"},
                                      {{"engine", SET(FixChain){x.engine = ref(v, sub(p, f.name));
}
}
, {"issues", SET(FixChain){x.issues = citations(f, v, sub(p, f.name), "issue");
}
}
, {"prs", SET(FixChain){x.prs = citations(f, v, sub(p, f.name), "pr");
}
}
, {"fixed_in", SET(FixChain){x.fixed_in = scalar(v);
x.fixed_in_pos = v.pos;
}
}
, {"resolution", TEXT(FixChain, resolution)}, {"cause", TEXT(FixChain, cause)},
    {"affected", SET(FixChain){x.affected = scalar(v);
x.affected_pos = v.pos;
}
}
, {
  "note", TEXT(FixChain, note)
}
}
}
;
return s;
}

const Setters<Signature>& signature_setters() {
  static const Setters<Signature> s = {
      {"signature"}, {{"literal", TEXT(Signature, literal)}, {"regex", TEXT(Signature, regex)},
                      {"engine", SET(Signature){x.engine = ref(v, sub(p, f.name));
}
}
, {
  "versions", TEXT(Signature, versions)
}
}
}
;
return s;
}

const Setters<ShellFunction>& shell_function_setters() {
  static const Setters<ShellFunction> s = {
      {"shell-function"}, {{"name", TEXT(ShellFunction, name)}, {"sets", TEXT(ShellFunction, sets)},
                           {"argument", SET(ShellFunction){x.argument = integer(scalar(v));
}
}
}
}
;
return s;
}

const Setters<Detection>& detection_setters() {
  static const Setters<Detection> s = {{"detection"},
                                       {{"silent", SET(Detection){x.silent = truth(v);
}
}
, {"lying_signals", SET(Detection){x.lying_signals = strings(v);
}
}
, {"oracles", SET(Detection){x.oracles = refs(v, sub(p, f.name));
}
}
, {"canary", TEXT(Detection, canary)}, {
  "signatures", SET(Detection) {
    x.signatures = objects(signature_setters(), f, v, sub(p, f.name));
  }
}
}
}
;
return s;
}

const Setters<Impact>& impact_setters() {
  static const Setters<Impact> s = {{"impact"},
                                    {{"metric", TEXT(Impact, metric)},
                                     {"change", TEXT(Impact, change)},
                                     {"note", TEXT(Impact, note)}}};
  return s;
}

const Setters<RepairEntry>& repair_setters() {
  static const Setters<RepairEntry> s = {
      {"repair"},
      {{"date", TEXT(RepairEntry, date)}, {"field", TEXT(RepairEntry, field)},
       {"from", TEXT(RepairEntry, from)}, {"to", TEXT(RepairEntry, to)},
       {"reason", TEXT(RepairEntry, reason)},
       {"confidence", SET(RepairEntry){x.confidence = std::strtod(scalar(v).c_str(), nullptr);
}
}
}
}
;
return s;
}

const Setters<EngineRelation>& relation_setters() {
  static const Setters<EngineRelation> s = {
      {"relation"}, {{"type", TEXT(EngineRelation, type)},
                     {"engine", SET(EngineRelation){x.engine = ref(v, sub(p, f.name));
}
}
}
}
;
return s;
}

const Setters<Package>& package_setters() {
  static const Setters<Package> s = {
      {"package"}, {{"name", TEXT(Package, name)}, {"ecosystem", TEXT(Package, ecosystem)}}};
  return s;
}

const Setters<Image>& image_setters() {
  static const Setters<Image> s = {
      {"image"},
      {{"image", TEXT(Image, image)}, {"engines", SET(Image){x.engines = refs(v, sub(p, f.name));
}
}
}
}
;
return s;
}

const Setters<Entrypoint>& entrypoint_setters() {
  static const Setters<Entrypoint> s = {
      {"entrypoint"}, {{"command", TEXT(Entrypoint, command)}, {"module", TEXT(Entrypoint, module)},
                       {"role", SET(Entrypoint){x.role = scalar(v);
  x.role_pos = v.pos;
}
}
, {"engines", SET(Entrypoint){x.engines = refs(v, sub(p, f.name));
}
}
, {"wraps", TEXT(Entrypoint, wraps)},
    {"value_options", SET(Entrypoint){x.value_options = strings(v);
}
}
, {"serves", SET(Entrypoint){x.serves = truth(v);
}
}
, {"versions", TEXT(Entrypoint, versions)}, {
  "implies", SET(Entrypoint) {
    x.implies = key_values(v, sub(p, f.name));
  }
}
}
}
;
return s;
}

const Setters<ResourcePods>& resource_pods_setters() {
  static const Setters<ResourcePods> s = {{"resource-pods"},
                                          {{"path", TEXT(ResourcePods, path)},
                                           {"role", TEXT(ResourcePods, role)},
                                           {"when", TEXT(ResourcePods, when)},
                                           {"role_from", TEXT(ResourcePods, role_from)}}};
  return s;
}

const Setters<PlatformResource>& resource_setters() {
  static const Setters<PlatformResource> s = {
      {"resource"},
      {{"kind", TEXT(PlatformResource, kind)}, {"group", TEXT(PlatformResource, group)},
       {"engines", SET(PlatformResource){x.engines = refs(v, sub(p, f.name));
}
}
, {"container", TEXT(PlatformResource, container)},
    {"args_env", SET(PlatformResource){x.args_env = strings(v);
}
}
, {"model", SET(PlatformResource){x.model = strings(v);
}
}
, {"pods", SET(PlatformResource){x.pods = objects(resource_pods_setters(), f, v, sub(p, f.name));
}
}
, {"pools", SET(PlatformResource){x.pools = strings(v);
}
}
, {
  "pool_keys", SET(PlatformResource) {
    x.pool_keys = strings(v);
  }
}
}
}
;
return s;
}

const Setters<ChartValues>& chart_setters() {
  static const Setters<ChartValues> s = {
      {"chart"}, {{"values", TEXT(ChartValues, values)},
                  {"engines", SET(ChartValues){x.engines = refs(v, sub(p, f.name));
}
}
, {"name", TEXT(ChartValues, name)}, {"image", SET(ChartValues){x.image = strings(v);
}
}
, {"model", SET(ChartValues){x.model = strings(v);
}
}
, {"args", SET(ChartValues){x.args = strings(v);
}
}
, {"command", SET(ChartValues){x.command = strings(v);
}
}
, {"env", SET(ChartValues){x.env = strings(v);
}
}
, {"env_vars", SET(ChartValues){x.env_vars = strings(v);
}
}
, {"engine_args", SET(ChartValues){x.engine_args = strings(v);
}
}
, {"keys_of", SET(ChartValues){x.keys_of = ref(v, sub(p, f.name));
}
}
, {"settings", SET(ChartValues){x.settings = strings(v);
}
}
, {"role", TEXT(ChartValues, role)}, {
  "inherit", TEXT(ChartValues, inherit)
}
}
}
;
return s;
}

const Setters<ProbeRoute>& probe_setters() {
  static const Setters<ProbeRoute> s = {
      {"probe"}, {{"path", TEXT(ProbeRoute, path)}, {"version", TEXT(ProbeRoute, version)},
                  {"expect", SET(ProbeRoute){x.expect = pairs(v);
}
}
}
}
;
return s;
}

const Setters<Release>& release_setters() {
  static const Setters<Release> s = {
      {"release"},
      {{"version", TEXT(Release, version)}, {"date", TEXT(Release, date)},
       {"bundles",
        SET(Release){for (const auto& [bk, bv]
                          : v.entries){RefValue b = ref(bk, sub(p, f.name) + "." + bk.value);
  b.versions = scalar(bv);
  b.versions_pos = bv.pos;
  x.bundles.push_back(std::move(b));
}
}
}
}
}
;
return s;
}

const Setters<RunnerDecl>& runner_setters() {
  static const Setters<RunnerDecl> s = {
      {"runner"}, {{"kind", TEXT(RunnerDecl, kind)}, {"params", SET(RunnerDecl){x.params = pairs(v);
}
}
}
}
;
return s;
}

const Setters<Failure>& failure_setters() {
  static const Setters<Failure> s = {{"failure"},
                                     {{"prompt", SET(Failure){x.prompt = integer(scalar(v));
}
}
, {"position", SET(Failure){x.position = integer(scalar(v));
}
}
, {"trial", SET(Failure){x.trial = integer(scalar(v));
}
}
, {"run", SET(Failure){x.run = integer(scalar(v));
}
}
, {"compared", TEXT(Failure, compared)}, {"expected", TEXT(Failure, expected)}, {
  "got", TEXT(Failure, got)
}
}
}
;
return s;
}

const Setters<Subject>& subject_setters() {
  static const Setters<Subject> s = {
      {"subject"}, {{"engines", SET(Subject){x.engines = engine_refs(subject_engine_setters(), f, v,
                                                                     sub(p, f.name));
}
}
, {"config", SET(Subject){x.config = pairs(v);
}
}
, {
  "model", TEXT(Subject, model)
}
}
}
;
return s;
}

// A spelling's name is its flag, variable or key, whichever the structure has.
void name_of(Spelling& x, const Node& v) {
  x.name = scalar(v);
}
void value_of(Spelling& x, const Node& v) {
  x.value = scalar(v);
  x.has_value = true;
}

const Setters<Spelling>& flag_spelling_setters() {
  static const Setters<Spelling> s = {{"flag-spelling"}, {{"flag", SET(Spelling){name_of(x, v);
}
}
, {"takes_value", SET(Spelling){x.takes_value = truth(v);
}
}
, {"several", TEXT(Spelling, several)}, {
  "value", SET(Spelling) {
    value_of(x, v);
  }
}
}
}
;
return s;
}

const Setters<Spelling>& env_spelling_setters() {
  static const Setters<Spelling> s = {{"env-spelling"}, {{"name", SET(Spelling){name_of(x, v);
}
}
, {
  "value", SET(Spelling) {
    value_of(x, v);
  }
}
}
}
;
return s;
}

const Setters<Spelling>& key_spelling_setters() {
  static const Setters<Spelling> s = {{"key-spelling"}, {{"key", SET(Spelling){name_of(x, v);
}
}
, {"invert", SET(Spelling){x.invert = truth(v);
}
}
, {
  "value", SET(Spelling) {
    value_of(x, v);
  }
}
}
}
;
return s;
}

const Setters<Spelling>& json_spelling_setters() {
  static const Setters<Spelling> s = {{"json-spelling"}, {{"flag", SET(Spelling){name_of(x, v);
}
}
, {"key", SET(Spelling){name_of(x, v);
}
}
, {
  "field", TEXT(Spelling, field)
}
}
}
;
return s;
}

const Setters<SettingDefault>& setting_default_setters() {
  static const Setters<SettingDefault> s = {
      {"setting-default"},
      {{"versions", TEXT(SettingDefault, versions)}, {"value", TEXT(SettingDefault, value)},
       {"derived", TEXT(SettingDefault, derived)},
       {"roles", SET(SettingDefault){x.roles = strings(v);
}
}
}
}
;
return s;
}

const Setters<EngineSpelling>& engine_spelling_setters() {
  static const Setters<EngineSpelling> s = {
      {"engine-spelling"}, {{"engine", SET(EngineSpelling){x.engine = ref(v, sub(p, f.name));
}
}
, {"versions", TEXT(EngineSpelling, versions)},
    {"flags", SET(EngineSpelling){x.flags = objects(flag_spelling_setters(), f, v, sub(p, f.name));
}
}
, {"env", SET(EngineSpelling){x.env = objects(env_spelling_setters(), f, v, sub(p, f.name));
}
}
, {"json", SET(EngineSpelling){x.json = objects(json_spelling_setters(), f, v, sub(p, f.name));
}
}
, {"keys", SET(EngineSpelling){x.keys = objects(key_spelling_setters(), f, v, sub(p, f.name));
}
}
, {
  "defaults", SET(EngineSpelling) {
    x.defaults = objects(setting_default_setters(), f, v, sub(p, f.name));
  }
}
}
}
;
return s;
}

const Setters<Derivation>& derivation_setters() {
  static const Setters<Derivation> s = {
      {"derivation"},
      {{"value", TEXT(Derivation, value)}, {"roles", SET(Derivation){x.roles = strings(v);
}
}
, {
  "shared", SET(Derivation) {
    x.shared = strings(v);
  }
}
}
}
;
return s;
}

const Setters<SettingValue>& setting_value_setters() {
  static const Setters<SettingValue> s = {
      {"setting-value"},
      {{"value", TEXT(SettingValue, value)}, {"synonyms", SET(SettingValue){x.synonyms = strings(v);
}
}
, {"description", TEXT(SettingValue, description)},
    {"engines", SET(SettingValue){x.engines = refs(v, sub(p, f.name));
}
}
, {"implies", SET(SettingValue){x.implies = key_values(v, sub(p, f.name));
}
}
, {"runs_shipped_engines", SET(SettingValue){x.runs_shipped_engines = truth(v);
}
}
, {"in_names", SET(SettingValue){x.in_names = strings(v);
}
}
, {
  "routed_by", SET(SettingValue) {
    x.routed_by = strings(v);
  }
}
}
}
;
return s;
}

// The fields every record has.
std::vector<std::pair<std::string_view, Set<Record>>> common_setters() {
  return {{"id", SET(Record){}},  // checked against the path
          {"title", TEXT(Record, title)}, {"aliases", SET(Record){x.aliases = strings(v);
}
}
, {"references", SET(Record){x.references = citations(f, v, sub(p, f.name));
}
}
, {
  "notes", TEXT(Record, notes)
}
}
;
}

Setters<Record> record_setters(std::string_view name,
                               std::vector<std::pair<std::string_view, Set<Record>>> own) {
  Setters<Record> s{{name}, common_setters()};
  s.fields.insert(s.fields.end(), own.begin(), own.end());
  return s;
}

const Setters<Record>& gotcha_setters() {
  static const Setters<Record> s = record_setters(
      "gotcha",
      {{"severity", SET(Record) { x.severity = parse_gotcha_severity(scalar(v));
}
}
, {"status", SET(Record){x.status = parse_gotcha_status(scalar(v));
}
}
, {"kind", TEXT(Record, category)}, {"family", TEXT(Record, family)},
    {"created", TEXT(Record, created)}, {"updated", TEXT(Record, updated)},
    {"as_of", TEXT(Record, as_of)}, {"confidence", TEXT(Record, confidence)},
    {"tags", SET(Record){x.tags = strings(v);
}
}
, {"affects", SET(Record){x.affects = engine_refs(engine_range_setters(), f, v, sub(p, f.name));
}
}
, {"applies_when", SET(Record){x.applies_when = read_predicate(v, sub(p, f.name));
}
}
, {"symptom", TEXT(Record, symptom)}, {"root_cause", TEXT(Record, root_cause)},
    {"workaround", TEXT(Record, workaround)},
    {"related", SET(Record){x.related = refs(v, sub(p, f.name));
}
}
, {"oracles", SET(Record){x.oracles = refs(v, sub(p, f.name));
}
}
, {"fixes", SET(Record){x.fixes = objects(fix_chain_setters(), f, v, sub(p, f.name));
}
}
, {"detection", SET(Record){x.detection = object(detection_setters(), f, v, sub(p, f.name));
}
}
, {"impact", SET(Record){x.impact = objects(impact_setters(), f, v, sub(p, f.name));
}
}
, {
  "repairs", SET(Record) {
    x.repairs = objects(repair_setters(), f, v, sub(p, f.name));
  }
}
});
return s;
}

const Setters<Record>& engine_setters() {
  static const Setters<Record> s = record_setters(
      "engine",
      {{"name", TEXT(Record, engine->name)},
       {"repo", TEXT(Record, engine->repo)},
       {"url", TEXT(Record, engine->url)},
       {"description", TEXT(Record, description)},
       {"kind", TEXT(Record, category)},
       {"relations",
        SET(Record) {
          x.engine->relations = objects(relation_setters(), f, v, sub(p, f.name));
}
}
, {"packages", SET(Record){x.engine->packages = objects(package_setters(), f, v, sub(p, f.name));
}
}
, {"images", SET(Record){x.engine->images = objects(image_setters(), f, v, sub(p, f.name));
}
}
, {"entrypoints",
   SET(Record){x.engine->entrypoints = objects(entrypoint_setters(), f, v, sub(p, f.name));
}
}
, {"shell_functions",
   SET(Record){x.engine->shell_functions = objects(shell_function_setters(), f, v, sub(p, f.name));
}
}
, {"resources", SET(Record){x.engine->resources = objects(resource_setters(), f, v, sub(p, f.name));
}
}
, {"charts", SET(Record){x.engine->charts = objects(chart_setters(), f, v, sub(p, f.name));
}
}
, {"probe", SET(Record){x.engine->probe = objects(probe_setters(), f, v, sub(p, f.name));
}
}
, {
  "releases", SET(Record) {
    x.engine->releases = objects(release_setters(), f, v, sub(p, f.name));
  }
}
});
return s;
}

const Setters<Record>& oracle_setters() {
  static const Setters<Record> s = record_setters(
      "oracle",
      {{"method", TEXT(Record, method)},
       {"pass_criterion", TEXT(Record, pass_criterion)},
       {"runner", SET(Record) { x.runner = object(runner_setters(), f, v, sub(p, f.name));
}
}
});
return s;
}

const Setters<Record>& result_setters() {
  static const Setters<Record> s = record_setters(
      "result",
      {{"oracle", SET(Record) { x.result->oracle = ref(v, sub(p, f.name));
}
}
, {"date", TEXT(Record, result->date)},
    {"subject",
     SET(Record){read_fields(subject_setters(), *f.object, x.result->subject, v, sub(p, f.name));
}
}
, {"passed", SET(Record){x.result->passed = integer(scalar(v));
}
}
, {"failed", SET(Record){x.result->failed = integer(scalar(v));
}
}
, {"errors", SET(Record){x.result->errors = integer(scalar(v));
}
}
, {"skipped", SET(Record){x.result->skipped = integer(scalar(v));
}
}
, {"evidence_for", SET(Record){x.result->evidence_for = refs(v, sub(p, f.name));
}
}
, {"source", SET(Record){x.result->source = object(citation_setters(), f, v, sub(p, f.name));
}
}
, {"failures", SET(Record){x.result->failures = objects(failure_setters(), f, v, sub(p, f.name));
}
}
, {
  "incomplete", SET(Record) {
    x.result->incomplete = truth(v);
  }
}
});
return s;
}

const Setters<Record>& setting_setters() {
  static const Setters<Record> s = record_setters(
      "setting",
      {{"key", TEXT(Record, setting->key)},
       {"type", TEXT(Record, setting->type)},
       {"scope", TEXT(Record, setting->scope)},
       {"synonyms", SET(Record) { x.setting->synonyms = strings(v);
}
}
, {"description", TEXT(Record, description)},
    {"values",
     SET(Record){x.setting->values = objects(setting_value_setters(), f, v, sub(p, f.name));
}
}
, {"engines",
   SET(Record){x.setting->engines = objects(engine_spelling_setters(), f, v, sub(p, f.name));
}
}
, {"file_of", SET(Record){x.setting->file_of = ref(v, sub(p, f.name));
}
}
, {
  "derive", SET(Record) {
    x.setting->derive = objects(derivation_setters(), f, v, sub(p, f.name));
  }
}
});
return s;
}

const Setters<Record>& model_setters() {
  static const Setters<Record> s =
      record_setters("model", {{"match", SET(Record) { x.match = strings(v);
}
}
, {
  "traits", SET(Record) {
    x.traits = key_values(v, sub(p, f.name));
  }
}
});
return s;
}

#undef TEXT
#undef SET

const Setters<Record>& setters_of(Kind k) {
  switch (k) {
    case Kind::gotcha:
      return gotcha_setters();
    case Kind::engine:
      return engine_setters();
    case Kind::oracle:
      return oracle_setters();
    case Kind::result:
      return result_setters();
    case Kind::setting:
      return setting_setters();
    case Kind::model:
      return model_setters();
  }
  return gotcha_setters();
}

// The names a structure's setters read, under each table name they read.
using SetterNames = std::vector<std::pair<std::string_view, std::vector<std::string_view>>>;

template <class T>
void add_names(SetterNames& out, const Setters<T>& s) {
  std::vector<std::string_view> names;
  for (const auto& [n, set] : s.fields) names.push_back(n);
  for (std::string_view st : s.structs) out.emplace_back(st, names);
}

SetterNames nested_setter_names() {
  SetterNames out;
  add_names(out, citation_setters());
  add_names(out, engine_range_setters());
  add_names(out, subject_engine_setters());
  add_names(out, fix_chain_setters());
  add_names(out, detection_setters());
  add_names(out, signature_setters());
  add_names(out, shell_function_setters());
  add_names(out, impact_setters());
  add_names(out, repair_setters());
  add_names(out, relation_setters());
  add_names(out, package_setters());
  add_names(out, image_setters());
  add_names(out, entrypoint_setters());
  add_names(out, derivation_setters());
  add_names(out, resource_setters());
  add_names(out, resource_pods_setters());
  add_names(out, chart_setters());
  add_names(out, probe_setters());
  add_names(out, release_setters());
  add_names(out, runner_setters());
  add_names(out, failure_setters());
  add_names(out, subject_setters());
  add_names(out, flag_spelling_setters());
  add_names(out, env_spelling_setters());
  add_names(out, key_spelling_setters());
  add_names(out, json_spelling_setters());
  add_names(out, setting_default_setters());
  add_names(out, engine_spelling_setters());
  add_names(out, setting_value_setters());
  return out;
}

// `setters` against the fields of `table`, both ways.
void compare(const Struct& table, const std::vector<std::string_view>& setters,
             std::vector<std::string>& out) {
  const std::string where = std::string(table.name) + ".";
  for (const Field& f : table.fields) {
    if (std::find(setters.begin(), setters.end(), f.name) == setters.end())
      out.push_back(where + std::string(f.name) + ": in the schema table, but no setter reads it");
  }
  for (std::string_view n : setters) {
    if (!find_field(table, n))
      out.push_back(where + std::string(n) +
                    ": a setter reads it, but the schema table has no such field");
  }
}

}  // namespace

void extract_record(const Node& root, Record& r) {
  const Struct& table = record_struct(r.kind);
  const Setters<Record>& setters = setters_of(r.kind);
  for (const auto& [k, v] : root.entries) {
    if (v.is_null() || !k.is_scalar()) continue;
    const Field* f = find_field(table, k.value);
    if (!f) continue;
    if (Set<Record> set = setters.find(f->name)) set(r, *f, v, "");
  }
  if (r.kind == Kind::setting && r.setting->key.empty()) {
    const std::string slug(text::id_slug(r.id));
    std::string key = slug;
    for (char& c : key) {
      if (c == '-') c = '_';
    }
    r.setting->key = key;
  }
}

std::vector<std::string> extract_drift() {
  std::vector<std::string> out;
  for (Kind k : kAllKinds) {
    SetterNames names;
    add_names(names, setters_of(k));
    compare(record_struct(k), names.front().second, out);
  }
  const SetterNames nested = nested_setter_names();
  const auto& structs = nested_structs();
  for (const Struct* s : structs) {
    auto it = std::find_if(nested.begin(), nested.end(),
                           [&](const auto& n) { return n.first == s->name; });
    if (it == nested.end()) {
      out.push_back(std::string(s->name) +
                    ": a structure of the schema table that no setters read");
      continue;
    }
    compare(*s, it->second, out);
  }
  for (const auto& entry : nested) {
    // Named, not a structured binding: clang 14 (the fuzz build) cannot capture one.
    const auto& name = entry.first;
    if (std::none_of(structs.begin(), structs.end(),
                     [&](const Struct* s) { return s->name == name; }))
      out.push_back(std::string(name) + ": setters for a structure the schema table does not have");
    if (std::count_if(nested.begin(), nested.end(),
                      [&](const auto& n) { return n.first == name; }) > 1)
      out.push_back(std::string(name) + ": read by more than one set of setters");
  }
  return out;
}

}  // namespace kb::schema
