// Shell scripts and command lines: every command that starts an engine's entry point
// (`vllm serve`, `python3 -m sglang.launch_server`, `trtllm-serve`), `docker run IMAGE`,
// or that passes flags only engines take, is a service.

#include "core/text_util.h"
#include "deploy/catalog.h"
#include "deploy/command.h"
#include "kb/diagnostic_codes.h"

namespace kb::deploy {
namespace {

// Whether a line (split on blanks, `VAR=x` prefixes and wrappers skipped) starts an entry
// point or runs a container.
bool starts_process(std::string_view line, const Catalog& catalog) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) words.emplace_back(line.substr(i, j - i));
    i = j;
  }
  std::size_t k = 0;
  while (k < words.size() && (is_assignment(words[k]) || words[k] == "exec" ||
                              words[k] == "nohup" || words[k] == "env" || words[k] == "sudo")) {
    ++k;
  }
  if (k >= words.size()) return false;
  words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(k));
  const std::string_view prog = base_name(words[0]);
  if ((prog == "docker" || prog == "podman") && words.size() > 1 && words[1] == "run") return true;
  return catalog.entrypoint(words).has_value();
}

class ShellReader final : public Reader {
 public:
  std::string_view name() const override { return "shell"; }

  bool accepts(std::string_view path, std::string_view text, const Context& ctx) const override {
    if (path.ends_with(".sh") || path.ends_with(".bash") || text.starts_with("#!")) return true;
    std::size_t i = 0;
    while (i < text.size()) {
      std::size_t nl = text.find('\n', i);
      std::string_view line =
          text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
      if (starts_process(text::trim(line), ctx.catalog)) return true;
      if (nl == std::string_view::npos) break;
      i = nl + 1;
    }
    return false;
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    if (auto bad = text::invalid_utf8_offset(in.text); bad != std::string_view::npos) {
      out.diagnostics.push_back(diag(Severity::error, diag_code("encoding.utf8"), in.file,
                                     text::offset_to_pos(in.text, bad), "bytes that are not UTF-8",
                                     "save the file as UTF-8"));
      return out;
    }
    Interpreter interp(ctx, out, in.text);
    Locator where{&interp.lines(), in.text, 0, true, Pos{1, 1}};
    Process base;
    base.file = in.file;
    Script script = read_script(in.text, where, base, ctx, out);
    for (const Process& p : script.processes) {
      if (ctx.options.stopped()) break;
      interp.add(p);
    }
    if (out.services.empty()) out.shared_engines = script.packages;
    return out;
  }
};

}  // namespace

std::unique_ptr<Reader> shell_reader() {
  return std::make_unique<ShellReader>();
}

}  // namespace kb::deploy
