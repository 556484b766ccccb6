// A Helm chart's values file, as an engine record declares it (`charts:`): vLLM
// production-stack's `servingEngineSpec.modelSpec` items are services whose fields
// (`vllmConfig.enablePrefixCaching`, `lmcacheConfig.kvRole`) settings records spell as
// the chart's keys. Which lists are services, where the image and model are, and what a
// field means are data; this file only reads them.

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
  return std::string(dotted.substr(0, dotted.find('.')));
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
        const Node* at = at_path(doc, chart->values);
        if (!at) continue;
        if (at->is_seq()) {
          for (std::size_t i = 0; i < at->items.size(); ++i) {
            if (at->items[i].is_map())
              item(at->items[i], *engine, *chart, chart->values + "#" + std::to_string(i + 1), in,
                   ctx, interp);
          }
        } else if (at->is_map()) {
          item(*at, *engine, *chart, chart->values, in, ctx, interp);
        }
      }
    }
    return out;
  }

 private:
  static void item(const Node& n, const Record& engine, const ChartValues& chart,
                   const std::string& fallback_name, const DeployInput& in, const Context& ctx,
                   Interpreter& interp) {
    Process p;
    p.file = in.file;
    p.pos = n.pos;
    p.name = chart.name.empty() ? std::string() : scalar_of(at_path(n, chart.name));
    if (p.name.empty()) p.name = fallback_name;
    if (!chart.image.empty()) {
      const Node* repo = at_path(n, chart.image[0]);
      const Node* tag = chart.image.size() > 1 ? at_path(n, chart.image[1]) : nullptr;
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
      if (const Node* m = at_path(n, path); m && m->is_scalar() && !m->value.empty()) {
        p.model = Word{m->value, m->pos, scalar_end(*m, in.text)};
        break;
      }
    }
    // The chart passes these words to the engine after its own arguments.
    p.image_entrypoint = true;
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
    if (!chart.role.empty()) {
      p.role = Word{chart.role, n.pos, Pos{}};
      p.role_via = "values " + chart.values + " (" + engine.id + ")";
    }
    if (auto keys_of = ctx.corpus.target(Kind::engine, chart.keys_of.raw)) {
      leaves(n, "", in, p.keys);
      p.keys_of = *keys_of;
    }
    interp.add(p);
  }
};

}  // namespace

std::unique_ptr<Reader> values_reader() {
  return std::make_unique<ValuesReader>();
}

}  // namespace kb::deploy
