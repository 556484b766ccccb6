#include <cctype>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "kb/error.h"
#include "kb/text.h"
#include "markdown.h"
#include "pages_internal.h"
#include "web_assets.h"

namespace kb::pages {

namespace {

constexpr std::string_view kTemplateDir = "templates";
constexpr std::string_view kExtension = ".mustache";

// Partials nest at most this deep; deeper means a partial includes itself.
constexpr int kMaxPartialDepth = 16;

using text::trim;

using PartialTexts = std::map<std::string, std::string, std::less<>>;

// `text` with every `{{>name}}` replaced by the text of the partial, recursively, so a
// template is parsed once with its partials. The output is what kainjow's mustache.hpp
// (which parsed a partial afresh at every use) rendered: it rendered a partial in its
// caller's context and line buffer, as if its text stood in place of the tag. A partial
// no file defines renders nothing. Tags are found the way the parser (mustache.cpp) finds
// them; set-delimiter tags would change that, so they are refused.
void expand(std::string_view text, const PartialTexts& partials, int depth,
            const std::string& where, std::set<std::string, std::less<>>& used, std::string& out) {
  if (depth > kMaxPartialDepth) throw Error(Errc::internal, where + ": partials nest too deep");
  std::size_t done = 0;
  for (std::size_t open = text.find("{{"); open != std::string_view::npos;
       open = text.find("{{", open)) {
    const bool triple = open + 2 < text.size() && text[open + 2] == '{';
    const std::string_view close = triple ? "}}}" : "}}";
    const std::size_t contents = open + (triple ? 3 : 2);
    const std::size_t end = text.find(close, contents);
    if (end == std::string_view::npos) break;  // the parser reports the unclosed tag
    const std::size_t after = end + close.size();
    const std::string_view tag = trim(text.substr(contents, end - contents));
    if (!triple && !tag.empty() && tag.front() == '=') {
      throw Error(Errc::internal, where + ": set-delimiter tags are not supported");
    }
    if (!triple && !tag.empty() && tag.front() == '>') {
      out.append(text.substr(done, open - done));
      const std::string_view name = trim(tag.substr(1));
      if (auto it = partials.find(name); it != partials.end()) {
        const std::string& body = it->second;
        if (!body.empty() && body.back() == '{' && after < text.size() && text[after] == '{') {
          throw Error(Errc::internal,
                      where + ": partial " + std::string(name) + " ends in '{' before a '{'");
        }
        used.emplace(name);
        expand(body, partials, depth + 1, where, used, out);
      }
      done = after;
    }
    open = after;
  }
  out.append(text.substr(done));
}

Template parse(const std::string& text, const std::string& where) {
  try {
    return Template(text);
  } catch (const std::invalid_argument& e) {
    throw Error(Errc::internal, where + ": " + e.what());
  }
}

}  // namespace

// A template with its partials spliced in, parsed once; many threads may render it at once.
struct Templates::Parsed {
  std::string source;  // the expanded text, to notice edits under the web directory
  Template tmpl;
};

struct Templates::Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const Parsed>, std::less<>> by_name;
};

Templates::Templates(std::filesystem::path web_dir)
    : web_dir_(std::move(web_dir)), cache_(std::make_unique<Cache>()) {}
Templates::~Templates() = default;
Templates::Templates(Templates&&) noexcept = default;
Templates& Templates::operator=(Templates&&) noexcept = default;

std::optional<std::string> Templates::file(std::string_view path) const {
  if (!web_dir_.empty()) {
    std::ifstream in(web_dir_ / std::string(path), std::ios::binary);
    if (in) {
      std::ostringstream s;
      s << in.rdbuf();
      return s.str();
    }
  }
  for (const auto& [name, bytes] : web::embedded_assets()) {
    if (name == path) return std::string(bytes);
  }
  return std::nullopt;
}

std::vector<std::string> Templates::list(std::string_view dir) const {
  std::set<std::string> names;
  const std::string prefix = std::string(dir) + "/";
  for (const auto& entry : web::embedded_assets()) {
    if (entry.first.starts_with(prefix)) names.insert(std::string(entry.first));
  }
  std::error_code ec;
  if (!web_dir_.empty()) {
    for (const auto& e : std::filesystem::directory_iterator(web_dir_ / std::string(dir), ec)) {
      if (e.is_regular_file()) names.insert(prefix + e.path().filename().string());
    }
  }
  return {names.begin(), names.end()};
}

std::shared_ptr<const Templates::Parsed> Templates::parsed(std::string_view name) const {
  // Compiled-in templates never change; files under the web directory are re-read on
  // every render and re-parsed when their text changed.
  if (web_dir_.empty()) {
    const std::lock_guard lock(cache_->mu);
    if (auto it = cache_->by_name.find(name); it != cache_->by_name.end()) return it->second;
  }
  const std::string path =
      std::string(kTemplateDir) + "/" + std::string(name) + std::string(kExtension);
  auto text = file(path);
  if (!text) throw Error(Errc::internal, "missing template " + path);
  PartialTexts partials;
  for (const auto& partial_path : list(kTemplateDir)) {
    const std::string file_name = partial_path.substr(kTemplateDir.size() + 1);
    if (!file_name.starts_with('_') || file_name.size() <= 1 + kExtension.size()) continue;
    partials.emplace(file_name.substr(1, file_name.size() - 1 - kExtension.size()),
                     file(partial_path).value_or(""));
  }
  std::string source;
  std::set<std::string, std::less<>> used;
  expand(*text, partials, 0, path, used, source);
  {
    const std::lock_guard lock(cache_->mu);
    auto it = cache_->by_name.find(name);
    if (it != cache_->by_name.end() && it->second->source == source) return it->second;
  }
  // A partial must parse on its own, as it did before splicing: a tag or
  // section it leaves open must not be closed by its caller's text.
  for (const auto& partial : used) {
    parse(partials.find(partial)->second,
          std::string(kTemplateDir) + "/_" + partial + std::string(kExtension));
  }
  auto fresh = std::make_shared<const Parsed>(Parsed{source, parse(source, path)});
  const std::lock_guard lock(cache_->mu);
  cache_->by_name[std::string(name)] = fresh;
  return fresh;
}

std::string Templates::render(std::string_view name, const Data& data) const {
  return parsed(name)->tmpl.render(data);
}

}  // namespace kb::pages
