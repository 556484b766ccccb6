// Image references on their own (`vllm/vllm-openai:v0.26.0`, one per line): the engines
// of the image, matched against the engine records' `images`.

#include "core/text_util.h"
#include "deploy/catalog.h"
#include "deploy/command.h"
#include "deploy/shell_words.h"
#include "kb/diagnostic_codes.h"

namespace kb::deploy {
namespace {

template <typename F>
void each_line(std::string_view text, F f) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t nl = text.find('\n', i);
    std::string_view line =
        text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    std::size_t lead = 0;
    while (lead < line.size() && (line[lead] == ' ' || line[lead] == '\t')) ++lead;
    std::string_view t = text::trim(line);
    if (!t.empty() && t[0] != '#') f(t, i + lead);
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
}

class ImageReader final : public Reader {
 public:
  std::string_view name() const override { return "image"; }

  bool accepts(std::string_view, std::string_view text, const Context&) const override {
    bool any = false, all = true;
    each_line(text, [&](std::string_view line, std::size_t) {
      auto ref = parse_image(line);
      // A bare word could be anything; an image reference has a path or a tag.
      all = all && ref &&
            (line.find('/') != std::string_view::npos || !ref->tag.empty() || !ref->digest.empty());
      any = true;
    });
    return any && all;
  }

  Facts read(const DeployInput& in, const Context& ctx) const override {
    Facts out;
    const LineIndex index(in.text);
    each_line(in.text, [&](std::string_view line, std::size_t offset) {
      const Pos pos = index.at(offset), end = index.at(offset + line.size());
      auto ref = parse_image(line);
      if (!ref) {
        out.diagnostics.push_back(
            diag(Severity::error, diag_code("deploy.bad-image"), in.file, pos,
                 "'" + std::string(line) + "' is not an image reference",
                 "write REPOSITORY[:TAG][@DIGEST], such as vllm/vllm-openai:v0.26.0"));
        return;
      }
      auto hits = ctx.catalog.image_engines(*ref);
      if (hits.empty()) {
        out.diagnostics.push_back(diag(
            ctx.options.allow_unknown ? Severity::warning : Severity::error,
            diag_code("deploy.unidentified-engine"), in.file, pos,
            "no engine record lists the image '" + ref->path + "'",
            "add it to an engine record's `images`, or pass --allow-unknown to check without it"));
        return;
      }
      if (version_from_tag(ref->tag).empty()) {
        out.unread.push_back({in.file, pos, "image " + ref->text,
                              ref->tag.empty() ? "no tag: the version is not known"
                                               : "the tag '" + ref->tag + "' gives no version"});
      }
      for (const EngineHit& hit : hits) {
        DeployedEngine e;
        e.name = text::id_slug(hit.id);
        e.id = hit.id;
        e.version = hit.version;
        e.file = in.file;
        e.pos = pos;
        e.end = end;
        if (!e.version.empty()) e.version_pos = pos;
        e.via = hit.via;
        out.shared_engines.push_back(std::move(e));
      }
    });
    return out;
  }
};

}  // namespace

std::unique_ptr<Reader> image_reader() {
  return std::make_unique<ImageReader>();
}

}  // namespace kb::deploy
