#pragma once

// The HTML pages: one renderer serves `kb serve` and writes `kb site`, from the same
// Mustache templates (web/templates, compiled in, or read from `--web-dir`).

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/diagnostic_list.h"
#include "kb/evidence.h"
#include "kb/lint.h"
#include "kb/model.h"
#include "kb/store.h"
#include "kb/triage.h"

namespace kb {
class Snapshot;
}

namespace kb::http {
struct Ctx;
}

namespace kb::pages {

/// The Content-Security-Policy header of every live page: no inline script or style.
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// How pages link to each other: live server paths (`gotchas/x`) or static files
/// (`gotchas/x.html`). Both are relative, so either works below any path prefix.
enum class LinkStyle { live, static_site };

/// One consistent view of the knowledge base that pages are rendered from.
struct View {
  const Corpus& corpus;
  const EvidenceIndex& evidence;
  const DiagnosticList& diagnostics;
  /// Records whose reference fields name `id` (resolved), sorted by id.
  std::function<std::vector<const Record*>(std::string_view id)> referencing;
  /// Full-text search with \x02/\x03-marked snippets; empty when there is none (static site).
  std::function<std::vector<SearchHit>(std::string_view q, std::size_t limit)> search;
  /// Whether a word alone finds anything (Snapshot::finds), for typo suggestions.
  std::function<bool(std::string_view word)> finds;
  /// What pages compute once over the whole corpus, shared by every page rendered from
  /// this view (make_view sets it; pages_internal.h defines it).
  std::shared_ptr<struct ViewCache> cache;
};

/// Which records reference each id, for views without a Snapshot.
class ReferenceMap {
 public:
  /// Resolves every reference of every record of `corpus` once.
  explicit ReferenceMap(const Corpus& corpus);
  /// Records referencing `id`, sorted by id, each once.
  std::vector<const Record*> referencing(std::string_view id) const;

 private:
  std::unordered_map<std::string, std::vector<const Record*>> by_target_;
};

/// A view over a linted tree showing `diags` (its diagnostics, packed); `refs` and `diags`
/// must outlive it. No full-text search.
View make_view(const Linted& linted, const ReferenceMap& refs, const DiagnosticList& diags);

/// A view over a live snapshot, with its full-text search; `s` must outlive it.
View make_view(const Snapshot& s);

/// What the search page was asked for (query parameters q, engine, severity, status).
struct SearchParams {
  std::string q;
  std::string engine;
  std::string severity;
  std::string status;
};

/// A log pasted into the search page, and what reading it gave (POST /search).
struct PastedLog {
  std::string text;                      ///< as pasted, shown again
  const TriageReport* report = nullptr;  ///< the gotchas it names; null when refused
  std::string error;                     ///< why it was refused; empty when read
};

/// What the "Am I affected?" form holds, as the visitor sent it: shown again with the
/// answer.
struct CheckForm {
  std::string deployment;  ///< the pasted text
  std::string kind;        ///< one of input_kinds(); empty: detected from the content
  std::string fail_on = "blocker";
  std::string ignore;  ///< gotcha ids, comma-separated
  bool allow_unknown = false;
  bool allow_invalid_records = false;
};

/// What checking the form came to, as POST /api/v1/check answered it.
struct CheckOutcome {
  /// The API's answer (findings, counts, diagnostics, deployment), or its error's
  /// details (diagnostics); null when there is neither.
  const nlohmann::json* answer = nullptr;
  std::string error_code;     ///< the API's error code; empty when it answered 200
  std::string error_message;  ///< what to tell the visitor when error_code is set
  /// The deployment could not be read whole (the API's 422, or text that does not parse):
  /// kb cannot say it is unaffected.
  bool fail_closed = false;
};

/// What a page request came to.
enum class Outcome { ok, moved, not_found };

/// A rendered response for one path.
struct Page {
  Outcome outcome = Outcome::ok;
  std::string content_type = "text/html; charset=utf-8";
  std::string body;
  std::string location;  ///< relative redirect target when `outcome` is moved
};

/// Renders every page kind from the templates.
class Renderer {
 public:
  /// Templates come from `web_dir` when it is set (re-read on every render, for
  /// editing; a file missing there falls back to the compiled-in one).
  explicit Renderer(LinkStyle style, std::filesystem::path web_dir = {});
  ~Renderer();
  Renderer(Renderer&&) noexcept;
  Renderer& operator=(Renderer&&) noexcept;

  /// Counts by severity and status, newest and most recently verified gotchas, engines.
  std::string home(const View& v) const;
  /// The page of a gotcha, engine, oracle, setting or model; nullopt for results, which
  /// have none.
  std::optional<std::string> record(const View& v, const Record& r) const;
  /// Search results with snippets and filters; client-side in the static site.
  std::string search(const View& v, const SearchParams& p, const PastedLog* log = nullptr) const;
  /// Every diagnostic of the tree, as `kb lint` reports them.
  std::string diagnostics(const View& v) const;
  /// A 404 page for `path` with the resolver's best candidates.
  /// With `root`, every link starts at it (a static site's 404.html, answered for any path).
  std::string not_found(const View& v, std::string_view path, std::string_view root = {}) const;
  /// The "Am I affected?" page: on the live server the form (filled from `form`) and,
  /// after a check, its `outcome`; in the static site, how to check from the command line
  /// or the API instead (no form).
  std::string check(const View& v, const CheckForm& form, const CheckOutcome* outcome) const;
  /// The Atom feed of new and changed gotchas, newest first.
  std::string feed(const View& v) const;
  /// The bytes of `web/static/<name>`, or nullopt.
  std::optional<std::string> asset(std::string_view name) const;
  /// Names of every file under web/static.
  std::vector<std::string> asset_names() const;

  /// Answers a GET for a page path (`/`, `/gotchas/x`, `/engines/x.json`, `/search`,
  /// `/static/kb.css` ...): the page, a redirect from a former or alternative name, or
  /// the 404 page. `path` is already percent-decoded.
  Page serve(const View& v, std::string_view path, const SearchParams& params) const;

  /// The style links are written in.
  LinkStyle style() const;

  /// Templates and link style; defined in pages_internal.h for the page files.
  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// GET and POST /check: the "Am I affected?" form, and a posted deployment checked through
/// the same code as POST /api/v1/check (its status too: 200, 400, 413, 422).
void check_page(const http::Ctx& c);
/// POST /search: a pasted log, read as POST /api/v1/triage reads one, the gotchas it
/// names shown on the search page.
void search_log_page(const http::Ctx& c);

/// The route handler of every HTML page of `kb serve` (routes.cpp points its page rows
/// here): renders from the request's snapshot with the server's Renderer, and sends the
/// page with a strict Content-Security-Policy.
void handle(const http::Ctx& c);
/// handle()'s answer when the page is already in the snapshot's response cache (a Peek).
bool peek(const http::Ctx& c);

}  // namespace kb::pages
