// Reading the two inputs of `kb check` a user writes: the deployment and the ignore file.

#include <algorithm>
#include <string>
#include <unordered_set>
#include <vector>

#include "check/check_input.h"
#include "core/text_util.h"
#include "kb/check.h"
#include "kb/diagnostic_codes.h"
#include "kb/suggest.h"
#include "kb/version.h"

namespace kb {
namespace {

using yaml::Node;

const std::vector<std::string> kDeploymentKeys = {"engines",  "config", "model",      "hardware",
                                                  "services", "name",   "description"};
const std::vector<std::string> kServiceKeys = {"name",  "role",     "engines",    "config",
                                               "model", "hardware", "description"};
const std::vector<std::string> kEngineKeys = {"engine", "version"};
const std::vector<std::string> kIgnoreKeys = {"id", "reason", "expires", "paths"};

// What each service's copy of the shared engines and settings costs (effective_services()
// gives every service one): their text and 64 bytes a string.
std::size_t shared_cost(const Deployment& d) {
  constexpr std::size_t kPerString = 64;
  std::size_t n = d.model.size() + kPerString;
  for (const DeployedEngine& e : d.engines) n += 4 * kPerString + e.name.size() + e.version.size();
  for (const Setting& c : d.config) n += 4 * kPerString + c.key.size() + 2 * c.value.size();
  return n;
}

class DeploymentReader {
 public:
  DeploymentReader(InputDiagnostics& out, Deployment& d, std::size_t text_bytes)
      : out_(out), d_(d), text_bytes_(text_bytes) {}

  void read(const Node& root) {
    if (!out_.expect_map(root, "the deployment", "engines: [{engine: vllm, version: 0.26.0}]")) {
      return;
    }
    if (!kb_format(root)) return;
    Part shared;
    const Node* services = nullptr;
    for (const auto& [k, v] : root.entries) {
      if (!out_.expect_key(k)) continue;
      if (k.value == "services")
        services = &v;
      else if (!read_part(k, v, "", shared) && k.value != "name" && k.value != "description")
        out_.unknown_key(k, "", kDeploymentKeys);
    }
    d_.engines = std::move(shared.engines);
    d_.config = std::move(shared.config);
    d_.model = shared.model;
    d_.model_pos = shared.model_pos;
    if (services) read_services(*services);
    // Every service gets a copy of what the deployment shares: a budget proportional to
    // the input, so that many services times many shared settings cannot multiply it.
    const std::size_t budget = yaml::expansion_budget(yaml::Limits{}, text_bytes_);
    if (services && !d_.services.empty() && shared_cost(d_) > budget / d_.services.size()) {
      out_.add(Severity::error, diag_code("limits.expansion"), services->pos,
               std::to_string(d_.services.size()) +
                   " services each get a copy of the shared engines and config: more than the "
                   "input's budget of " +
                   std::to_string(budget) + " bytes (16x its size, at least 1 MiB)",
               "give each service its own config, or share less");
      d_.services.clear();
    }
    if (d_.engines.empty() && d_.config.empty() && d_.services.empty() && out_.error_count() == 0) {
      out_.add(Severity::warning, diag_code("check.empty-deployment"), root.pos,
               "the deployment names no engines and no configuration, so nothing can apply",
               "engines: [{engine: vllm, version: 0.26.0}]");
    }
  }

 private:
  // Whether `root` is written in kb's format. A file with none of engines, services,
  // config or hardware that holds a key kb does not know is another program's file (an
  // engine's --config / --extra_llm_api_options YAML, which may well say `model:`, an
  // LMCache config, a disaggregation config): read as kb's, it would be a deployment of
  // nothing and pass with 0 findings. It is refused (exit 2) instead; an unknown key
  // beside kb's own stays a warning (or an error when it looks like a typo).
  bool kb_format(const Node& root) {
    bool defining = false;
    std::vector<const Node*> unknown;
    for (const auto& [k, v] : root.entries) {
      if (!k.is_scalar()) continue;
      if (k.value == "engines" || k.value == "services" || k.value == "config" ||
          k.value == "hardware") {
        defining = true;
      }
      if (std::find(kDeploymentKeys.begin(), kDeploymentKeys.end(), k.value) ==
          kDeploymentKeys.end()) {
        // `engine:` for `engines:` is kb's format with a typo, said as such below.
        if (did_you_mean(k.value, kDeploymentKeys)) defining = true;
        unknown.push_back(&k);
      }
    }
    if (defining || unknown.empty()) return true;
    std::string keys;
    for (std::size_t i = 0; i < unknown.size() && i < 5; ++i) {
      keys += (i ? ", " : "") + unknown[i]->value;
    }
    if (unknown.size() > 5) keys += ", ...";
    out_.add(Severity::error, diag_code("deploy.unknown-kind"), unknown.front()->pos,
             "not a deployment kb reads: it names no engines, services, config or hardware, and "
             "its keys (" +
                 keys + ") are not kb's deployment format",
             "if an engine reads this file (a --config or --extra_llm_api_options file, a "
             "disaggregation config), check the script or manifest that starts the engine; a "
             "hand-written deployment starts with engines: [{engine: vllm, version: 0.26.0}]");
    return false;
  }

  // What a deployment and a service both hold.
  struct Part {
    std::vector<DeployedEngine> engines;
    std::vector<Setting> config;
    std::string model;
    Pos model_pos;
  };

  // Reads `k: v` into `part` when `k` is one of engines, config, model, hardware.
  bool read_part(const Node& k, const Node& v, const std::string& prefix, Part& part) {
    if (k.value == "engines")
      read_engines(v, prefix, part.engines);
    else if (k.value == "config")
      read_config(v, prefix + "config", part.config);
    else if (k.value == "hardware")
      read_config(v, prefix + "hardware", part.config);
    else if (k.value == "model")
      read_model(v, prefix, part);
    else
      return false;
    return true;
  }

  void read_model(const Node& v, const std::string& prefix, Part& part) {
    if (v.is_null()) return;
    if (v.is_scalar()) {
      part.model = std::string(text::trim(v.value));
      part.model_pos = v.pos;
      return;
    }
    if (!v.is_map()) {
      out_.add(Severity::error, diag_code("check.type"), v.pos,
               prefix + "model: expected a model id or {id: ..., TRAIT: VALUE}, found " +
                   std::string(yaml::type_name(v)),
               "model: {id: Qwen/Qwen3-8B}");
      return;
    }
    Node traits = v;
    traits.entries.clear();
    for (const auto& [k, val] : v.entries) {
      if (k.is_scalar() && k.value == "id") {
        if (out_.expect_scalar(val, prefix + "model.id")) {
          part.model = std::string(text::trim(val.value));
          part.model_pos = val.pos;
        }
      } else {
        traits.entries.emplace_back(k, val);
      }
    }
    read_config(traits, prefix + "model", part.config);
  }

  void read_services(const Node& v) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      out_.add(Severity::error, diag_code("check.type"), v.pos,
               "services: expected a list, found " + std::string(yaml::type_name(v)),
               "services: [{name: prefill, role: prefill, config: {...}}]");
      return;
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      const Node& item = v.items[i];
      const std::string field = "services[" + std::to_string(i) + "]";
      if (!out_.expect_map(item, field, "{name: decode, role: decode}")) continue;
      Service svc;
      svc.pos = item.pos;
      svc.file = d_.file;
      svc.name = std::to_string(i);
      Part part;
      for (const auto& [k, val] : item.entries) {
        if (!out_.expect_key(k)) continue;
        if (k.value == "name") {
          if (out_.expect_scalar(val, field + ".name"))
            svc.name = std::string(text::trim(val.value));
        } else if (k.value == "role") {
          if (out_.expect_scalar(val, field + ".role")) {
            Setting role{std::string(service_role::kKey), std::string(text::trim(val.value)),
                         k.pos};
            part.config.push_back(std::move(role));
          }
        } else if (!read_part(k, val, field + ".", part) && k.value != "description") {
          out_.unknown_key(k, field + ".", kServiceKeys);
        }
      }
      svc.engines = std::move(part.engines);
      svc.config = std::move(part.config);
      svc.model = part.model;
      svc.model_pos = part.model_pos;
      d_.services.push_back(std::move(svc));
    }
  }

  void read_engines(const Node& v, const std::string& prefix, std::vector<DeployedEngine>& out) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      out_.add(Severity::error, diag_code("check.type"), v.pos,
               prefix + "engines: expected a list, found " + std::string(yaml::type_name(v)),
               "engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}]");
      return;
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      read_engine(v.items[i], prefix + "engines[" + std::to_string(i) + "]", out);
    }
  }

  void read_engine(const Node& v, const std::string& field, std::vector<DeployedEngine>& out) {
    DeployedEngine e;
    e.pos = v.pos;
    if (v.is_scalar()) {
      e.name = std::string(text::trim(v.value));
    } else if (v.is_map()) {
      const Node* name = nullptr;
      const Node* version = nullptr;
      for (const auto& [k, val] : v.entries) {
        if (!out_.expect_key(k)) continue;
        if (k.value == "engine")
          name = &val;
        else if (k.value == "version")
          version = &val;
        else
          out_.unknown_key(k, field + ".", kEngineKeys);
      }
      if (name) {
        e.pos = name->pos;
        if (!out_.expect_scalar(*name, field + ".engine")) return;
        e.name = std::string(text::trim(name->value));
      }
      if (version && !version->is_null() && out_.expect_scalar(*version, field + ".version")) {
        read_version(*version, field, e);
      }
    } else if (!v.is_null()) {
      out_.add(Severity::error, diag_code("check.type"), v.pos,
               field + ": expected {engine: NAME, version: VERSION}, found " +
                   std::string(yaml::type_name(v)));
      return;
    }
    if (e.name.empty()) {
      out_.add(Severity::error, diag_code("check.missing-engine"), e.pos,
               field + ": no engine name", "write {engine: vllm, version: 0.26.0}");
      return;
    }
    out.push_back(std::move(e));
  }

  void read_version(const Node& v, const std::string& field, DeployedEngine& e) {
    e.version = std::string(text::trim(v.value));
    e.version_pos = v.pos;
    if (auto parsed = Version::parse_or_error(v.value); !parsed.value) {
      out_.add(Severity::error, diag_code("version.invalid"),
               yaml::value_pos(v, parsed.error.offset), field + ".version: " + parsed.error.message,
               "write the exact version that runs, such as 0.26.0 or 0.27.1rc2");
    }
  }

  void read_config(const Node& v, const std::string& field, std::vector<Setting>& out) {
    if (v.is_null()) return;
    if (!v.is_map()) {
      out_.add(Severity::error, diag_code("check.type"), v.pos,
               field + ": expected a mapping of keys to values, found " +
                   std::string(yaml::type_name(v)),
               field + ": {prefix_caching: true}");
      return;
    }
    std::unordered_set<std::string> seen;
    for (const auto& [k, val] : v.entries) {
      if (!out_.expect_key(k)) continue;
      if (val.is_seq() || val.is_map()) {
        out_.add(Severity::error, diag_code("check.nested-config"), val.pos,
                 field + "." + k.value + ": expected a single value, found " +
                     std::string(yaml::type_name(val)),
                 "the configuration is flat: write each setting as its own key, such as "
                 "`" +
                     k.value + ".field: value`");
        continue;
      }
      if (!seen.insert(k.value).second) continue;  // yaml.duplicate-key reported it
      Setting st{k.value, val.is_null() ? std::string() : val.value, k.pos};
      st.raw_key = st.key;
      st.raw_value = st.value;
      out.push_back(std::move(st));
    }
  }

  InputDiagnostics& out_;
  Deployment& d_;
  std::size_t text_bytes_;
};

class IgnoreReader {
 public:
  IgnoreReader(InputDiagnostics& out, IgnoreList& list) : out_(out), list_(list) {}

  void read(const Node& root) {
    const char* example = "ignore: [{id: gotchas/x, reason: \"...\", expires: 2027-01-01}]";
    if (!out_.expect_map(root, "the ignore file", example)) return;
    const Node* entries = nullptr;
    for (const auto& [k, v] : root.entries) {
      if (!out_.expect_key(k)) continue;
      if (k.value == "ignore")
        entries = &v;
      else
        out_.unknown_key(k, "", {"ignore"});
    }
    if (!entries || entries->is_null()) return;
    if (!entries->is_seq()) {
      out_.add(Severity::error, diag_code("check.type"), entries->pos,
               "ignore: expected a list, found " + std::string(yaml::type_name(*entries)), example);
      return;
    }
    for (std::size_t i = 0; i < entries->items.size(); ++i) {
      read_entry(entries->items[i], "ignore[" + std::to_string(i) + "]");
    }
  }

 private:
  void read_entry(const Node& v, const std::string& field) {
    if (!out_.expect_map(v, field, "{id: gotchas/x, reason: \"...\", expires: 2027-01-01}")) {
      return;
    }
    IgnoreEntry e;
    e.pos = v.pos;
    bool ok = true;
    for (const auto& [k, val] : v.entries) {
      if (!out_.expect_key(k)) continue;
      if (k.value == "paths") {
        if (val.is_scalar()) {
          e.paths.push_back(std::string(text::trim(val.value)));
        } else if (val.is_seq()) {
          for (const Node& item : val.items) {
            if (out_.expect_scalar(item, field + ".paths"))
              e.paths.push_back(std::string(text::trim(item.value)));
          }
        } else if (!val.is_null()) {
          out_.add(Severity::error, diag_code("check.type"), val.pos,
                   field + ".paths: expected a list of paths", "paths: [deploy/prod/*.yaml]");
        }
        continue;
      }
      std::string* target = k.value == "id"        ? &e.id
                            : k.value == "reason"  ? &e.reason
                            : k.value == "expires" ? &e.expires
                                                   : nullptr;
      if (!target) {
        out_.unknown_key(k, field + ".", kIgnoreKeys);
      } else if (!val.is_null() && out_.expect_scalar(val, field + "." + k.value)) {
        *target = std::string(text::trim(val.value));
      }
    }
    if (e.id.empty()) {
      out_.add(Severity::error, diag_code("check.ignore-missing-id"), v.pos,
               field + ": no gotcha id", "write id: gotchas/NAME");
      ok = false;
    }
    if (e.reason.empty()) {
      out_.add(Severity::error, diag_code("check.ignore-missing-reason"), v.pos,
               field + ": an ignore needs a reason",
               "say why this gotcha does not apply, so the next reader can judge");
      ok = false;
    }
    if (!e.expires.empty() && !text::valid_date(e.expires)) {
      out_.add(Severity::error, diag_code("check.ignore-bad-date"), v.find("expires")->pos,
               field + ".expires: '" + e.expires + "' is not a date", "write YYYY-MM-DD");
      ok = false;
    }
    if (ok) list_.entries.push_back(std::move(e));
  }

  InputDiagnostics& out_;
  IgnoreList& list_;
};

}  // namespace

const Setting* Deployment::find(std::string_view key) const {
  for (const Setting& s : config) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

const Setting* Service::find(std::string_view key) const {
  for (const Setting& s : config) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::vector<Service> Deployment::effective_services() const {
  std::vector<Service> out = services;
  if (out.empty()) {
    Service s;
    s.file = file;
    out.push_back(std::move(s));
  }
  for (Service& s : out) {
    for (const DeployedEngine& e : engines) {
      const bool has =
          std::any_of(s.engines.begin(), s.engines.end(), [&](const DeployedEngine& x) {
            return !x.id.empty() && !e.id.empty() ? x.id == e.id : x.name == e.name;
          });
      if (!has) s.engines.push_back(e);
    }
    for (const Setting& c : config) {
      if (!s.find(c.key)) s.config.push_back(c);
    }
    if (s.model.empty()) {
      s.model = model;
      s.model_pos = model_pos;
    }
  }
  return out;
}

Deployment parse_deployment(std::string_view text, const std::string& file,
                            std::vector<Diagnostic>& diags) {
  Deployment d;
  d.file = file;
  InputDiagnostics out(file, diags);
  yaml::Node root;
  if (out.parse(text, root)) DeploymentReader(out, d, text.size()).read(root);
  return d;
}

IgnoreList parse_ignore_file(std::string_view text, const std::string& file,
                             std::vector<Diagnostic>& diags) {
  IgnoreList list;
  list.file = file;
  InputDiagnostics out(file, diags);
  yaml::Node root;
  if (out.parse(text, root)) IgnoreReader(out, list).read(root);
  return list;
}

}  // namespace kb
