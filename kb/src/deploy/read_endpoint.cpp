// Endpoint documents: what `kb check --endpoint URL` learned from a running server (the
// engines' `probe:` routes, GET /v1/models, the labels of /metrics info metrics), one fact
// per line: `{"kb_endpoint": URL, "role": R, "models": [...], "engines": [{engine,
// version, source}], "settings": [{key, value, source}], "problems": [...]}`. The same
// document can be saved and checked later. Settings are mapped through the records'
// `keys` spellings, like labels; keys no record spells are not configuration.

#include "core/text_util.h"
#include "deploy/command.h"
#include "deploy/settings_reader.h"
#include "deploy/yaml_docs.h"
#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"

namespace kb::deploy {
namespace {

using yaml::Node;

std::string field(const Node& n, std::string_view key) {
  const Node* v = n.find(key);
  return v && v->is_scalar() ? v->value : std::string();
}

class EndpointReader final : public Reader {
 public:
  std::string_view name() const override { return "endpoint"; }

  bool accepts(std::string_view, std::string_view text, const Context&) const override {
    const std::string_view t = text::trim(text);
    return !t.empty() && t[0] == '{' && text::trim(t.substr(1)).starts_with("\"kb_endpoint\"");
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    std::vector<Node> docs;
    if (!parse_documents(in.text, in.file, docs, out.diagnostics)) return out;
    if (docs.size() != 1 || !docs[0].is_map() || !docs[0].find("kb_endpoint")) {
      out.diagnostics.push_back(
          diag(Severity::error, diag_code("deploy.not-endpoint"), in.file, {1, 1},
               "an endpoint document is one JSON object with kb_endpoint",
               "write it with `kb check --endpoint URL --save-endpoint FILE`"));
      return out;
    }
    const Node& doc = docs[0];
    const Node& url = *doc.find("kb_endpoint");
    Service svc;
    svc.name = url.is_scalar() ? url.value : in.file;
    svc.file = in.file;
    svc.pos = url.pos;
    std::string entry_engine;
    if (const Node* engines = doc.find("engines"); engines && engines->is_seq()) {
      for (const Node& e : engines->items) {
        const Node* name = e.find("engine");
        if (!name || !name->is_scalar() || name->value.empty()) continue;
        DeployedEngine d;
        d.name = name->value;
        const std::string id = "engines/" + name->value;
        if (ctx.corpus.find(id)) d.id = id;
        d.version = field(e, "version");
        d.file = in.file;
        d.pos = e.pos;
        if (!d.version.empty()) d.version_pos = e.pos;
        d.via = field(e, "source");
        if (entry_engine.empty()) entry_engine = d.id;
        svc.engines.push_back(std::move(d));
      }
    }
    if (svc.engines.empty()) {
      out.diagnostics.push_back(diag(
          ctx.options.allow_unknown ? Severity::warning : Severity::error,
          diag_code("deploy.unidentified-endpoint"), in.file, url.pos,
          "the server at " + svc.name + " answered none of the engines' probe routes",
          "add a `probe:` route to its engine record, or pass --allow-unknown to check without "
          "it"));
      return out;
    }
    if (const Node* models = doc.find("models"); models && models->is_seq()) {
      for (const Node& m : models->items) {
        if (!m.is_scalar() || m.value.empty()) continue;
        if (svc.model.empty()) {
          svc.model = m.value;
          svc.model_pos = m.pos;
        } else {
          out.unread.push_back({in.file, m.pos, "model " + m.value,
                                "the server serves several models; checked with the first"});
        }
      }
    }
    SettingsReader settings(ctx, out, svc, entry_engine);
    if (const Node* role = doc.find("role"); role && role->is_scalar() && !role->value.empty()) {
      settings.entrypoint_role(role->value,
                               Word{role->value, role->pos, scalar_end(*role, in.text)}, in.file,
                               "--endpoint role");
    }
    std::vector<KeyFact> keys;
    if (const Node* list = doc.find("settings"); list && list->is_seq()) {
      for (const Node& s : list->items) {
        const std::string key = field(s, "key");
        if (key.empty()) continue;
        keys.push_back({key, field(s, "value"), in.file, s.pos, {}, field(s, "source")});
      }
    }
    settings.keys(keys);
    settings.finish();
    // Without a `role` settings record the role still holds (the check validates it).
    if (const Node* role = doc.find("role");
        role && role->is_scalar() && !svc.find(service_role::kKey)) {
      svc.role = role->value;
    }
    if (const Node* problems = doc.find("problems"); problems && problems->is_seq()) {
      for (const Node& p : problems->items) {
        if (p.is_scalar())
          out.unread.push_back({in.file, p.pos, p.value, "the probe could not read it"});
      }
    }
    out.services.push_back(std::move(svc));
    return out;
  }
};

}  // namespace

std::unique_ptr<Reader> endpoint_reader() {
  return std::make_unique<EndpointReader>();
}

}  // namespace kb::deploy
