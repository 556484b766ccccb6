#pragma once

// A Kubernetes input being read: its ConfigMaps, and how a container (image, command,
// args, env, resources, labels) becomes a Process. Workloads are read in
// read_kubernetes.cpp, Dynamo's graph deployments in read_dynamo.cpp.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "deploy/command.h"
#include "yaml/yaml_tree.h"

namespace kb::deploy {

/// The scalar text of `n`, or "" when it is none.
std::string scalar(const yaml::Node* n);

class Manifest {
 public:
  Manifest(const DeployInput& in, const Context& ctx, Facts& out);
  /// Reads every document: ConfigMaps first, then workloads.
  void read(const std::vector<yaml::Node>& docs);

 private:
  using Node = yaml::Node;
  struct ConfigEntry {
    std::string value;
    Pos pos;
    Pos end;
  };

  void collect_config_maps(const Node& d);
  Word word(const Node& n) const;
  /// A container's image: `image: REF`, or `image: {repository, tag}` as operators write it.
  std::optional<Word> image_of(const Node& c) const;
  /// Labels as keys a record may spell (`llm-d.ai/role: decode`).
  void labels(const Node* metadata, std::vector<KeyFact>& keys, const char* what = "label") const;
  void document(const Node& d, std::size_t index);
  /// A resource kb has no rule for: every pod spec (a mapping with `containers`) in it.
  void generic(const Node& n, const std::string& name, const std::vector<KeyFact>& keys);
  void pod_template(const Node* t, const std::string& name, std::vector<KeyFact> keys);
  void pod(const Node& spec, const std::string& name, std::vector<KeyFact> keys);
  void container(const Node& c, const std::string& pod_name, bool suffix,
                 const std::vector<KeyFact>& keys, bool init);
  void command(const Node* cmd, const Node* args, Process& p);
  void resources(const Node* r, Process& p);
  void env(const Node& c, std::vector<EnvVar>& out);
  void value_from(const Node& from, EnvVar& v);
  /// A resource an engine record declares (`resources:`, read_platform.cpp).
  void platform(const Node& d, const Record& engine, const PlatformResource& res,
                const std::string& name, const std::vector<KeyFact>& keys);
  void platform_walk(const Node& n, std::vector<std::string>& path, const std::string& name,
                     const std::vector<KeyFact>& keys);
  /// `lone`: the node at a rule's path is one container (`image`, `command`, ...), not a
  /// pod spec: AIBrix's KVCache `spec.cache`.
  void platform_pod(const Node& spec, const std::vector<std::string>& path, const std::string& name,
                    const std::vector<KeyFact>& keys, const Node* lone = nullptr);
  /// `keys` and the fields of the pool the pod at `path` belongs to that are settings
  /// (the record's `pool_keys`); a field no record spells is listed as not understood.
  std::vector<KeyFact> pool_keys(const std::vector<std::string>& path,
                                 const std::vector<KeyFact>& keys);
  /// What the platform says of a container of the pod being read, when it runs engines.
  void platform_container(const Node& c, Process& p);
  /// Dynamo's graph (read_dynamo.cpp).
  void dynamo(const Node& spec, const std::vector<KeyFact>& keys);
  Process dynamo_process(const Node& svc, const std::string& name, const std::vector<KeyFact>& keys,
                         const std::vector<EnvVar>& shared);
  void dynamo_envs(const Node* list, std::vector<EnvVar>& out);

  const DeployInput& in_;
  const Context& ctx_;
  Facts& out_;
  Interpreter interp_;
  std::map<std::string, std::map<std::string, ConfigEntry>> config_maps_;
  /// The platform resource being read, and what it says of the pod being read.
  struct Platform {
    const Node* root = nullptr;
    const Record* engine = nullptr;
    const PlatformResource* res = nullptr;
    Word model;
    Word role;
    std::string role_via;
    /// Each pool's fields that are settings (pool_keys), read once per resource, and what
    /// a copy of them costs: every pod of the pool takes them.
    std::map<std::string, std::pair<std::vector<KeyFact>, std::size_t>> pool_fields;
  } platform_;
  Word workload_;  ///< the name of the workload being read, for Process::workload
};

}  // namespace kb::deploy
