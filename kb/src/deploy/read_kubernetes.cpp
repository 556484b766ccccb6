// Kubernetes manifests, one or many documents (`helm template` output included): the
// containers of Pods, Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs
// and LeaderWorkerSets (leader and worker templates), NVIDIA Dynamo's
// DynamoGraphDeployment (v1alpha1 `spec.services`, v1beta1 `spec.components`), and any
// other resource holding pod specs. ConfigMaps of the same input resolve
// `configMapKeyRef` and `envFrom`.

#include <algorithm>
#include <map>

#include "deploy/catalog.h"
#include "deploy/manifest.h"
#include "deploy/yaml_docs.h"

namespace kb::deploy {
using yaml::Node;

std::string scalar(const Node* n) {
  return n && n->is_scalar() ? n->value : std::string();
}

Manifest::Manifest(const DeployInput& in, const Context& ctx, Facts& out)
    : in_(in), ctx_(ctx), out_(out), interp_(ctx, out, in.text) {}

void Manifest::read(const std::vector<Node>& docs) {
  for (const Node& d : docs) collect_config_maps(d);
  for (std::size_t i = 0; i < docs.size(); ++i) document(docs[i], i);
}

void Manifest::collect_config_maps(const Node& d) {
  if (scalar(d.find("kind")) == "List") {
    if (const Node* items = d.find("items"); items && items->is_seq()) {
      for (const Node& item : items->items) collect_config_maps(item);
    }
    return;
  }
  if (scalar(d.find("kind")) != "ConfigMap") return;
  const std::string name = scalar(at_path(d, "metadata.name"));
  const Node* data = d.find("data");
  if (!data || !data->is_map()) return;
  for (const auto& [k, v] : data->entries) {
    if (k.is_scalar() && v.is_scalar()) {
      config_maps_[name][k.value] = {v.value, k.pos, scalar_end(v, in_.text)};
    }
  }
}

Word Manifest::word(const Node& n) const {
  return Word{n.value, n.pos, scalar_end(n, in_.text)};
}

// Labels as keys a record may spell (`llm-d.ai/role: decode`).
void Manifest::labels(const Node* metadata, std::vector<KeyFact>& keys, const char* what) const {
  const Node* l = metadata ? metadata->find("labels") : nullptr;
  if (!l || !l->is_map()) return;
  for (const auto& [k, v] : l->entries) {
    if (k.is_scalar() && v.is_scalar()) {
      keys.push_back({k.value, v.value, in_.file, k.pos, scalar_end(v, in_.text),
                      std::string(what) + " " + k.value});
    }
  }
}

void Manifest::document(const Node& d, std::size_t index) {
  if (!d.is_map()) return;
  const std::string kind = scalar(d.find("kind"));
  if (kind == "List") {
    if (const Node* items = d.find("items"); items && items->is_seq()) {
      for (std::size_t i = 0; i < items->items.size(); ++i) document(items->items[i], i);
    }
    return;
  }
  std::string name = scalar(at_path(d, "metadata.name"));
  workload_ = Word{};
  if (const Node* n = at_path(d, "metadata.name"); n && n->is_scalar()) workload_ = word(*n);
  if (name.empty()) name = (kind.empty() ? "document" : kind) + "#" + std::to_string(index + 1);
  std::vector<KeyFact> keys;
  labels(d.find("metadata"), keys);
  const Node* spec = d.find("spec");
  if (!spec || !spec->is_map()) return;
  if (kind == "Pod") {
    pod(*spec, name, keys);
  } else if (kind == "Deployment" || kind == "StatefulSet" || kind == "DaemonSet" ||
             kind == "ReplicaSet" || kind == "Job" || kind == "ReplicationController") {
    pod_template(spec->find("template"), name, keys);
  } else if (kind == "CronJob") {
    pod_template(at_path(*spec, "jobTemplate.spec.template"), name, keys);
  } else if (kind == "LeaderWorkerSet") {
    const Node* lwt = spec->find("leaderWorkerTemplate");
    const Node* leader = lwt ? lwt->find("leaderTemplate") : nullptr;
    const Node* worker = lwt ? lwt->find("workerTemplate") : nullptr;
    if (leader) pod_template(leader, name + "/leader", keys);
    if (worker) pod_template(worker, leader ? name + "/worker" : name, keys);
  } else if (kind == "DynamoGraphDeployment") {
    dynamo(*spec, keys);
  } else if (auto [engine, res] = ctx_.catalog.resource(kind, scalar(d.find("apiVersion"))); res) {
    platform(d, *engine, *res, name, keys);
  } else {
    generic(*spec, name, keys);
  }
}

// A resource kb has no rule for: every pod spec (a mapping with `containers`) in it.
void Manifest::generic(const Node& n, const std::string& name, const std::vector<KeyFact>& keys) {
  if (n.is_map()) {
    const Node* containers = n.find("containers");
    if (containers && containers->is_seq()) {
      pod(n, name, keys);
      return;
    }
    for (const auto& [k, v] : n.entries) {
      if (k.is_scalar() && k.value == "template" && v.is_map() && !v.find("containers")) {
        pod_template(&v, name, keys);
      } else {
        generic(v, name, keys);
      }
    }
  } else if (n.is_seq()) {
    for (const Node& item : n.items) generic(item, name, keys);
  }
}

void Manifest::pod_template(const Node* t, const std::string& name, std::vector<KeyFact> keys) {
  if (!t || !t->is_map()) return;
  labels(t->find("metadata"), keys);
  const Node* spec = t->find("spec");
  if (!spec || !spec->is_map()) return;
  // A template of templates (AIBrix's StormService: `spec.roles[].template`).
  const Node* containers = spec->find("containers");
  if (containers && containers->is_seq()) {
    pod(*spec, name, keys);
  } else {
    generic(*spec, name, keys);
  }
}

void Manifest::pod(const Node& spec, const std::string& name, std::vector<KeyFact> keys) {
  if (const Node* sel = spec.find("nodeSelector"); sel && sel->is_map()) {
    for (const auto& [k, v] : sel->entries) {
      if (k.is_scalar() && v.is_scalar()) {
        keys.push_back({k.value, v.value, in_.file, k.pos, scalar_end(v, in_.text),
                        "nodeSelector " + k.value});
      }
    }
  }
  const Node* containers = spec.find("containers");
  const std::size_t n = containers && containers->is_seq() ? containers->items.size() : 0;
  for (std::size_t i = 0; i < n; ++i) {
    container(containers->items[i], name, n > 1, keys, false);
  }
  if (const Node* init = spec.find("initContainers"); init && init->is_seq()) {
    for (const Node& c : init->items) container(c, name, true, keys, true);
  }
}

std::optional<Word> Manifest::image_of(const Node& c) const {
  const Node* image = c.find("image");
  if (!image) return std::nullopt;
  if (image->is_scalar()) return word(*image);
  // An operator's resource may split it as a chart does: `image: {repository, tag}`.
  const Node* repo = image->is_map() ? image->find("repository") : nullptr;
  if (!repo || !repo->is_scalar() || repo->value.empty()) return std::nullopt;
  Word w = word(*repo);
  if (const Node* tag = image->find("tag"); tag && tag->is_scalar() && !tag->value.empty())
    w.text += ":" + tag->value;
  return w;
}

void Manifest::container(const Node& c, const std::string& pod_name, bool suffix,
                         const std::vector<KeyFact>& keys, bool init) {
  if (!c.is_map()) return;
  Process p;
  p.file = in_.file;
  p.pos = c.pos;
  p.init = init;
  const std::string cname = scalar(c.find("name"));
  p.name = suffix && !cname.empty() ? pod_name + "/" + cname : pod_name;
  if (auto image = image_of(c)) p.image = *image;
  p.keys = keys;
  p.workload = workload_;
  env(c, p.env);
  resources(c.find("resources"), p);
  command(c.find("command"), c.find("args"), p);
  if (platform_.res) platform_container(c, p);
  interp_.add(p);
}

void Manifest::command(const Node* cmd, const Node* args, Process& p) {
  auto add = [&](const Node* n) {
    if (!n || n->is_null()) return;
    if (n->is_seq()) {
      for (const Node& item : n->items) {
        if (item.is_scalar()) p.argv.push_back(word(item));
      }
    } else if (n->is_scalar()) {
      Locator where{&interp_.lines(), in_.text, n->offset, false, n->pos};
      for (Word& w : split_words(n->value, where)) p.argv.push_back(std::move(w));
    }
  };
  add(cmd);
  add(args);
  p.image_entrypoint = !cmd || cmd->is_null() || (cmd->is_seq() && cmd->items.empty());
  // Kubernetes expands $(VAR) in command and args from the container's environment
  // (`env` is listed before `envFrom`, and wins over it).
  std::map<std::string_view, const EnvVar*, std::less<>> known;
  for (const EnvVar& e : p.env) {
    if (!e.runtime) known.emplace(e.name, &e);
  }
  for (Word& w : p.argv) {
    if (w.text.find("$(") == std::string::npos) continue;
    std::string out;
    for (std::size_t i = 0; i < w.text.size(); ++i) {
      if (w.text.compare(i, 3, "$$(") == 0) {
        out += "$(";
        i += 2;
        continue;
      }
      if (w.text.compare(i, 2, "$(") == 0) {
        auto close = w.text.find(')', i);
        if (close != std::string::npos) {
          const std::string_view name = std::string_view(w.text).substr(i + 2, close - i - 2);
          auto it = known.find(name);
          if (it != known.end() &&
              ctx_.budget->spend(it->second->value.size(), w.pos, "$(" + std::string(name) + ")")) {
            out += it->second->value;
            i = close;
            continue;
          }
        }
      }
      out += w.text[i];
    }
    w.text = std::move(out);
  }
}

void Manifest::resources(const Node* r, Process& p) {
  if (!r || !r->is_map()) return;
  std::map<std::string, bool> seen;
  for (const char* part : {"limits", "requests"}) {
    const Node* m = r->find(part);
    if (!m || !m->is_map()) continue;
    for (const auto& [k, v] : m->entries) {
      if (!k.is_scalar() || !v.is_scalar() || seen[k.value]) continue;
      seen[k.value] = true;
      if (k.value.find("gpu") != std::string::npos && v.value != "0" && p.gpu.empty()) {
        p.gpu = "it requests " + k.value;
        p.gpu_pos = k.pos;
      }
      p.keys.push_back(
          {k.value, v.value, in_.file, k.pos, scalar_end(v, in_.text), "resource " + k.value});
    }
  }
}

void Manifest::env(const Node& c, std::vector<EnvVar>& out) {
  if (const Node* list = c.find("env"); list && list->is_seq()) {
    for (const Node& e : list->items) {
      if (!e.is_map()) continue;
      EnvVar v;
      v.name = scalar(e.find("name"));
      v.file = in_.file;
      v.pos = e.find("name") ? e.find("name")->pos : e.pos;
      v.source = "env";
      if (v.name.empty()) continue;
      if (const Node* value = e.find("value"); value && value->is_scalar()) {
        v.value = value->value;
        v.end = scalar_end(*value, in_.text);
      } else if (const Node* from = e.find("valueFrom"); from && from->is_map()) {
        value_from(*from, v);
      }
      out.push_back(std::move(v));
    }
  }
  if (const Node* list = c.find("envFrom"); list && list->is_seq()) {
    for (const Node& e : list->items) {
      if (!e.is_map()) continue;
      const std::string prefix = scalar(e.find("prefix"));
      if (const Node* ref = e.find("configMapRef")) {
        const std::string name = scalar(ref->find("name"));
        auto cm = config_maps_.find(name);
        if (cm == config_maps_.end()) {
          out_.unread.push_back(
              {in_.file, e.pos, "envFrom configMap " + name,
               "the ConfigMap is not in the input, so its variables are not known"});
          continue;
        }
        for (const auto& [key, entry] : cm->second) {
          EnvVar v{prefix + key, entry.value,        false, in_.file, entry.pos,
                   entry.end,    "configMap " + name};
          if (!ctx_.budget->spend(Budget::kFactOverhead + v.name.size() + v.value.size() +
                                      v.file.size() + v.source.size(),
                                  e.pos, "envFrom configMap " + name)) {
            return;
          }
          out.push_back(std::move(v));
        }
      } else if (const Node* secret = e.find("secretRef")) {
        out_.unread.push_back({in_.file, e.pos, "envFrom secret " + scalar(secret->find("name")),
                               "secrets are not read"});
      }
    }
  }
}

void Manifest::value_from(const Node& from, EnvVar& v) {
  v.runtime = true;
  if (const Node* ref = from.find("configMapKeyRef")) {
    const std::string name = scalar(ref->find("name")), key = scalar(ref->find("key"));
    auto cm = config_maps_.find(name);
    if (cm != config_maps_.end()) {
      auto entry = cm->second.find(key);
      if (entry != cm->second.end()) {
        v.runtime = false;
        v.value = entry->second.value;
        v.pos = entry->second.pos;
        v.end = entry->second.end;
        v.source = "configMap " + name;
        return;
      }
    }
    v.source = "configMap " + name + " (not in the input)";
  } else if (const Node* ref = from.find("secretKeyRef")) {
    v.source = "secret " + scalar(ref->find("name"));
  } else if (const Node* ref = from.find("fieldRef")) {
    v.source = "fieldRef " + scalar(ref->find("fieldPath"));
  } else {
    v.source = "valueFrom";
  }
}

namespace {

class KubernetesReader final : public Reader {
 public:
  std::string_view name() const override { return "kubernetes"; }

  bool accepts(std::string_view, std::string_view text, const Context&) const override {
    if (has_top_level_key(text, "apiVersion") && has_top_level_key(text, "kind")) return true;
    return text.find("\"apiVersion\"") != std::string_view::npos &&
           text.find("\"kind\"") != std::string_view::npos;
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    std::vector<Node> docs;
    if (!parse_documents(in.text, in.file, docs, out.diagnostics)) return out;
    Manifest(in, ctx, out).read(docs);
    return out;
  }
};

}  // namespace

std::unique_ptr<Reader> kubernetes_reader() {
  return std::make_unique<KubernetesReader>();
}

}  // namespace kb::deploy
