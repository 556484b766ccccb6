#include "site.h"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "json.h"
#include "json_dump.h"
#include "kb/error.h"
#include "kb/store.h"
#include "kb/text.h"
#include "openapi.h"
#include "pages_internal.h"
#include "schema_json.h"

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

// Whitespace runs collapsed to one space, so the index stays small (search splits words
// at any of them alike).
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
// character of record text can end the script early or break the parse. Written
// directly, as nlohmann's dump(-1, ' ', true, replace) of {"docs": [...]} wrote it, keys
// in its order: building the tree and dumping it was 5 % of a 10k site.
std::string search_index_js(const pages::View& v) {
  const pages::Links links(pages::LinkStyle::static_site, 0);
  std::string out = "window.KB_SEARCH_INDEX = {\"docs\":[";
  bool first = true;
  // Every record the server's index holds, with the same columns (kb/store.h), so the
  // client-side search ranks them as the server does.
  for (const auto& r : v.corpus.records()) {
    const SearchColumns cols = search_columns(*v.corpus.whole(*r));
    out += first ? "{\"c\":[" : ",{\"c\":[";
    first = false;
    bool first_col = true;
    for (const std::string* col : {&cols.title, &cols.symptom, &cols.root_cause, &cols.workaround,
                                   &cols.notes, &cols.other}) {
      if (!first_col) out += ',';
      first_col = false;
      json::append_ascii_string(out, squeeze(*col));  // the same tokens, fewer bytes
    }
    out += "],\"e\":[";
    bool first_engine = true;
    for (const auto& ref : r->affects) {
      if (auto id = v.corpus.target(Kind::engine, ref.raw)) {
        if (!first_engine) out += ',';
        first_engine = false;
        json::append_ascii_string(out, text::id_slug(*id));
      }
    }
    const std::pair<const char*, std::string_view> fields[] = {
        {"],\"id\":", r->id.view()},
        {",\"k\":", kind_name(r->kind)},
        {",\"s\":", to_string(r->severity)},
        {",\"st\":", to_string(r->status)},
    };
    for (const auto& [key, value] : fields) {
      out += key;
      json::append_ascii_string(out, value);
    }
    out += ",\"u\":";
    json::append_ascii_string(out, links.page(r->id));
    out += '}';
  }
  // The spellings search takes as one word (kb/store.h search_synonyms), as the server
  // expands a query with them.
  out += "],\"syn\":[";
  const SearchSynonyms synonyms = search_synonyms(v.corpus.records());
  for (std::size_t g = 0; g < synonyms.groups.size(); ++g) {
    out += g ? ",[" : "[";
    for (std::size_t w = 0; w < synonyms.groups[g].size(); ++w) {
      if (w) out += ',';
      json::append_ascii_string(out, synonyms.groups[g][w]);
    }
    out += ']';
  }
  // Names of one word two query words may join into, by their joined letters.
  std::vector<std::pair<std::string, std::string>> joined(synonyms.joined.begin(),
                                                          synonyms.joined.end());
  std::sort(joined.begin(), joined.end());
  out += "],\"join\":{";
  for (std::size_t i = 0; i < joined.size(); ++i) {
    if (i) out += ',';
    json::append_ascii_string(out, joined[i].first);
    out += ':';
    json::append_ascii_string(out, joined[i].second);
  }
  out += "}};\n";
  return out;
}

// Writes files below `root` from many threads at once, each to a hidden name beside its
// place (`.index.html.kb-new-<suffix>`), never to the place itself: SiteDir::commit
// moves them there once every file is written. In a new directory (`direct`), which
// SiteDir::commit moves into place whole, each file is written at its own name.
class Writer {
 public:
  Writer(fs::path root, std::string suffix, bool direct)
      : root_(std::move(root)), suffix_(std::move(suffix)), direct_(direct) {}
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  ~Writer() { discard(); }

  void write(const std::string& relative, const std::string& bytes) {
    const fs::path place = root_ / relative;
    fs::path tmp =
        direct_ ? place
                : place.parent_path() / ("." + place.filename().string() + ".kb-new-" + suffix_);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) throw Error(Errc::io, "cannot write " + tmp.string() + ": " + std::strerror(errno));
    {
      const std::lock_guard lock(mu_);
      staged_.emplace_back(relative, tmp);
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0 || done != bytes.size())
      throw Error(Errc::io, "cannot write " + tmp.string());
    if (relative.size() > 5 && relative.ends_with(".html"))
      pages_.fetch_add(1, std::memory_order_relaxed);
  }

  // The files written, each with its temporary name; they are the caller's from here on.
  std::vector<std::pair<std::string, fs::path>> take() {
    const std::lock_guard lock(mu_);
    return std::exchange(staged_, {});
  }

  void discard() {
    const std::lock_guard lock(mu_);
    for (const auto& [rel, tmp] : staged_) ::unlink(tmp.c_str());
    staged_.clear();
  }

  std::size_t pages() const { return pages_.load(); }

 private:
  fs::path root_;
  std::string suffix_;
  bool direct_;
  std::mutex mu_;
  std::vector<std::pair<std::string, fs::path>> staged_;
  std::atomic<std::size_t> pages_{0};
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

constexpr const char* kTopFiles[] = {"index.html",       "search.html",        "diagnostics.html",
                                     "check/index.html", "404.html",           "feed.xml",
                                     "search-index.js",  "api/v1/openapi.json"};

// Every file a build may write, so collisions are found before anything is written. A
// record's page is planned even where its type has none: planning too much only checks
// one more name.
std::vector<std::string> plan(const Linted& linted, const pages::Renderer& renderer) {
  std::vector<std::string> out(std::begin(kTopFiles), std::end(kTopFiles));
  for (const auto& name : renderer.asset_names()) out.push_back("static/" + name);
  for (Kind k : kAllKinds) out.push_back("schemas/" + json::schema_file_name(k));
  for (const auto& r : linted.corpus->records()) {
    for (const char* ext : {".json", ".yaml", ".html"}) out.push_back(r->id + ext);
  }
  return out;
}

void write_all(const Linted& linted, const pages::Renderer& renderer, Writer& w,
               const std::string& base_path) {
  const pages::ReferenceMap refs(*linted.corpus);
  const DiagnosticList diags(linted.diagnostics);
  const pages::View v = pages::make_view(linted, refs, diags);
  std::vector<std::function<void()>> tasks = {
      [&] { w.write("index.html", renderer.home(v)); },
      [&] { w.write("search.html", renderer.search(v, {})); },
      [&] { w.write("diagnostics.html", renderer.diagnostics(v)); },
      // Live-only: says how to check with `kb check` or the API; it has no form.
      [&] { w.write("check/index.html", renderer.check(v, {}, nullptr)); },
      [&] { w.write("404.html", renderer.not_found(v, "", base_path)); },
      [&] { w.write("feed.xml", renderer.feed(v)); },
      [&] { w.write("search-index.js", search_index_js(v)); },
      // The API's description, for clients generated against the live server.
      [&] { w.write("api/v1/openapi.json", http::openapi_document().dump(2) + "\n"); },
  };
  for (const auto& name : renderer.asset_names()) {
    tasks.emplace_back([&w, &renderer, name] { w.write("static/" + name, *renderer.asset(name)); });
  }
  // The JSON Schemas of record files, for editors: the same as the repository's schemas/,
  // with the vocabulary of the records this site shows.
  tasks.emplace_back([&w, &linted] {
    w.write(std::string("schemas/") + json::kVocabularyFile,
            json::vocabulary_schema(*linted.corpus).dump(2) + "\n");
  });
  for (Kind k : kAllKinds) {
    tasks.emplace_back([&w, k] {
      w.write("schemas/" + json::schema_file_name(k), json::json_schema(k, true).dump(2) + "\n");
    });
  }
  for (const auto& r : linted.corpus->records()) {
    tasks.emplace_back([&w, &renderer, &v, &linted, &r = *r] {
      std::string record_json =
          json::dump_pretty(json::versioned(json::record(*linted.corpus, r, linted.evidence)));
      record_json += '\n';
      w.write(r.id + ".json", record_json);
      w.write(r.id + ".yaml", linted.corpus->source_text(r));
      if (auto html = renderer.record(v, *linted.corpus->whole(r))) w.write(r.id + ".html", *html);
    });
  }
  run_all(tasks);
}

}  // namespace

SiteReport write_site(const Linted& linted, const SiteOptions& options) {
  const fs::path out = fs::absolute(options.out).lexically_normal();
  SiteDir site(out.has_filename() ? out : out.parent_path());
  const pages::Renderer renderer(pages::LinkStyle::static_site, options.web_dir);
  const std::vector<std::string> planned = plan(linted, renderer);
  site.check(planned, options.force);
  const std::string suffix = random_suffix();
  try {
    site.make_dirs(planned, suffix);
  } catch (...) {
    site.undo_dirs();
    throw;
  }
  Writer w(site.root(), suffix, site.fresh());
  std::size_t files = 0;
  try {
    write_all(linted, renderer, w, options.base_path);
    const auto staged = w.take();
    files = staged.size() + 1;  // + the manifest
    site.commit(staged);
  } catch (...) {
    w.discard();
    site.undo_dirs();
    throw;
  }
  return {w.pages(), files};
}

}  // namespace kb::site
