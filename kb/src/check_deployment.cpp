// Reading the two inputs of `kb check` a user writes: the deployment and the ignore file.

#include <string>
#include <unordered_set>
#include <vector>

#include "check_input.h"
#include "kb/check.h"
#include "kb/version.h"
#include "text_util.h"

namespace kb {
namespace {

using yaml::Node;

const std::vector<std::string> kDeploymentKeys = {"engines", "config", "name", "description"};
const std::vector<std::string> kEngineKeys = {"engine", "version"};
const std::vector<std::string> kIgnoreKeys = {"id", "reason", "expires"};

class DeploymentReader {
 public:
  DeploymentReader(InputDiagnostics& out, Deployment& d) : out_(out), d_(d) {}

  void read(const Node& root) {
    if (!out_.expect_map(root, "the deployment", "engines: [{engine: vllm, version: 0.26.0}]")) {
      return;
    }
    const Node* engines = nullptr;
    const Node* config = nullptr;
    for (const auto& [k, v] : root.entries) {
      if (!out_.expect_key(k)) continue;
      if (k.value == "engines")
        engines = &v;
      else if (k.value == "config")
        config = &v;
      else if (k.value != "name" && k.value != "description")
        out_.unknown_key(k, "", kDeploymentKeys);
    }
    if (engines) read_engines(*engines);
    if (config) read_config(*config);
    if (d_.engines.empty() && d_.config.empty() && out_.error_count() == 0) {
      out_.add(Severity::warning, "check.empty-deployment", root.pos,
               "the deployment names no engines and no configuration, so nothing can apply",
               "engines: [{engine: vllm, version: 0.26.0}]");
    }
  }

 private:
  void read_engines(const Node& v) {
    if (v.is_null()) return;
    if (!v.is_seq()) {
      out_.add(Severity::error, "check.type", v.pos,
               "engines: expected a list, found " + std::string(yaml::type_name(v)),
               "engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}]");
      return;
    }
    for (std::size_t i = 0; i < v.items.size(); ++i) {
      read_engine(v.items[i], "engines[" + std::to_string(i) + "]");
    }
  }

  void read_engine(const Node& v, const std::string& field) {
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
      out_.add(Severity::error, "check.type", v.pos,
               field + ": expected {engine: NAME, version: VERSION}, found " +
                   std::string(yaml::type_name(v)));
      return;
    }
    if (e.name.empty()) {
      out_.add(Severity::error, "check.missing-engine", e.pos, field + ": no engine name",
               "write {engine: vllm, version: 0.26.0}");
      return;
    }
    d_.engines.push_back(std::move(e));
  }

  void read_version(const Node& v, const std::string& field, DeployedEngine& e) {
    e.version = std::string(text::trim(v.value));
    e.version_pos = v.pos;
    std::string error;
    if (!Version::parse(e.version, &error)) {
      out_.add(Severity::error, "version.invalid", v.pos, field + ".version: " + error,
               "write the exact version that runs, such as 0.26.0 or 0.27.1rc2");
    }
  }

  void read_config(const Node& v) {
    if (v.is_null()) return;
    if (!v.is_map()) {
      out_.add(
          Severity::error, "check.type", v.pos,
          "config: expected a mapping of keys to values, found " + std::string(yaml::type_name(v)),
          "config: {kv_transfer: pd, VLLM_BATCH_INVARIANT: 1}");
      return;
    }
    std::unordered_set<std::string> seen;
    for (const auto& [k, val] : v.entries) {
      if (!out_.expect_key(k)) continue;
      if (val.is_seq() || val.is_map()) {
        out_.add(Severity::error, "check.nested-config", val.pos,
                 "config." + k.value + ": expected a single value, found " +
                     std::string(yaml::type_name(val)),
                 "the configuration is flat: write each setting as its own key, such as "
                 "`" +
                     k.value + ".field: value`");
        continue;
      }
      if (!seen.insert(k.value).second) continue;  // yaml.duplicate-key reported it
      d_.config.push_back({k.value, val.is_null() ? std::string() : val.value, k.pos});
    }
  }

  InputDiagnostics& out_;
  Deployment& d_;
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
      out_.add(Severity::error, "check.type", entries->pos,
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
      out_.add(Severity::error, "check.ignore-missing-id", v.pos, field + ": no gotcha id",
               "write id: gotchas/NAME");
      ok = false;
    }
    if (e.reason.empty()) {
      out_.add(Severity::error, "check.ignore-missing-reason", v.pos,
               field + ": an ignore needs a reason",
               "say why this gotcha does not apply, so the next reader can judge");
      ok = false;
    }
    if (!e.expires.empty() && !text::valid_date(e.expires)) {
      out_.add(Severity::error, "check.ignore-bad-date", v.find("expires")->pos,
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

Deployment parse_deployment(std::string_view text, const std::string& file,
                            std::vector<Diagnostic>& diags) {
  Deployment d;
  d.file = file;
  InputDiagnostics out(file, diags);
  yaml::Node root;
  if (out.parse(text, root)) DeploymentReader(out, d).read(root);
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
