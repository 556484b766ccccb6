// NVIDIA Dynamo's DynamoGraphDeployment: each service (v1alpha1 `spec.services`) or
// component (v1beta1 `spec.components`) is a service whose scalar fields
// (`componentType`, `subComponentType`, `type`) are keys a record may spell.

#include "deploy/manifest.h"
#include "deploy/yaml_docs.h"

namespace kb::deploy {

using yaml::Node;

void Manifest::dynamo(const Node& spec, const std::vector<KeyFact>& keys) {
  std::vector<EnvVar> shared;
  dynamo_envs(spec.find("envs"), shared);
  if (const Node* services = spec.find("services"); services && services->is_map()) {
    for (const auto& [k, svc] : services->entries) {
      if (!k.is_scalar() || !svc.is_map()) continue;
      Process p = dynamo_process(svc, k.value, keys, shared);
      // The service's name (`VllmDecodeWorker`) is the weakest fact of its role.
      p.workload = word(k);
      if (const Node* main = at_path(svc, "extraPodSpec.mainContainer"); main && main->is_map()) {
        if (const Node* image = main->find("image"); image && image->is_scalar())
          p.image = word(*image);
        env(*main, p.env);
        resources(main->find("resources"), p);
        command(main->find("command"), main->find("args"), p);
      }
      interp_.add(p);
    }
  }
  if (const Node* components = spec.find("components"); components && components->is_seq()) {
    for (const Node& comp : components->items) {
      if (!comp.is_map()) continue;
      const std::string name = scalar(comp.find("name"));
      Process base = dynamo_process(comp, name, keys, shared);
      if (const Node* n = comp.find("name"); n && n->is_scalar()) base.workload = word(*n);
      const Node* tmpl = comp.find("podTemplate");
      if (tmpl) labels(tmpl->find("metadata"), base.keys);
      const Node* containers = tmpl ? at_path(*tmpl, "spec.containers") : nullptr;
      if (!containers || !containers->is_seq() || containers->items.empty()) {
        interp_.add(base);
        continue;
      }
      for (const Node& c : containers->items) {
        if (!c.is_map()) continue;
        Process p = base;
        const std::string cname = scalar(c.find("name"));
        if (containers->items.size() > 1 && !cname.empty()) p.name += "/" + cname;
        p.pos = c.pos;
        if (const Node* image = c.find("image"); image && image->is_scalar())
          p.image = word(*image);
        env(c, p.env);
        resources(c.find("resources"), p);
        command(c.find("command"), c.find("args"), p);
        interp_.add(p);
      }
    }
  }
}

Process Manifest::dynamo_process(const Node& svc, const std::string& name,
                                 const std::vector<KeyFact>& keys,
                                 const std::vector<EnvVar>& shared) {
  Process p;
  p.file = in_.file;
  p.name = name;
  p.pos = svc.pos;
  p.keys = keys;
  for (const auto& [k, v] : svc.entries) {
    if (k.is_scalar() && v.is_scalar()) {
      p.keys.push_back({k.value, v.value, in_.file, k.pos, scalar_end(v, in_.text), k.value});
    }
  }
  p.env = shared;
  dynamo_envs(svc.find("envs"), p.env);
  if (const Node* secret = svc.find("envFromSecret"); secret && secret->is_scalar()) {
    out_.unread.push_back(
        {in_.file, secret->pos, "envFromSecret " + secret->value, "secrets are not read"});
  }
  resources(svc.find("resources"), p);
  return p;
}

void Manifest::dynamo_envs(const Node* list, std::vector<EnvVar>& out) {
  if (!list || !list->is_seq()) return;
  for (const Node& e : list->items) {
    const std::string name = scalar(e.find("name"));
    if (name.empty()) continue;
    const Node* value = e.find("value");
    EnvVar v{name,     scalar(value),       !value,
             in_.file, e.find("name")->pos, value ? scalar_end(*value, in_.text) : Pos{},
             "envs"};
    if (const Node* from = e.find("valueFrom"); from && from->is_map()) value_from(*from, v);
    out.push_back(std::move(v));
  }
}

}  // namespace kb::deploy
