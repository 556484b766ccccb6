#include "json.h"
#include "pages_internal.h"

namespace kb::pages {

namespace {

std::string content_type_of(std::string_view name) {
  auto ends = [&](std::string_view ext) {
    return name.size() >= ext.size() && name.substr(name.size() - ext.size()) == ext;
  };
  if (ends(".css")) return "text/css; charset=utf-8";
  if (ends(".js")) return "text/javascript; charset=utf-8";
  if (ends(".svg")) return "image/svg+xml";
  if (ends(".png")) return "image/png";
  if (ends(".ico")) return "image/x-icon";
  return "application/octet-stream";
}

Page text_page(std::string body, std::string content_type) {
  Page p;
  p.body = std::move(body);
  p.content_type = std::move(content_type);
  return p;
}

}  // namespace

Renderer::Renderer(LinkStyle style, std::filesystem::path web_dir)
    : impl_(std::make_unique<Impl>(Impl{style, Templates(std::move(web_dir))})) {}
Renderer::~Renderer() = default;
Renderer::Renderer(Renderer&&) noexcept = default;
Renderer& Renderer::operator=(Renderer&&) noexcept = default;

LinkStyle Renderer::style() const {
  return impl_->style;
}

std::optional<std::string> Renderer::record(const View& v, const Record& r) const {
  switch (r.kind) {
    case Kind::gotcha:
      return render_gotcha(*impl_, v, r);
    case Kind::engine:
      return render_engine(*impl_, v, r);
    case Kind::oracle:
      return render_oracle(*impl_, v, r);
    case Kind::setting:
      return render_setting(*impl_, v, r);
    case Kind::model:
      return render_model(*impl_, v, r);
    case Kind::result:
      return render_result(*impl_, v, r);
  }
  return std::nullopt;
}

std::optional<std::string> Renderer::asset(std::string_view name) const {
  if (name.empty() || name.find('/') != std::string_view::npos ||
      name.find("..") != std::string_view::npos) {
    return std::nullopt;
  }
  return impl_->templates.file("static/" + std::string(name));
}

std::vector<std::string> Renderer::asset_names() const {
  std::vector<std::string> out;
  for (const auto& path : impl_->templates.list("static")) out.push_back(path.substr(7));
  return out;
}

Page Renderer::serve(const View& v, std::string_view path, const SearchParams& params) const {
  if (path.empty() || path == "/") return text_page(home(v), Page{}.content_type);
  if (path == "/search") return text_page(search(v, params), Page{}.content_type);
  if (path == "/diagnostics") return text_page(diagnostics(v), Page{}.content_type);
  if (path == "/feed.xml") return text_page(feed(v), "application/atom+xml; charset=utf-8");
  const std::size_t second = path.find('/', 1);
  if (second != std::string_view::npos) {
    const std::string_view dir = path.substr(1, second - 1);
    std::string slug(path.substr(second + 1));
    if (dir == "static" && slug.find('/') == std::string::npos) {
      if (auto bytes = asset(slug)) return text_page(std::move(*bytes), content_type_of(slug));
    }
    const auto kind = parse_kind(dir);
    std::string suffix;
    for (std::string_view ext : {".json", ".yaml", ".html"}) {
      if (slug.size() > ext.size() && slug.ends_with(ext)) {
        suffix = ext;
        slug.resize(slug.size() - ext.size());
      }
    }
    if (kind && dir == kind_namespace(*kind) && !slug.empty()) {
      const std::string id = std::string(dir) + "/" + slug;
      if (const Record* r = v.corpus.find(id)) {
        if (suffix == ".json") {
          return text_page(
              json::versioned(json::record(v.corpus, *r, v.evidence), v.corpus.content_hash())
                      .dump(2) +
                  "\n",
              "application/json; charset=utf-8");
        }
        if (suffix == ".yaml")
          return text_page(v.corpus.source_text(*r), "text/plain; charset=utf-8");
        if (auto html = record(v, *v.corpus.whole(*r)))
          return text_page(std::move(*html), Page{}.content_type);
        Page moved{Outcome::moved, Page{}.content_type, "",
                   Links(impl_->style, depth_of(id)).json(id)};
        return moved;
      }
      const Record* other = v.corpus.find_any(id);
      if (other == nullptr) {
        if (auto target = v.corpus.target(*kind, slug)) other = v.corpus.find(*target);
      }
      if (other != nullptr) {
        const Links links(impl_->style, depth_of(id));
        Page moved{Outcome::moved, Page{}.content_type, "",
                   suffix == ".json"   ? links.json(other->id)
                   : suffix == ".yaml" ? links.source(other->id)
                                       : links.page(other->id)};
        return moved;
      }
    }
  }
  Page missing{Outcome::not_found, Page{}.content_type, not_found(v, path), ""};
  return missing;
}

}  // namespace kb::pages
