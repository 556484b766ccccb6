#include "deploy/catalog.h"

#include <algorithm>
#include <cctype>

#include "core/text_util.h"
#include "kb/corpus.h"
#include "kb/version.h"

namespace kb::deploy {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::vector<std::string> split_words(std::string_view s) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// "nvcr.io/nvidia/x" or "vllm/vllm-openai", lower case, as the key images are compared by.
std::string full_name(const ImageRef& r) {
  return text::lower(r.registry.empty() ? r.path : r.registry + "/" + r.path);
}

// Whether `ref` is an image of the repository `rec` names: the same repository, the same
// path on any registry when the record names none, or a mirror that prefixes the path.
std::size_t image_score(const ImageRef& ref, const ImageRef& rec) {
  const std::string a = full_name(ref), b = full_name(rec);
  if (a == b) return b.size() + 2;
  if (rec.registry.empty() && text::lower(ref.path) == text::lower(rec.path)) return b.size() + 1;
  if (a.ends_with("/" + b)) return b.size();
  return 0;
}

bool same_version(std::string_view a, std::string_view b) {
  auto x = Version::parse(a), y = Version::parse(b);
  return x && y ? *x == *y : a == b;
}

bool pep440_suffix(std::string_view s) {
  std::string low = text::lower(s);
  for (std::string_view p :
       {"alpha", "beta", "preview", "pre", "post", "dev", "rc", "a", "b", "c"}) {
    if (!low.starts_with(p)) continue;
    std::string_view rest = std::string_view(low).substr(p.size());
    if (!rest.empty() && rest[0] == '.') rest.remove_prefix(1);
    if (std::all_of(rest.begin(), rest.end(), is_digit)) return true;
  }
  return false;
}

}  // namespace

std::string_view base_name(std::string_view path) {
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_python(std::string_view program) {
  std::string_view b = base_name(program);
  if (!b.starts_with("python")) return false;
  b.remove_prefix(6);
  return std::all_of(b.begin(), b.end(), [](char c) { return is_digit(c) || c == '.'; });
}

bool is_shell(std::string_view program) {
  const std::string_view b = base_name(program);
  return b == "sh" || b == "bash" || b == "dash" || b == "zsh" || b == "ash";
}

std::optional<ImageRef> parse_image(std::string_view text) {
  std::string_view t = text::trim(text);
  if (t.empty() || t.size() > 512) return std::nullopt;
  for (char c : t) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
                    c == '-' || c == '/' || c == ':' || c == '@' || c == '$' || c == '{' ||
                    c == '}';
    if (!ok) return std::nullopt;
  }
  ImageRef r;
  r.text = std::string(t);
  std::string_view rest = t;
  if (auto at = rest.find('@'); at != std::string_view::npos) {
    r.digest = std::string(rest.substr(at + 1));
    rest = rest.substr(0, at);
    if (r.digest.empty()) return std::nullopt;
  }
  auto slash = rest.rfind('/');
  auto colon = rest.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    r.tag = std::string(rest.substr(colon + 1));
    rest = rest.substr(0, colon);
    if (r.tag.empty()) return std::nullopt;
  }
  auto first = rest.find('/');
  if (first != std::string_view::npos) {
    std::string_view head = rest.substr(0, first);
    if (head.find('.') != std::string_view::npos || head.find(':') != std::string_view::npos ||
        head == "localhost") {
      r.registry = text::lower(head);
      rest = rest.substr(first + 1);
    }
  }
  if (r.registry == "docker.io" || r.registry == "index.docker.io" ||
      r.registry == "registry-1.docker.io") {
    r.registry.clear();
  }
  if (r.registry.empty() && rest.starts_with("library/")) rest.remove_prefix(8);
  if (rest.empty() || rest.front() == '/' || rest.back() == '/' ||
      rest.find("//") != std::string_view::npos || rest.find(':') != std::string_view::npos) {
    return std::nullopt;
  }
  r.path = std::string(rest);
  return r;
}

std::string version_from_tag(std::string_view tag) {
  std::string_view t = tag;
  // A build's tag may name its flavour first (`aibrix-kvcache-v0.8.5-20250520`): the
  // release is the first `-`-separated part that starts with `v` and a digit. A bare
  // number after a word (`cuda-12.4`) is no release.
  if (!t.empty() && !is_digit(t[0]) &&
      !(t.size() > 1 && (t[0] == 'v' || t[0] == 'V') && is_digit(t[1]))) {
    for (std::size_t dash = t.find('-'); dash != std::string_view::npos;
         dash = t.find('-', dash + 1)) {
      if (dash + 2 < t.size() && (t[dash + 1] == 'v' || t[dash + 1] == 'V') &&
          is_digit(t[dash + 2])) {
        t.remove_prefix(dash + 1);
        break;
      }
    }
  }
  if (t.size() > 1 && (t[0] == 'v' || t[0] == 'V') && is_digit(t[1])) t.remove_prefix(1);
  if (t.empty() || !is_digit(t[0])) return {};
  // A release is MAJOR.MINOR at least, and no engine kb knows has a major of 1000 or
  // more: `2025-05-27-v1`, `20251022` or `2025.05.27` is a build date, not version 2025.
  const std::string_view core = t.substr(0, t.find('-'));
  const auto dot = core.find('.');
  if (dot == std::string_view::npos || dot > 3) return {};
  std::string version(t);
  if (auto dash = t.find('-'); dash != std::string_view::npos) {
    std::string_view suffix = t.substr(dash + 1);
    auto next = suffix.find('-');
    std::string_view first = suffix.substr(0, next);
    version = std::string(t.substr(0, dash));
    if (pep440_suffix(first)) version += text::lower(first);
  }
  if (Version::parse(version)) return version;
  // A local build of a release (`v0.7.3.self.post1`): the release it was built from, when
  // that is a whole MAJOR.MINOR.PATCH (`1.2.x` names no release).
  while (true) {
    const auto last = version.rfind('.');
    if (last == std::string::npos || last <= dot) return {};
    version.resize(last);
    if (std::count(version.begin(), version.end(), '.') < 2) return {};
    if (Version::parse(version)) return version;
  }
}

std::string normalize_package(std::string_view name) {
  std::string out;
  bool run = false;
  for (char c : text::trim(name)) {
    if (c == '-' || c == '_' || c == '.') {
      if (!run) out.push_back('-');
      run = true;
    } else {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      run = false;
    }
  }
  return out;
}

Catalog::Catalog(const Corpus& corpus) {
  for (const auto& r : corpus.records()) {
    if (r->kind == Kind::engine &&
        (!r->engine->packages.empty() || !r->engine->images.empty() ||
         !r->engine->entrypoints.empty() || !r->engine->resources.empty() ||
         !r->engine->shell_functions.empty())) {
      engines_.push_back(r.get());
    }
  }
  corpus_ = &corpus;
}

const ShellFunction* Catalog::shell_function(std::string_view name) const {
  for (const Record* e : engines_) {
    for (const ShellFunction& f : e->engine->shell_functions) {
      if (f.name == name) return &f;
    }
  }
  return nullptr;
}

std::vector<EngineHit> Catalog::image_engines(const ImageRef& ref) const {
  const Record* best = nullptr;
  const Image* image = nullptr;
  std::size_t best_score = 0;
  for (const Record* e : engines_) {
    for (const Image& im : e->engine->images) {
      auto rec = parse_image(im.image);
      if (!rec) continue;
      std::size_t s = image_score(ref, *rec);
      if (s > best_score) {
        best_score = s;
        best = e;
        image = &im;
      }
    }
  }
  std::vector<EngineHit> out;
  if (!best) return out;
  const std::string version = version_from_tag(ref.tag);
  const std::string via = "image " + ref.text;
  out.push_back({best->id, version, via});
  const Release* release = nullptr;
  for (const Release& rel : best->engine->releases) {
    if (!version.empty() && same_version(rel.version, version)) release = &rel;
  }
  for (const RefValue& shipped : image->engines) {
    auto id = corpus_->target(Kind::engine, shipped.raw);
    if (!id) continue;
    EngineHit hit{*id, "", via + " ships " + shipped.raw, true};
    if (release) {
      for (const RefValue& b : release->bundles) {
        if (corpus_->target(Kind::engine, b.raw) == id && !b.versions.empty()) {
          hit.version = b.versions;
          hit.via = via + " (" + std::string(display_name(*best)) + " " + version + " ships " +
                    b.raw + " " + b.versions + ")";
        }
      }
    }
    out.push_back(std::move(hit));
  }
  // A tag that names what the image bundles (`v0.10.0-cu128-nixl-v0.4.1-lmcache-0.3.2`):
  // each `NAME-VERSION` pair whose NAME is an engine's id or alias gives that engine's
  // version, shipped by the image.
  std::vector<std::string_view> parts;
  for (std::size_t i = 0; i <= ref.tag.size();) {
    const std::size_t dash = std::min(ref.tag.find('-', i), ref.tag.size());
    parts.push_back(std::string_view(ref.tag).substr(i, dash - i));
    i = dash + 1;
  }
  for (std::size_t i = 1; i + 1 < parts.size(); ++i) {
    if (parts[i].empty() || is_digit(parts[i][0])) continue;
    const std::string named = version_from_tag(parts[i + 1]);
    if (named.empty()) continue;
    const auto ids = corpus_->names().exact(Kind::engine, parts[i]);
    if (ids.size() != 1 || ids.front() == best->id) continue;
    const std::string how =
        via + " (its tag names " + std::string(parts[i]) + " " + std::string(parts[i + 1]) + ")";
    auto known = std::find_if(out.begin(), out.end(),
                              [&](const EngineHit& h) { return h.id == ids.front(); });
    if (known != out.end()) {
      known->version = named;
      known->via = how;
    } else {
      out.push_back({ids.front(), named, how, true});
    }
  }
  return out;
}

const Record* Catalog::package(std::string_view name, std::string_view ecosystem) const {
  const std::string key = normalize_package(name);
  for (const Record* e : engines_) {
    for (const Package& p : e->engine->packages) {
      if (p.ecosystem.view() == ecosystem && normalize_package(p.name) == key) return e;
    }
  }
  return nullptr;
}

const Record* Catalog::package(std::string_view name) const {
  const std::string key = normalize_package(name);
  for (const Record* e : engines_) {
    for (const Package& p : e->engine->packages) {
      if (p.ecosystem == package_ecosystem::kPypi && normalize_package(p.name) == key) return e;
    }
  }
  return nullptr;
}

std::optional<EntryMatch> Catalog::entrypoint(const std::vector<std::string>& argv) const {
  if (argv.empty()) return std::nullopt;
  std::optional<EntryMatch> best;
  auto consider = [&](const Record* e, const Entrypoint& ep, std::size_t words, std::string text) {
    if (!best || words > best->words) best = EntryMatch{e, &ep, words, std::move(text)};
  };
  // Where `-m MODULE`, or else a script, stands after a Python interpreter and its options.
  std::size_t m = 0, script = 0;
  if (is_python(argv[0])) {
    std::size_t i = 1;
    while (i < argv.size() && argv[i] != "-m" && argv[i].size() > 1 && argv[i][0] == '-') {
      i += (argv[i] == "-X" || argv[i] == "-W") ? 2 : 1;
    }
    if (i + 1 < argv.size() && argv[i] == "-m") m = i + 1;
    if (i < argv.size() && argv[i] != "-m" && argv[i].ends_with(".py")) script = i;
  }
  for (const Record* e : engines_) {
    for (const Entrypoint& ep : e->engine->entrypoints) {
      if (!ep.wraps.empty()) continue;  // a launcher is not what runs
      if (!ep.command.empty()) {
        auto words = split_words(ep.command);
        if (words.empty() || argv.size() < words.size()) continue;
        bool same = base_name(argv[0]) == words[0];
        for (std::size_t i = 1; same && i < words.size(); ++i) same = argv[i] == words[i];
        if (same) consider(e, ep, words.size(), ep.command);
        // A Python script by its file name: `python3 examples/disagg_proxy_demo.py`.
        if (script > 0 && words.size() == 1 && base_name(argv[script]) == words[0]) {
          consider(e, ep, script + 1,
                   std::string(base_name(argv[0])) + " " + std::string(base_name(argv[script])));
        }
      } else if (!ep.module.empty() && m > 0 && argv[m] == ep.module) {
        consider(e, ep, m + 1, std::string(base_name(argv[0])) + " -m " + ep.module);
      }
    }
  }
  return best;
}

std::optional<WrapMatch> Catalog::wrapper(const std::vector<std::string>& argv) const {
  if (argv.empty()) return std::nullopt;
  const Record* rec = nullptr;
  const Entrypoint* launcher = nullptr;
  std::size_t taken = 0;
  for (const Record* e : engines_) {
    for (const Entrypoint& ep : e->engine->entrypoints) {
      if (ep.wraps.empty() || ep.command.empty()) continue;
      auto words = split_words(ep.command);
      if (words.empty() || argv.size() < words.size() || words.size() <= taken) continue;
      bool same = base_name(argv[0]) == words[0];
      for (std::size_t i = 1; same && i < words.size(); ++i) same = argv[i] == words[i];
      if (!same) continue;
      rec = e;
      launcher = &ep;
      taken = words.size();
    }
  }
  if (!launcher) return std::nullopt;
  const bool python = launcher->wraps == wraps_kind::kPython;
  std::optional<std::size_t> known, first;
  for (std::size_t j = taken; j < argv.size() && !known; ++j) {
    const std::string& a = argv[j];
    if (python && (a == "-m" || a.ends_with(".py"))) {
      known = j;
    } else if (a.size() > 1 && a[0] == '-') {
      const bool takes = a.find('=') == std::string::npos &&
                         std::find(launcher->value_options.begin(), launcher->value_options.end(),
                                   a) != launcher->value_options.end();
      if (takes) ++j;
    } else {
      if (!first) first = j;
      if (!python && (starts_entrypoint(a) || is_shell(a))) known = j;
    }
  }
  const std::optional<std::size_t> start = known ? known : first;
  if (!start) return std::nullopt;
  return WrapMatch{rec, launcher, *start, python};
}

bool Catalog::starts_entrypoint(std::string_view program) const {
  if (is_python(program)) return true;
  const std::string_view b = base_name(program);
  for (const Record* e : engines_) {
    for (const Entrypoint& ep : e->engine->entrypoints) {
      auto words = split_words(ep.command);
      if (!words.empty() && words[0] == b) return true;
    }
  }
  return false;
}

std::pair<const Record*, const PlatformResource*> Catalog::resource(
    std::string_view kind, std::string_view api_version) const {
  if (kind.empty()) return {nullptr, nullptr};
  // `serving.kserve.io/v1alpha2`: the group is what stands before the version.
  const auto slash = api_version.rfind('/');
  const std::string_view group =
      slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  for (const Record* e : engines_) {
    for (const PlatformResource& r : e->engine->resources) {
      if (r.kind == kind && (r.group.empty() || r.group == group)) return {e, &r};
    }
  }
  return {nullptr, nullptr};
}

std::vector<std::pair<const Record*, const ChartValues*>> Catalog::charts() const {
  std::vector<std::pair<const Record*, const ChartValues*>> out;
  for (const Record* e : engines_) {
    for (const ChartValues& c : e->engine->charts) out.emplace_back(e, &c);
  }
  return out;
}

}  // namespace kb::deploy
