// The hand-written deployment format (YAML or JSON: engines, config, model, hardware,
// services), read by parse_deployment exactly as `kb check` always has.

#include "deploy/reader.h"

namespace kb::deploy {
namespace {

class DeploymentReader final : public Reader {
 public:
  std::string_view name() const override { return "deployment"; }

  bool accepts(std::string_view path, std::string_view text, const Context&) const override {
    // A script is a script even when a JSON flag in it holds a "model" key.
    if (path.ends_with(".sh") || path.ends_with(".bash") || text.starts_with("#!")) return false;
    for (std::string_view key : {"engines", "config", "services", "model", "hardware"}) {
      for (std::size_t at = text.find(key); at != std::string_view::npos;
           at = text.find(key, at + 1)) {
        const bool line_start = at == 0 || text[at - 1] == '\n';
        const bool json_key = at > 0 && text[at - 1] == '"' && at + key.size() < text.size() &&
                              text[at + key.size()] == '"';
        if ((line_start && text.compare(at + key.size(), 1, ":") == 0) || json_key) return true;
      }
    }
    return false;
  }

  Facts read(const DeployInput& in, const Context&) const override {
    Facts out;
    out.whole = parse_deployment(in.text, in.file, out.diagnostics);
    return out;
  }
};

}  // namespace

std::unique_ptr<Reader> deployment_reader() {
  return std::make_unique<DeploymentReader>();
}

}  // namespace kb::deploy
