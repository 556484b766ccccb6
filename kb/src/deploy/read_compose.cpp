// Compose files: services.<name>.{image, entrypoint, command (a string or a list),
// environment (a list or a mapping), labels, GPU reservations}; `${VAR:-default}` takes
// its default, as compose does without an environment.

#include "deploy/catalog.h"
#include "deploy/command.h"
#include "deploy/yaml_docs.h"
#include "kb/diagnostic_codes.h"

namespace kb::deploy {
namespace {

using yaml::Node;

// Compose's interpolation without an environment: defaults apply, `$$` is `$`.
std::string interpolate(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "$$") == 0) {
      out += '$';
      ++i;
    } else if (s.compare(i, 2, "${") == 0) {
      auto close = s.find('}', i);
      if (close == std::string::npos) {
        out += s.substr(i);
        break;
      }
      const std::string inner = s.substr(i + 2, close - i - 2);
      auto op = inner.find_first_of(":-?");
      const bool dflt =
          op != std::string::npos && (inner.compare(op, 2, ":-") == 0 || inner[op] == '-');
      out += dflt ? inner.substr(op + (inner[op] == ':' ? 2 : 1)) : s.substr(i, close - i + 1);
      i = close;
    } else {
      out += s[i];
    }
  }
  return out;
}

// A service with `<<: *anchor` merge keys applied (its own keys win).
Node merged(const Node& svc) {
  Node out;
  out.type = Node::Type::map;
  out.pos = svc.pos;
  out.offset = svc.offset;
  std::vector<const Node*> bases;
  for (const auto& [k, v] : svc.entries) {
    if (k.is_scalar() && k.value == "<<") {
      if (v.is_map()) bases.push_back(&v);
      for (const Node& item : v.items) {
        if (item.is_map()) bases.push_back(&item);
      }
    } else {
      out.entries.emplace_back(k, v);
    }
  }
  for (const Node* b : bases) {
    for (const auto& [k, v] : b->entries) {
      if (k.is_scalar() && !out.find(k.value)) out.entries.emplace_back(k, v);
    }
  }
  return out;
}

class ComposeReader final : public Reader {
 public:
  std::string_view name() const override { return "compose"; }

  bool accepts(std::string_view path, std::string_view text, const Context&) const override {
    const std::string_view base = base_name(path);
    if ((base.starts_with("compose") || base.starts_with("docker-compose")) &&
        (base.find(".yaml") != std::string_view::npos ||
         base.find(".yml") != std::string_view::npos)) {
      return true;
    }
    if (!has_top_level_key(text, "services") || has_top_level_key(text, "engines") ||
        has_top_level_key(text, "config") || has_top_level_key(text, "apiVersion")) {
      return false;
    }
    // The hand-written deployment format lists its services; compose maps them by name.
    const std::size_t at = text.starts_with("services:") ? 0 : text.find("\nservices:") + 1;
    std::size_t i = at + 9;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] != '\n' && text[i] != '#' && text[i] != '\r')
      return text[i] == '{';
    // The first entry under it.
    while (i < text.size()) {
      std::size_t nl = text.find('\n', i);
      if (nl == std::string_view::npos) return false;
      i = nl + 1;
      std::size_t j = i;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
      if (j >= text.size() || text[j] == '\n' || text[j] == '#' || text[j] == '\r') continue;
      return text[j] != '-';
    }
    return false;
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    std::vector<Node> docs;
    if (!parse_documents(in.text, in.file, docs, out.diagnostics)) return out;
    Interpreter interp(ctx, out, in.text);
    for (const Node& doc : docs) {
      const Node* services = doc.find("services");
      if (!services || !services->is_map()) {
        out.diagnostics.push_back(
            diag(Severity::error, diag_code("deploy.not-compose"), in.file, doc.pos,
                 "a compose file maps service names to services under `services:`",
                 "services: {vllm: {image: vllm/vllm-openai:v0.26.0}}"));
        continue;
      }
      for (const auto& [k, raw] : services->entries) {
        if (!k.is_scalar() || !raw.is_map()) continue;
        const Node svc = merged(raw);
        Process p;
        p.file = in.file;
        p.name = k.value;
        p.pos = k.pos;
        p.workload = Word{k.value, k.pos, scalar_end(k, in.text)};
        if (const Node* image = svc.find("image"); image && image->is_scalar()) {
          p.image = Word{interpolate(image->value), image->pos, scalar_end(*image, in.text)};
        }
        words(svc.find("entrypoint"), in, interp, p.argv);
        const bool has_entrypoint = !p.argv.empty();
        words(svc.find("command"), in, interp, p.argv);
        p.image_entrypoint = !has_entrypoint && !p.argv.empty() &&
                             !ctx.catalog.starts_entrypoint(p.argv.front().text) &&
                             base_name(p.argv.front().text) != "sh" &&
                             base_name(p.argv.front().text) != "bash";
        environment(svc.find("environment"), in, p.env);
        if (const Node* f = svc.find("env_file")) {
          out.unread.push_back(
              {in.file, f->pos, "env_file", "files named by env_file are not read"});
        }
        labels(svc.find("labels"), in, p.keys);
        gpus(svc, in, p);
        interp.add(p);
      }
    }
    return out;
  }

 private:
  static void words(const Node* n, const DeployInput& in, const Interpreter& interp,
                    std::vector<Word>& out) {
    if (!n || n->is_null()) return;
    if (n->is_seq()) {
      for (const Node& item : n->items) {
        if (item.is_scalar())
          out.push_back({interpolate(item.value), item.pos, scalar_end(item, in.text)});
      }
    } else if (n->is_scalar()) {
      Locator where{&interp.lines(), in.text, n->offset, false, n->pos};
      for (Word& w : split_words(interpolate(n->value), where)) out.push_back(std::move(w));
    }
  }

  static void environment(const Node* n, const DeployInput& in, std::vector<EnvVar>& out) {
    if (!n) return;
    auto add = [&](std::string name, const Node* value, Pos pos, Pos end) {
      EnvVar e;
      e.name = std::move(name);
      e.runtime = !value;
      e.value = value ? interpolate(value->value) : std::string();
      e.file = in.file;
      e.pos = pos;
      e.end = end;
      e.source = e.runtime ? "environment (from the host)" : "environment";
      out.push_back(std::move(e));
    };
    if (n->is_map()) {
      for (const auto& [k, v] : n->entries) {
        if (k.is_scalar())
          add(k.value, v.is_scalar() ? &v : nullptr, k.pos, scalar_end(v, in.text));
      }
    } else if (n->is_seq()) {
      for (const Node& item : n->items) {
        if (!item.is_scalar()) continue;
        const auto eq = item.value.find('=');
        Node value = item;
        value.value = eq == std::string::npos ? std::string() : item.value.substr(eq + 1);
        add(item.value.substr(0, eq), eq == std::string::npos ? nullptr : &value, item.pos,
            scalar_end(item, in.text));
      }
    }
  }

  static void labels(const Node* n, const DeployInput& in, std::vector<KeyFact>& out) {
    if (!n) return;
    if (n->is_map()) {
      for (const auto& [k, v] : n->entries) {
        if (k.is_scalar() && v.is_scalar()) {
          out.push_back(
              {k.value, v.value, in.file, k.pos, scalar_end(v, in.text), "label " + k.value});
        }
      }
    } else if (n->is_seq()) {
      for (const Node& item : n->items) {
        const auto eq = item.value.find('=');
        if (!item.is_scalar() || eq == std::string::npos) continue;
        out.push_back({item.value.substr(0, eq), item.value.substr(eq + 1), in.file, item.pos,
                       scalar_end(item, in.text), "label " + item.value.substr(0, eq)});
      }
    }
  }

  // `runtime: nvidia`, `gpus: all`, or a device reservation with the gpu capability.
  // How many: `gpus: 2`, a reservation's `count: 2` or its `device_ids: ["0", "1"]`, as
  // keys a record spells (settings/gpu-count); `all` is no number.
  static void gpus(const Node& svc, const DeployInput& in, Process& p) {
    if (const Node* r = svc.find("runtime"); r && r->is_scalar() && r->value == "nvidia") {
      p.gpu = "it runs with runtime: nvidia";
      p.gpu_pos = r->pos;
    }
    if (const Node* g = svc.find("gpus")) {
      p.gpu = "it is given GPUs (gpus:)";
      p.gpu_pos = g->pos;
      if (g->is_scalar()) {
        p.keys.push_back({"gpus", g->value, in.file, g->pos, scalar_end(*g, in.text), "gpus"});
      }
    }
    const Node* devices = at_path(svc, "deploy.resources.reservations.devices");
    if (!devices || !devices->is_seq()) return;
    for (const Node& d : devices->items) {
      const Node* caps = d.find("capabilities");
      if (!caps || !caps->is_seq()) continue;
      bool gpu = false;
      for (const Node& c : caps->items) {
        if (c.is_scalar() && c.value == "gpu") {
          p.gpu = "it reserves GPU devices";
          p.gpu_pos = c.pos;
          gpu = true;
        }
      }
      if (!gpu) continue;
      constexpr const char* kAt = "deploy.resources.reservations.devices";
      if (const Node* n = d.find("count"); n && n->is_scalar()) {
        p.keys.push_back({std::string(kAt) + ".count", n->value, in.file, n->pos,
                          scalar_end(*n, in.text), "devices count"});
      } else if (const Node* ids = d.find("device_ids"); ids && ids->is_seq()) {
        p.keys.push_back({std::string(kAt) + ".device_ids", std::to_string(ids->items.size()),
                          in.file, ids->pos, ids->pos, "devices device_ids"});
      }
    }
  }
};

}  // namespace

std::unique_ptr<Reader> compose_reader() {
  return std::make_unique<ComposeReader>();
}

}  // namespace kb::deploy
