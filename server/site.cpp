#include "site.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "json.h"
#include "kb/error.h"
#include "pages_internal.h"

namespace kb::site {

namespace fs = std::filesystem;

namespace {

std::string random_suffix() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 12; ++i) s += kHex[rd() % 16];
  return s;
}

// Whitespace runs collapsed to one space, so the index stays small.
std::string squeeze(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// window.KB_SEARCH_INDEX for web/static/search.js. A script rather than a JSON file
// because browsers refuse to fetch() files from file:// pages. ASCII-only JSON, so no
// character of record text can end the script early or break the parse.
std::string search_index_js(const pages::View& v) {
  const pages::Links links(pages::LinkStyle::static_site, 0);
  nlohmann::json docs = nlohmann::json::array();
  for (const auto& r : v.corpus.records()) {
    if (r->kind == Kind::result) continue;
    nlohmann::json engines = nlohmann::json::array();
    for (const auto& ref : r->affects) {
      if (auto id = v.corpus.target(Kind::engine, ref.raw)) engines.push_back(pages::slug_of(*id));
    }
    std::string text;
    for (const std::string* field : {&r->symptom, &r->root_cause, &r->workaround, &r->notes,
                                     &r->method, &r->pass_criterion, &r->description}) {
      if (!field->empty()) text += *field + "\n";
    }
    for (const auto& alias : r->aliases) text += alias + "\n";
    docs.push_back({{"id", r->id},
                    {"t", std::string(display_name(*r))},
                    {"u", links.page(r->id)},
                    {"k", std::string(kind_name(r->kind))},
                    {"s", r->severity},
                    {"st", r->status},
                    {"e", engines},
                    {"x", squeeze(text)}});
  }
  const nlohmann::json index = {{"docs", docs}};
  return "window.KB_SEARCH_INDEX = " +
         index.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) + ";\n";
}

// Writes files below `root` from many threads at once: directories are made first, by
// make_dirs() on one thread, so write() only creates files.
class Writer {
 public:
  explicit Writer(fs::path root) : root_(std::move(root)) {}

  void make_dirs(const std::string& relative) {
    const fs::path dir = (root_ / relative).parent_path();
    if (!made_.insert(dir.string()).second) return;
    std::error_code ec;
    fs::create_directories(dir, ec);
  }

  void write(const std::string& relative, const std::string& bytes) {
    const fs::path path = root_ / relative;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw Error(Errc::io, "cannot write " + path.string());
    files_.fetch_add(1, std::memory_order_relaxed);
    if (relative.size() > 5 && relative.compare(relative.size() - 5, 5, ".html") == 0)
      pages_.fetch_add(1, std::memory_order_relaxed);
  }

  SiteReport report() const { return {pages_.load(), files_.load()}; }

 private:
  fs::path root_;
  std::set<std::string> made_;
  std::atomic<std::size_t> pages_{0};
  std::atomic<std::size_t> files_{0};
};

// Runs every task on all cores; rethrows the first failure once all threads stopped.
// Which thread runs a task changes nothing: each writes its own files.
void run_all(const std::vector<std::function<void()>>& tasks) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex failure_mu;
  std::exception_ptr failure;
  auto work = [&] {
    try {
      for (std::size_t i = next++; i < tasks.size() && !failed; i = next++) tasks[i]();
    } catch (...) {
      const std::lock_guard lock(failure_mu);
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  };
  {
    const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
    std::vector<std::jthread> pool;
    for (unsigned i = 1; i < threads; ++i) pool.emplace_back(work);
    work();
  }
  if (failure) std::rethrow_exception(failure);
}

void write_all(const Linted& linted, const SiteOptions& options, Writer& w) {
  const pages::ReferenceMap refs(*linted.corpus);
  const pages::View v = pages::make_view(linted, refs);
  const pages::Renderer renderer(pages::LinkStyle::static_site, options.web_dir);
  std::vector<std::function<void()>> tasks = {
      [&] { w.write("index.html", renderer.home(v)); },
      [&] { w.write("search.html", renderer.search(v, {})); },
      [&] { w.write("diagnostics.html", renderer.diagnostics(v)); },
      [&] { w.write("404.html", renderer.not_found(v, "")); },
      [&] { w.write("feed.xml", renderer.feed(v)); },
      [&] { w.write("search-index.js", search_index_js(v)); },
  };
  w.write(kSiteMarker, "written by kb site; the whole directory is replaced on the next run\n");
  for (const auto& name : renderer.asset_names()) {
    w.make_dirs("static/" + name);
    tasks.emplace_back([&w, &renderer, name] { w.write("static/" + name, *renderer.asset(name)); });
  }
  for (const auto& r : linted.corpus->records()) {
    w.make_dirs(r->id);
    tasks.emplace_back([&w, &renderer, &v, &linted, &r = *r] {
      w.write(r.id + ".json", json::record(*linted.corpus, r, linted.evidence).dump(2) + "\n");
      w.write(r.id + ".yaml", r.source_text);
      if (auto html = renderer.record(v, r)) w.write(r.id + ".html", *html);
    });
  }
  run_all(tasks);
}

void check_replaceable(const fs::path& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec))
    throw Error(Errc::io, out.string() + " exists and is not a directory");
  if (fs::is_empty(out, ec) || fs::exists(out / kSiteMarker, ec)) return;
  throw Error(Errc::io, out.string() + " is not a site kb wrote (no " + kSiteMarker +
                            "); refusing to replace it");
}

}  // namespace

SiteReport write_site(const Linted& linted, const SiteOptions& options) {
  const fs::path out = fs::absolute(options.out).lexically_normal();
  const fs::path target = out.has_filename() ? out : out.parent_path();
  check_replaceable(target);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  const std::string suffix = random_suffix();
  // Hidden siblings of the target: the new site is written into one, the old one moved
  // aside into the other. Appended piece by piece: GCC 12 warns (-Wrestrict) on the
  // inlined `"." + std::string`.
  const auto sibling = [&](std::string_view tag) {
    std::string name = ".";
    name += target.filename().string();
    name += tag;
    name += suffix;
    return target.parent_path() / name;
  };
  const fs::path fresh = sibling(".new-");
  const fs::path old = sibling(".old-");
  Writer w(fresh);
  try {
    if (!fs::create_directory(fresh, ec)) throw Error(Errc::io, "cannot create " + fresh.string());
    write_all(linted, options, w);
  } catch (...) {
    fs::remove_all(fresh, ec);
    throw;
  }
  const bool had_old = fs::exists(target, ec);
  if (had_old) {
    fs::rename(target, old, ec);
    if (ec) {
      fs::remove_all(fresh, ec);
      throw Error(Errc::io, "cannot move the old site aside: " + target.string());
    }
  }
  fs::rename(fresh, target, ec);
  if (ec) {
    std::error_code ignored;
    if (had_old) fs::rename(old, target, ignored);
    fs::remove_all(fresh, ignored);
    throw Error(Errc::io, "cannot move the new site into place: " + target.string());
  }
  if (had_old) fs::remove_all(old, ec);
  return w.report();
}

}  // namespace kb::site
