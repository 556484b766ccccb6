// A Kubernetes resource an engine record declares in `resources:` (KServe's
// LLMInferenceService, AIBrix's StormService): every pod spec in it, wherever it stands,
// with what the record says of it -- the engines its pods run when their image and command
// name none, the environment variables that carry more engine arguments, the served model
// and the role a pod takes by where it stands. What the platform means is data; this file
// only walks.

#include <algorithm>
#include <cctype>

#include "core/text_util.h"
#include "corpus/vocab.h"
#include "deploy/manifest.h"
#include "deploy/yaml_docs.h"
#include "kb/corpus.h"
#include "schema/setting_values.h"

namespace kb::deploy {
using yaml::Node;

namespace {

std::vector<std::string> components(std::string_view dotted) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= dotted.size()) {
    const auto dot = dotted.find('.', start);
    const auto end = dot == std::string_view::npos ? dotted.size() : dot;
    if (end > start) out.emplace_back(dotted.substr(start, end - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

bool is_index(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

// The node at `path` (mapping keys and list indexes) under `root`, or nullptr.
const Node* node_at(const Node& root, const std::vector<std::string>& path, std::size_t count) {
  const Node* n = &root;
  for (std::size_t i = 0; i < count && n; ++i) {
    if (n->is_map()) {
      n = n->find(path[i]);
    } else if (n->is_seq() && is_index(path[i]) && path[i].size() < 9) {
      const std::size_t at = std::stoul(path[i]);
      n = at < n->items.size() ? &n->items[at] : nullptr;
    } else {
      n = nullptr;
    }
  }
  return n;
}

bool present(const Node* n) {
  return n && !n->is_null();
}

// Every scalar under `n` as a key dotted from `path`; a list's items by their index.
void pool_leaves(const Node& n, const std::string& path, const std::string& file,
                 std::string_view text, const std::string& via, std::vector<KeyFact>& out) {
  if (n.is_map()) {
    for (const auto& [k, v] : n.entries) {
      if (k.is_scalar()) pool_leaves(v, path + "." + k.value, file, text, via, out);
    }
  } else if (n.is_seq()) {
    for (std::size_t i = 0; i < n.items.size(); ++i)
      pool_leaves(n.items[i], path + "." + std::to_string(i), file, text, via, out);
  } else if (n.is_scalar()) {
    out.push_back({path, n.value, file, n.pos, scalar_end(n, text), via + " " + path});
  }
}

}  // namespace

void Manifest::platform(const Node& d, const Record& engine, const PlatformResource& res,
                        const std::string& name, const std::vector<KeyFact>& keys) {
  platform_ = Platform{};
  platform_.root = &d;
  platform_.engine = &engine;
  platform_.res = &res;
  for (const std::string& path : res.model) {
    if (const Node* m = at_path(d, path); m && m->is_scalar() && !m->value.empty()) {
      platform_.model = word(*m);
      break;
    }
  }
  std::vector<std::string> path;
  platform_walk(d, path, name, keys);
  platform_ = Platform{};
}

void Manifest::platform_walk(const Node& n, std::vector<std::string>& path, const std::string& name,
                             const std::vector<KeyFact>& keys) {
  if (n.is_map()) {
    if (const Node* containers = n.find("containers"); containers && containers->is_seq()) {
      platform_pod(n, path, name, keys);
      return;
    }
    // A rule's path that holds one container rather than a pod spec (`spec.cache:
    // {image: ..., resources: ...}`).
    if (!path.empty() && image_of(n)) {
      std::string at;
      for (const std::string& c : path) at += (at.empty() ? "" : ".") + c;
      const auto& rules = platform_.res->pods;
      if (std::any_of(rules.begin(), rules.end(), [&](const ResourcePods& r) {
            return r.role_from.empty() && r.path.view() == at;
          })) {
        platform_pod(n, path, name, keys, &n);
        return;
      }
    }
    // A pod template's labels are its pods' (`metadata` beside `spec`). Copied only there:
    // a copy at every mapping would cost the document's size times its labels.
    std::vector<KeyFact> with_labels;
    const std::vector<KeyFact>* own = &keys;
    if (const Node* meta = n.find("metadata"); !path.empty() && meta && n.find("spec")) {
      with_labels = keys;
      labels(meta, with_labels);
      // Charged: sibling templates each copy their parents' labels.
      std::size_t cost = 0;
      for (const KeyFact& k : with_labels) {
        cost +=
            Budget::kFactOverhead + k.key.size() + k.value.size() + k.file.size() + k.via.size();
      }
      if (!ctx_.budget->spend(cost, n.pos, "the labels of a pod template")) return;
      own = &with_labels;
    }
    for (const auto& [k, v] : n.entries) {
      if (!k.is_scalar() || (path.empty() && k.value == "metadata")) continue;
      path.push_back(k.value);
      platform_walk(v, path, name, *own);
      path.pop_back();
    }
  } else if (n.is_seq()) {
    for (std::size_t i = 0; i < n.items.size(); ++i) {
      path.push_back(std::to_string(i));
      platform_walk(n.items[i], path, name, keys);
      path.pop_back();
    }
  }
}

void Manifest::platform_pod(const Node& spec, const std::vector<std::string>& path,
                            const std::string& name, const std::vector<KeyFact>& keys,
                            const Node* lone) {
  const Node& root = *platform_.root;
  const PlatformResource& res = *platform_.res;
  // The service's name says where the pod stands: `NAME/prefill`, `NAME/worker`, or the
  // name of the list item it belongs to.
  std::string where;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const std::string& c = path[i];
    if (c == "spec" || c == "template" || c == "podTemplate") continue;
    if (i + 1 < path.size() && is_index(path[i + 1])) continue;  // the list's own name
    std::string part = c;
    if (is_index(c)) {
      const Node* item = node_at(root, path, i + 1);
      const Node* item_name = item && item->is_map() ? item->find("name") : nullptr;
      part = item_name && item_name->is_scalar() ? item_name->value : "#" + c;
    }
    where += "/" + part;
  }
  platform_.role = Word{};
  platform_.role_via.clear();
  for (const ResourcePods& rule : res.pods) {
    const std::vector<std::string> prefix = components(rule.path);
    if (prefix.size() > path.size() || !std::equal(prefix.begin(), prefix.end(), path.begin()))
      continue;
    if (!rule.when.empty() && !present(at_path(root, rule.when))) continue;
    const std::string via = res.kind + " " + rule.path + " (" + platform_.engine->id + ")";
    if (!rule.role_from.empty()) {
      if (prefix.size() >= path.size() || !is_index(path[prefix.size()])) continue;
      const Node* item = node_at(root, path, prefix.size() + 1);
      const Node* value = item && item->is_map() ? item->find(rule.role_from) : nullptr;
      if (!value || !value->is_scalar()) continue;
      // Only a name that is a role: `routing` or `worker` says nothing kb can use.
      const Record* role = ctx_.vocab.setting(service_role::kKey);
      if (!role || !normalize_value(role->setting, value->value).value) {
        out_.unread.push_back({in_.file, value->pos, rule.role_from + ": " + value->value,
                               "not a role kb knows (see settings/role)"});
        break;
      }
      platform_.role = word(*value);
      platform_.role_via = res.kind + " " + rule.path + "[]." + rule.role_from;
    } else if (!rule.role.empty()) {
      platform_.role = Word{rule.role, rule.pos, Pos{}};
      platform_.role_via = via;
      // The role is where the pod stands: point at it in the input, not at the record.
      if (const Node* at = node_at(root, path, prefix.size())) platform_.role.pos = at->pos;
    }
    break;
  }
  const std::vector<KeyFact> own = pool_keys(path, keys);
  if (lone) {
    container(*lone, name + where, false, own, false);
  } else {
    pod(spec, name + where, own);
  }
}

std::vector<KeyFact> Manifest::pool_keys(const std::vector<std::string>& path,
                                         const std::vector<KeyFact>& keys) {
  const PlatformResource& res = *platform_.res;
  if (res.pool_keys.empty()) return keys;

  // The pool the pod belongs to: the longest of the record's pools it stands under.
  const std::string* pool = nullptr;
  std::size_t depth = 0;
  for (const std::string& p : res.pools) {
    const std::vector<std::string> prefix = components(p);
    if (prefix.size() > path.size() || !std::equal(prefix.begin(), prefix.end(), path.begin()))
      continue;
    if (!pool || prefix.size() > depth) {
      pool = &p;
      depth = prefix.size();
    }
  }
  if (!pool) return keys;
  auto [it, fresh] = platform_.pool_fields.try_emplace(*pool);
  auto& [fields, cost] = it->second;
  if (fresh) {
    // Read once per pool: a resource may hold many pods of one pool.
    const std::string via = res.kind + " " + *pool;
    for (const std::string& field : res.pool_keys) {
      const Node* at = at_path(*platform_.root, *pool + "." + field);
      if (!at || at->is_null()) continue;
      std::vector<KeyFact> found;
      pool_leaves(*at, field, in_.file, in_.text, via, found);
      for (KeyFact& k : found) {
        if (ctx_.vocab.key(k.key)) {
          cost += Budget::kFactOverhead + k.key.size() + k.value.size() + k.via.size();
          fields.push_back(std::move(k));
        } else {
          out_.unread.push_back(
              {in_.file, k.pos, k.via + ": " + k.value, "no settings record spells this field"});
        }
      }
    }
  }
  if (fields.empty()) return keys;
  // Each pod's copy is charged: a pool's fields times its pods.
  if (!ctx_.budget->spend(cost, platform_.root->pos, "the fields of " + res.kind + " " + *pool))
    return keys;
  std::vector<KeyFact> out = keys;
  out.insert(out.end(), fields.begin(), fields.end());
  return out;
}

void Manifest::platform_container(const Node& c, Process& p) {
  const PlatformResource& res = *platform_.res;
  const std::string cname = scalar(c.find("name"));
  if (!res.container.empty() && cname != res.container) return;
  for (const RefValue& ref : res.engines) {
    auto id = ctx_.corpus.target(Kind::engine, ref.raw);
    if (!id) continue;
    DeployedEngine e;
    e.name = std::string(text::id_slug(*id));
    e.id = *id;
    e.file = in_.file;
    e.pos = c.pos;
    e.via = res.kind + " runs " + e.name + " (" + platform_.engine->id + ")";
    p.implied.push_back(std::move(e));
  }
  // `VLLM_ADDITIONAL_ARGS`: more arguments of the engine, after those the container gives.
  if (const Node* list = c.find("env"); list && list->is_seq() && !res.args_env.empty()) {
    for (const Node& e : list->items) {
      const std::string ename = scalar(e.find("name"));
      const Node* value = e.is_map() ? e.find("value") : nullptr;
      if (!value || !value->is_scalar() ||
          std::find(res.args_env.begin(), res.args_env.end(), ename) == res.args_env.end())
        continue;
      Locator where{&interp_.lines(), in_.text, value->offset, false, value->pos};
      for (Word& w : split_words(value->value, where)) p.argv.push_back(std::move(w));
      p.env.erase(std::remove_if(p.env.begin(), p.env.end(),
                                 [&](const EnvVar& v) { return v.name == ename; }),
                  p.env.end());
    }
  }
  p.model = platform_.model;
  p.role = platform_.role;
  p.role_via = platform_.role_via;
}

}  // namespace kb::deploy
