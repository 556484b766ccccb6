// A Helm chart's values file, as an engine record declares it (`charts:`): vLLM
// production-stack's `servingEngineSpec.modelSpec` items are services whose fields
// (`vllmConfig.enablePrefixCaching`, `lmcacheConfig.kvRole`) settings records spell as
// the chart's keys. Which lists are services, where the image and model are, and what a
// field means are data; this file only reads them.

#include <functional>
#include <set>

#include "core/text_util.h"
#include "deploy/catalog.h"
#include "deploy/command.h"
#include "deploy/yaml_docs.h"
#include "kb/corpus.h"
#include "kb/text.h"

namespace kb::deploy {
namespace {

using yaml::Node;

std::string first_part(std::string_view dotted) {
  std::string_view head = dotted.substr(0, dotted.find('.'));
  if (head.ends_with("[]")) head.remove_suffix(2);
  return std::string(head);
}

// The nodes at a chart's `values` path, where `LIST[]` stands for each item of a list
// (`applications[].args.llm_configs`), each with the name it gives its services: the
// path itself, or, past a list, the items' `name` (else their number) and the last part.
void each_at(const Node& doc, std::string_view path,
             const std::function<void(const Node&, const std::string&)>& fn) {
  if (path.find("[]") == std::string_view::npos) {
    if (const Node* at = at_path(doc, path)) fn(*at, std::string(path));
    return;
  }
  std::function<void(const Node&, std::string_view, const std::string&)> walk =
      [&](const Node& n, std::string_view rest, const std::string& name) {
        if (rest.empty()) {
          fn(n, name);
          return;
        }
        const auto dot = rest.find('.');
        std::string_view part = rest.substr(0, dot);
        const std::string_view after =
            dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
        const bool each = part.ends_with("[]");
        if (each) part.remove_suffix(2);
        const Node* next = n.is_map() ? n.find(part) : nullptr;
        if (!next) return;
        // The last part names what it holds; so does a first part a list follows
        // (`decode.containers[]`: decode/vllm, prefill/vllm).
        const std::string_view next_part = after.substr(0, after.find('.'));
        const bool first_before_list =
            name.empty() && rest.size() == path.size() && next_part.ends_with("[]");
        const std::string last =
            !each && (after.empty() || first_before_list) ? std::string(part) : std::string();
        if (!each) {
          walk(*next, after, last.empty() ? name : name.empty() ? last : name + "/" + last);
          return;
        }
        if (!next->is_seq()) return;
        for (std::size_t i = 0; i < next->items.size(); ++i) {
          const Node& item = next->items[i];
          const Node* own = item.is_map() ? item.find("name") : nullptr;
          const std::string label = own && own->is_scalar() && !own->value.empty()
                                        ? own->value
                                        : std::string(part) + "#" + std::to_string(i + 1);
          walk(item, after, name.empty() ? label : name + "/" + label);
        }
      };
  walk(doc, path, "");
}

std::string scalar_of(const Node* n) {
  return n && n->is_scalar() ? n->value : std::string();
}

// Every scalar under an item with its dotted path: keys a record may spell.
void leaves(const Node& n, const std::string& path, const DeployInput& in,
            std::vector<KeyFact>& out) {
  if (n.is_map()) {
    for (const auto& [k, v] : n.entries) {
      if (k.is_scalar()) leaves(v, path.empty() ? k.value : path + "." + k.value, in, out);
    }
  } else if (n.is_scalar() && !path.empty()) {
    out.push_back({path, n.value, in.file, n.pos, scalar_end(n, in.text), "values " + path});
  }
}

class ValuesReader final : public Reader {
 public:
  std::string_view name() const override { return "values"; }

  bool accepts(std::string_view path, std::string_view text, const Context& ctx) const override {
    if (path.ends_with(".sh") || path.ends_with(".bash") || text.starts_with("#!")) return false;
    if (has_top_level_key(text, "apiVersion") && has_top_level_key(text, "kind")) return false;
    for (const auto& [engine, chart] : ctx.catalog.charts()) {
      if (has_top_level_key(text, first_part(chart->values))) return true;
    }
    return false;
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    std::vector<Node> docs;
    if (!parse_documents(in.text, in.file, docs, out.diagnostics)) return out;
    Interpreter interp(ctx, out, in.text);
    for (const Node& doc : docs) {
      if (!doc.is_map()) continue;
      for (const auto& [engine, chart] : ctx.catalog.charts()) {
        const Record& eng = *engine;
        const ChartValues& ch = *chart;
        each_at(doc, ch.values.view(), [&](const Node& at, const std::string& name) {
          if (at.is_seq()) {
            for (std::size_t i = 0; i < at.items.size(); ++i) {
              if (at.items[i].is_map())
                item(doc, at.items[i], eng, ch, name + "#" + std::to_string(i + 1), in, ctx,
                     interp);
            }
          } else if (at.is_map()) {
            item(doc, at, eng, ch, name, in, ctx, interp);
          }
        });
      }
    }
    return out;
  }

 private:
  // The fields an item has without setting them (`inherit`): the mapping's, except those
  // holding a list of the engine's charts (`context_servers` beside `model`).
  static std::vector<const std::pair<Node, Node>*> inherited(const Node& doc, const Record& engine,
                                                             const ChartValues& chart) {
    std::vector<const std::pair<Node, Node>*> out;
    if (chart.inherit.empty()) return out;
    const std::string base = chart.inherit == "." ? std::string() : chart.inherit.str();
    const Node* at = base.empty() ? &doc : at_path(doc, base);
    if (!at || !at->is_map()) return out;
    std::set<std::string> lists;
    for (const ChartValues& c : engine.engine->charts) {
      const std::string_view v = c.values.view();
      if (base.empty()) {
        lists.insert(first_part(v));
      } else if (v.starts_with(base + ".")) {
        lists.insert(first_part(v.substr(base.size() + 1)));
      }
    }
    for (const auto& entry : at->entries) {
      if (entry.first.is_scalar() && !lists.count(entry.first.value)) out.push_back(&entry);
    }
    return out;
  }

  // The node at `path` in the item, else among the fields it inherits.
  static const Node* field(const Node& n, const std::vector<const std::pair<Node, Node>*>& shared,
                           const std::string& path) {
    if (const Node* own = at_path(n, path)) return own;
    const std::string head = first_part(path);
    for (const auto* e : shared) {
      if (e->first.value != head) continue;
      return head.size() == path.size() ? &e->second
                                        : at_path(e->second, path.substr(head.size() + 1));
    }
    return nullptr;
  }

  static void item(const Node& doc, const Node& n, const Record& engine, const ChartValues& chart,
                   const std::string& fallback_name, const DeployInput& in, const Context& ctx,
                   Interpreter& interp) {
    const auto shared = inherited(doc, engine, chart);
    Process p;
    p.file = in.file;
    p.pos = n.pos;
    p.name = chart.name.empty() ? std::string() : scalar_of(at_path(n, chart.name));
    if (p.name.empty()) p.name = fallback_name;
    if (!chart.image.empty()) {
      const Node* repo = field(n, shared, chart.image[0]);
      const Node* tag = chart.image.size() > 1 ? field(n, shared, chart.image[1]) : nullptr;
      if (repo && repo->is_scalar() && !repo->value.empty()) {
        p.image = Word{repo->value, repo->pos, scalar_end(*repo, in.text)};
        if (tag && tag->is_scalar() && !tag->value.empty()) p.image.text += ":" + tag->value;
      }
    }
    for (const RefValue& ref : chart.engines) {
      auto id = ctx.corpus.target(Kind::engine, ref.raw);
      if (!id) continue;
      DeployedEngine e;
      e.id = *id;
      e.name = std::string(text::id_slug(*id));
      e.file = in.file;
      e.pos = n.pos;
      e.via = "values " + chart.values + " (" + engine.id + ")";
      p.implied.push_back(std::move(e));
    }
    for (const std::string& path : chart.model) {
      if (const Node* m = field(n, shared, path); m && m->is_scalar() && !m->value.empty()) {
        p.model = Word{m->value, m->pos, scalar_end(*m, in.text)};
        break;
      }
    }
    // The item's command, when it has one, runs with the args after it; else the chart
    // passes the args to the engine after its own arguments.
    p.image_entrypoint = true;
    for (const std::string& path : chart.command) {
      const Node* list = at_path(n, path);
      if (!list || !list->is_seq() || list->items.empty()) continue;
      for (const Node& w : list->items) {
        if (w.is_scalar()) p.argv.push_back(Word{w.value, w.pos, scalar_end(w, in.text)});
      }
      p.image_entrypoint = false;
      break;
    }
    for (const std::string& path : chart.args) {
      const Node* list = at_path(n, path);
      if (!list || !list->is_seq()) continue;
      for (const Node& w : list->items) {
        if (w.is_scalar()) p.argv.push_back(Word{w.value, w.pos, scalar_end(w, in.text)});
      }
    }
    for (const std::string& path : chart.env) {
      const Node* list = at_path(n, path);
      if (!list || !list->is_seq()) continue;
      for (const Node& e : list->items) {
        const std::string name = scalar_of(e.find("name"));
        if (name.empty()) continue;
        const Node* value = e.find("value");
        EnvVar v{name,        scalar_of(value),    !value || !value->is_scalar(),
                 in.file,     e.find("name")->pos, value ? scalar_end(*value, in.text) : Pos{},
                 "values env"};
        p.env.push_back(std::move(v));
      }
    }
    for (const std::string& path : chart.env_vars) {
      const Node* map = at_path(n, path);
      if (!map || !map->is_map()) continue;
      for (const auto& [k, v] : map->entries) {
        if (!k.is_scalar()) continue;
        p.env.push_back(EnvVar{k.value, scalar_of(&v), !v.is_scalar(), in.file, k.pos,
                               v.is_scalar() ? scalar_end(v, in.text) : Pos{}, "values " + path});
      }
    }
    for (const std::string& path : chart.engine_args) {
      const Node* map = at_path(n, path);
      if (!map || !map->is_map()) continue;
      std::vector<KeyFact> keys;
      leaves(*map, "", in, keys);
      for (KeyFact& k : keys) k.via = "values " + path + "." + k.key;
      p.engine_keys.insert(p.engine_keys.end(), keys.begin(), keys.end());
    }
    if (!chart.role.empty()) {
      p.role = Word{chart.role, n.pos, Pos{}};
      p.role_via = "values " + chart.values + " (" + engine.id + ")";
    }
    if (auto keys_of = ctx.corpus.target(Kind::engine, chart.keys_of.raw)) {
      leaves(n, "", in, p.keys);
      // Then each field it inherits and does not set itself (a field it sets is its own
      // whole: TensorRT-LLM does not merge a server's kv_cache_config with the top's).
      for (const auto* e : shared) {
        if (!at_path(n, e->first.value)) leaves(e->second, e->first.value, in, p.keys);
      }
      p.keys_of = *keys_of;
      // The chart's other fields under a settings path are read another way (the engine's
      // extra arguments, its environment), not as settings.
      for (const std::string& path : chart.settings) p.settings_in.push_back(path + ".");
      for (const auto* lists :
           {&chart.args, &chart.env, &chart.env_vars, &chart.engine_args, &chart.command}) {
        for (const std::string& path : *lists) {
          std::erase_if(p.keys, [&](const KeyFact& k) {
            return k.key == path || k.key.starts_with(path + ".");
          });
        }
      }
    }
    interp.add(p);
  }
};

}  // namespace

std::unique_ptr<Reader> values_reader() {
  return std::make_unique<ValuesReader>();
}

}  // namespace kb::deploy
