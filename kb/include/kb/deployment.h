#pragma once

// What `kb check` is asked about: a deployment of one or more services, each with a role,
// the engines it runs (with versions), its settings, and its model -- every fact with the
// file, line and column it came from.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb {

/// Largest deployment or ignore file accepted.
inline constexpr std::size_t kMaxDeploymentBytes = 1u << 20;

/// Where a fact about a deployment came from.
struct Origin {
  std::string file;  ///< the input, as given ("-" for stdin)
  Pos pos;           ///< 0 when the fact is derived (a default, a model trait)
  std::string
      via;  ///< how it was spelled: "--enable-prefix-caching", "image vllm/vllm-openai:v0.26.0"
};

/// One engine a service runs.
struct DeployedEngine {
  std::string name;     ///< as written: "vLLM", "kvcache-ai/Mooncake", a GitHub URL
  std::string version;  ///< as written; empty when not known
  Pos pos;              ///< of the name
  Pos version_pos;      ///< of the version, when given
  std::string id;       ///< the engine record it resolves to; set when checked
  std::string file;     ///< the input it was read from; empty: the deployment's file
  std::string via;      ///< how it was recognised, when not named directly
  Pos end;              ///< just past the text it was recognised by; 0 when not known
  /// A plugin an image ships beside the engine it plugs into (LMCache in
  /// lmcache/vllm-openai): it runs only when a setting enables it (a value whose
  /// `engines` name it, such as kv_connector: lmcache); else it is dropped when checked.
  bool needs_enabling = false;
};

/// One setting of a service; after checking, `key` is the canonical key and `value` the
/// normalised value, and `raw_key` / `raw_value` keep what was written.
struct Setting {
  std::string key;
  std::string value;  ///< empty for a null value
  Pos pos;            ///< of the key (or the flag, the variable)
  std::string file;   ///< the input; empty: the deployment's file
  std::string via;    ///< "--no-enable-prefix-caching", "env VLLM_BATCH_INVARIANT", ...
  std::string raw_key;
  std::string raw_value;
  std::string setting;   ///< the settings record, when known ("settings/prefix-caching")
  bool derived = false;  ///< implied by another fact (a connector's engine, a model's trait)
  /// Set when the service starts (a secret, a pod's own address): it is set, but its
  /// value is not known, so tests of its value are unknown.
  bool runtime = false;
  Pos end;  ///< just past the text it was read from; 0 when not known
  /// When `runtime`: the values it may take (normalised), when the input bounds them (an
  /// entry point's implied value for some versions of an engine whose version is unknown,
  /// else the default); empty: any value.
  std::vector<std::string> one_of;
  /// A value meaning several at once (a MultiConnector, `--connector kvbm nixl`): the
  /// values of its parts (normalised). A test that a value is (or is not) among some
  /// values sees the parts too: a NixlConnector child is a NIXL connector.
  std::vector<std::string> parts;
};

/// Something an input says that kb did not map to a fact: shown, never a finding.
struct Unread {
  std::string file;
  Pos pos;
  std::string text;  ///< "--max-model-len 8192", "torch==2.9.0"
  std::string why;   ///< "no settings record spells this flag"
};

/// One process or pool of a deployment.
struct Service {
  std::string name;  ///< "prefill", a container or compose service name; "" for a flat file
  /// A value of the `role` settings record: prefill, decode, both, router, ...
  std::string role = std::string(service_role::kBoth);
  Pos pos;
  std::string file;
  std::vector<DeployedEngine> engines;
  std::vector<Setting> config;  ///< keys unique
  std::string model;            ///< model id, when known
  Pos model_pos;
  /// The models/ record its traits come from ("models/qwen3"); empty when no record
  /// matches the model (or it is not named): its traits are then unknown, not absent.
  std::string model_record;
  /// The serving graph it belongs to among the services read together ("1", "2", ...):
  /// prefill and decode pair only within one. Empty: the deployment's only graph.
  std::string group;

  /// The setting with this key, or nullptr.
  const Setting* find(std::string_view key) const;
};

/// A whole deployment. A flat file (engines and config at the top) is one service of role
/// `both`; with `services`, the top-level engines, config and model are shared by each.
struct Deployment {
  std::string file;  ///< as given, for diagnostics
  std::vector<DeployedEngine> engines;
  std::vector<Setting> config;  ///< in file order, keys unique
  std::string model;
  Pos model_pos;
  std::vector<Service> services;
  std::vector<Unread> not_understood;

  /// The shared setting with this key, or nullptr.
  const Setting* find(std::string_view key) const;
  /// The services as checked: `services` with the shared facts merged in (a service's
  /// own value wins), or one service of role `both` holding the shared facts.
  std::vector<Service> effective_services() const;
};

/// Parses a deployment written in YAML or JSON (the hand-written format). Always returns
/// what could be read; problems become diagnostics, errors among them meaning the input is
/// unusable.
Deployment parse_deployment(std::string_view text, const std::string& file,
                            std::vector<Diagnostic>& diags);

}  // namespace kb
