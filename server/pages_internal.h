#pragma once

// Shared by the page renderers: relative links, template loading, and the pieces of
// view data several pages show. Every string that reaches a template through `{{ }}`
// is escaped there; only render_markdown() and snippet_html() output goes through `{{{ }}}`.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mustache.h"
#include "pages.h"

namespace kb::pages {

// Pages build their data bottom-up and move each part into place; an lvalue must be moved
// in (or copied on purpose, `Data(x)`), so no copy of a subtree is silent.

/// `d.key = value` for an object `d` (anything else is left as it is, as set() does).
void set(Data& d, const std::string& key, Data&& value);
void set(Data& d, const std::string& key, List&& items);
void set(Data& d, const std::string& key, const std::string& value);
void set(Data& d, const std::string& key, const char* value);
void set(Data& d, const std::string& key, bool value);
void set(Data& d, const std::string& key, const Data& value) = delete;
void set(Data& d, const std::string& key, const List& items) = delete;
/// A list value, taking `items` without copying them.
Data list_data(List&& items);
/// An object of one member.
Data object_of(const std::string& key, Data&& value);
Data object_of(const std::string& key, List&& items);

/// Relative links from a page `depth` directories below the site root.
class Links {
 public:
  Links(LinkStyle style, int depth);
  /// Links from the server's root ("/gotchas/x"), for pages answering paths too deep to
  /// climb back from with "../" (the live server only).
  static Links from_root(LinkStyle style, std::string_view root = "/");
  /// "", "../", "../../" ...
  const std::string& root() const { return root_; }
  /// The home page.
  std::string home() const;
  /// The page of a record id ("gotchas/x"); results link to their JSON.
  std::string page(std::string_view id) const;
  /// The record's JSON, beside its page.
  std::string json(std::string_view id) const;
  /// The record's YAML source file, beside its page.
  std::string source(std::string_view id) const;
  /// The search page, with its query parameters when given.
  std::string search(const SearchParams& p = {}) const;
  /// The diagnostics page.
  std::string diagnostics() const;
  /// The "Am I affected?" page (`check/index.html` in the static site).
  std::string check() const;
  /// A file of web/static.
  std::string asset(std::string_view name) const;
  /// The Atom feed.
  std::string feed() const;

 private:
  std::string top_level(std::string_view name) const;
  std::string by_id(std::string_view id, std::string_view suffix) const;

  LinkStyle style_;
  std::string root_;
};

/// Template and static files: compiled in, or read from a web directory.
class Templates {
 public:
  explicit Templates(std::filesystem::path web_dir);
  ~Templates();
  Templates(Templates&&) noexcept;
  Templates& operator=(Templates&&) noexcept;
  /// The bytes of `path` under web/ ("templates/home.mustache", "static/kb.css").
  std::optional<std::string> file(std::string_view path) const;
  /// Paths of every file under `dir` ("static") of web/, sorted.
  std::vector<std::string> list(std::string_view dir) const;
  /// Renders templates/<name>.mustache with `data`; every `_x.mustache` is the partial
  /// `{{>x}}`. Each template is parsed once, its partials spliced in, and reused (from a
  /// web directory: re-read every time, re-parsed when a file changed). Safe to call from
  /// many threads at once. Throws Error(internal) on a missing or malformed template.
  std::string render(std::string_view name, const Data& data) const;

 private:
  struct Parsed;
  struct Cache;
  std::shared_ptr<const Parsed> parsed(std::string_view name) const;

  std::filesystem::path web_dir_;
  std::unique_ptr<Cache> cache_;
};

/// What a Renderer holds.
struct Renderer::Impl {
  LinkStyle style;
  Templates templates;
};

/// Sets `key` only when `value` is not empty, so `{{#key}}` sections skip empty values
/// (an empty string is true to a section, as in kainjow's Mustache).
void put(Data& d, const std::string& key, const std::string& value);

/// {"items": items, "has_items": !empty}: what the gotcha_list partial renders.
Data item_list(List items);

/// The data every page's head and foot partials use: title, links, search box.
Data page_data(const Links& links, std::string_view title, std::string_view query = {});

/// A gotcha in a list: title, link, id, severity and status badges, reproduction.
Data gotcha_item(const View& v, const Links& links, const Record& r);

/// The severities in order, then the statuses in order, as written in records.
extern const std::vector<std::string_view> kSeverities;
extern const std::vector<std::string_view> kStatuses;

/// Newest date the record was verified on: its references' as_of, its newest result.
std::string verified_as_of(const View& v, const Record& r);

/// Every gotcha, sorted by severity, then id.
std::vector<const Record*> gotchas_by_severity(const View& v);

/// The id a reference resolves to, or "".
std::string target_id(const View& v, const RefValue& ref, Kind ns);

/// An engine reference as a list item: name, link when it resolves, version range.
Data engine_ref(const View& v, const Links& links, const RefValue& ref);

/// A citation as a list item: label ("vllm-project/vllm#40896"), http(s) link, state.
Data citation_item(const Citation& c);

/// Citations as list items (citation_item).
List citation_list(const Vec<Citation>& list);

/// Strings as list items {value}.
List value_list(const Vec<std::string>& values);

/// Whether the gotcha's `detection.silent` is true: every health signal says fine.
bool is_silent(const Record& r);

/// Orders gotchas for a list: silent ones first, then by severity, then by id.
void order_for_list(std::vector<const Record*>& gotchas);

/// A named group of gotchas for the grouped lists: name, anchor, href (when the group
/// has a page), counts (all, silent, blockers) and the items, silent first. `range_of`
/// may give each item a version range to show beside it.
Data gotcha_group(const View& v, const Links& links, const std::string& name,
                  const std::string& anchor, const std::string& href,
                  std::vector<const Record*> gotchas,
                  const std::function<std::string(const Record&)>& range_of = {});

/// Gotchas grouped by `family` (groups by name, gotchas without one last).
List groups_by_family(const View& v, const Links& links, const std::vector<const Record*>& gotchas,
                      const std::function<std::string(const Record&)>& range_of = {});

/// Gotchas grouped by every engine their `affects` names, groups by engine name.
List groups_by_engine(const View& v, const Links& links, const std::vector<const Record*>& gotchas);

/// `applies_when` as lines: {depth, parts: [{text, href?, code}]}; engines and setting
/// keys link to their pages, values are code. Every string is escaped by the template.
List predicate_clauses(const View& v, const Links& links, const Predicate& p);

/// A config test as text with the setting's canonical key: "kv_cache_dtype is one of fp8,
/// fp8_e5m2".
std::string config_test_text(const View& v, const ConfigTest& t);

/// Setting id -> the tests of it a predicate makes, as text, each once.
using SettingTests = std::map<std::string, std::vector<std::string>>;

/// Adds every setting `p` tests (config, model, hardware, config_set, differs, compare).
void tested_settings(const View& v, const Predicate& p, SettingTests& out);

/// Setting id -> the gotchas whose `applies_when` tests it, each with its tests as text.
using SettingUses =
    std::map<std::string, std::vector<std::pair<const Record*, std::vector<std::string>>>>;

/// Computed on first use by any page of a view, then shared: every setting and model page
/// and the home page read the whole corpus's settings uses.
struct ViewCache {
  std::once_flag setting_uses_once;
  SettingUses setting_uses;
};

/// gotchas_by_setting's answer, from the view's cache.
const SettingUses& gotchas_by_setting(const View& v);

/// The page kinds, one per file.
std::string render_gotcha(const Renderer::Impl& impl, const View& v, const Record& r);
std::string render_engine(const Renderer::Impl& impl, const View& v, const Record& r);
std::string render_oracle(const Renderer::Impl& impl, const View& v, const Record& r);
std::string render_setting(const Renderer::Impl& impl, const View& v, const Record& r);
std::string render_model(const Renderer::Impl& impl, const View& v, const Record& r);
std::string render_result(const Renderer::Impl& impl, const View& v, const Record& r);

/// The gotcha page's fix chain, detection and impact sections, set into `d`.
void gotcha_facts(const View& v, const Links& links, const Record& r, Data& d);

/// The engine page's relations (both ways), packages, images, entry points, releases
/// and the settings it spells, set into `d`.
void engine_facts(const View& v, const Links& links, const Record& r, Data& d);

/// How many directories below the site root the page of `id` is: 1 for "gotchas/x".
int depth_of(std::string_view id);

}  // namespace kb::pages
