#pragma once

// Shared by the pages tests: small record trees loaded in memory, and XHTML parsing.

#include <pugixml.hpp>

#include <algorithm>
#include <cctype>
#include <set>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "kb/corpus.h"
#include "kb/lint.h"
#include "pages.h"

namespace kb::test {

/// A linted in-memory tree and the view pages render from.
struct Tree {
  Linted linted;
  std::unique_ptr<pages::ReferenceMap> refs;
  std::unique_ptr<DiagnosticList> diags;
  pages::View view() const { return pages::make_view(linted, *refs, *diags); }
};

inline Tree make_tree(const std::vector<std::pair<std::string, std::string>>& files) {
  std::vector<FileResult> loaded;
  for (const auto& [file, text] : files) loaded.push_back(load_record_text(file, text));
  LintOptions options;
  options.today = "2026-10-10";
  Tree t{lint_corpus(Corpus::from_files("mem", std::move(loaded)), options), nullptr, nullptr};
  t.refs = std::make_unique<pages::ReferenceMap>(*t.linted.corpus);
  t.diags = std::make_unique<DiagnosticList>(t.linted.diagnostics);
  return t;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every *.yaml under `dir`, as (path relative to dir, bytes).
inline std::vector<std::pair<std::string, std::string>> read_tree(
    const std::filesystem::path& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    out.emplace_back(std::filesystem::relative(e.path(), dir).generic_string(),
                     read_text(e.path()));
  }
  return out;
}

/// Parses a page as XML (pages are XHTML-compatible); empty document on failure.
inline std::unique_ptr<pugi::xml_document> parse_page(const std::string& html,
                                                      std::string* error = nullptr) {
  auto doc = std::make_unique<pugi::xml_document>();
  auto res = doc->load_string(html.c_str(),
                              pugi::parse_default | pugi::parse_doctype | pugi::parse_ws_pcdata);
  if (!res && error != nullptr) {
    *error = std::string(res.description()) + " at offset " + std::to_string(res.offset) + ": " +
             html.substr(res.offset > 80 ? res.offset - 80 : 0, 160);
  }
  if (!res) doc->reset();
  return doc;
}

/// Whitespace runs as one space, none at either end (XPath's normalize-space).
inline std::string normalize_space(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
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

/// Text of the first node matching `xpath`, whitespace normalised, or "(none)".
inline std::string text_at(const pugi::xml_document& doc, const char* xpath) {
  auto n = doc.select_node(xpath);
  if (!n) return "(none)";
  std::string out;
  struct Collect : pugi::xml_tree_walker {
    std::string* out;
    bool for_each(pugi::xml_node& node) override {
      if (node.type() == pugi::node_pcdata || node.type() == pugi::node_cdata) *out += node.value();
      return true;
    }
  } walker;
  walker.out = &out;
  if (n.node().type() == pugi::node_pcdata) return normalize_space(n.node().value());
  n.node().traverse(walker);
  return normalize_space(out);
}

/// Values of attribute `attr` of every node matching `xpath`.
inline std::vector<std::string> attrs_at(const pugi::xml_document& doc, const char* xpath,
                                         const char* attr) {
  std::vector<std::string> out;
  for (const auto& n : doc.select_nodes(xpath)) out.push_back(n.node().attribute(attr).value());
  return out;
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A URL a browser would run or render as a document: judged on what it parses.
inline bool dangerous_url(const std::string& value) {
  std::string seen;
  for (char c : value) {
    if (static_cast<unsigned char>(c) > 0x20) seen += c;
  }
  seen = lower(seen);
  for (const char* scheme : {"javascript:", "vbscript:", "data:", "file:", "blob:"}) {
    if (seen.rfind(scheme, 0) == 0) return true;
  }
  return false;
}

inline const std::set<std::string> kAllowedScripts = {"search-index.js", "static/search.js"};
inline const std::set<std::string> kForbiddenElements = {
    "iframe", "object",   "embed",  "svg",      "math",  "style", "base",
    "frame",  "frameset", "applet", "template", "audio", "video"};
inline const std::set<std::string> kUrlAttributes = {
    "href", "src", "action", "formaction", "xlink:href", "poster", "data", "background", "cite"};

// Every way the page could run record-supplied code, as readable problems.
inline std::vector<std::string> active_content(const std::string& page, const std::string& html) {
  std::vector<std::string> problems;
  std::string error;
  auto doc = parse_page(html, &error);
  if (!doc->first_child()) return {page + ": not well-formed: " + error};
  struct Walker : pugi::xml_tree_walker {
    std::vector<std::string>* problems;
    std::string page;
    bool for_each(pugi::xml_node& n) override {
      if (n.type() != pugi::node_element) return true;
      const std::string name = lower(n.name());
      auto problem = [&](const std::string& what) {
        problems->push_back(page + ": <" + name + "> " + what);
      };
      if (kForbiddenElements.count(name)) problem("element");
      if (name == "script") {
        const std::string src = n.attribute("src").value();
        std::string base = src;
        while (base.rfind("../", 0) == 0) base.erase(0, 3);
        if (!kAllowedScripts.count(base) || n.first_child()) problem("script src='" + src + "'");
      }
      if (name == "meta" && n.attribute("http-equiv")) problem("http-equiv");
      if (name == "link") {
        const std::string rel = n.attribute("rel").value();
        if (rel != "stylesheet" && rel != "alternate" && rel != "icon" && rel != "self")
          problem("rel=" + rel);
      }
      for (auto a : n.attributes()) {
        const std::string attr = lower(a.name());
        if (attr.rfind("on", 0) == 0 || attr == "style" || attr == "srcdoc")
          problem("attribute " + attr);
        if (kUrlAttributes.count(attr) && dangerous_url(a.value())) {
          problem(attr + "='" + a.value() + "'");
        }
      }
      return true;
    }
  } walker;
  walker.problems = &problems;
  walker.page = page;
  doc->traverse(walker);
  return problems;
}

/// A tree shaped like the shipped seeds: two related gotchas, four engines, an oracle,
/// two failing results, a passing control.
inline std::vector<std::pair<std::string, std::string>> seed_like_files() {
  return {
      {"engines/vllm.yaml",
       "name: vLLM\nrepo: vllm-project/vllm\nurl: https://github.com/vllm-project/vllm\n"},
      {"engines/lmcache.yaml", "name: LMCache\nrepo: LMCache/LMCache\n"},
      {"engines/nixl.yaml", "name: NIXL\nrepo: ai-dynamo/nixl\n"},
      {"settings/kv-transfer.yaml",
       "title: KV transfer between instances\ntype: enum\nvalues: [pd, none]\n"
       "engines: [{engine: vllm, keys: [kv_transfer]}]\n"},
      {"settings/kv-offload.yaml",
       "title: KV offload tier\ntype: enum\nvalues: [none, local, shared]\n"
       "engines: [{engine: lmcache, keys: [kv_offload]}]\n"},
      {"settings/batch-invariant.yaml",
       "title: Batch-invariant numerics\ntype: bool\nsynonyms: [VLLM_BATCH_INVARIANT]\n"
       "engines: [{engine: vllm, env: [VLLM_BATCH_INVARIANT]}]\n"},
      {"engines/mooncake.yaml",
       "name: Mooncake\nrepo: kvcache-ai/Mooncake\naliases: [mooncake-transfer-engine]\n"
       "description: |\n  KVCache-centric *disaggregated* serving.\n"},
      {"oracles/monolithic-equivalence.yaml",
       "title: Output equivalence against a monolithic baseline\n"
       "method: |\n  Compare token ids with a **monolithic** server.\n"
       "pass_criterion: identical tokens at temperature 0\n"},
      {"results/run-a.yaml",
       "oracle: monolithic-equivalence\ndate: 2026-09-30\n"
       "subject:\n  engines: [{engine: vllm, version: 0.26.0}, {engine: lmcache}]\n"
       "  config: {kv_transfer: pd}\npassed: 0\nfailed: 3\n"
       "evidence_for: [gotchas/pd-cache-hit]\n"
       "source: {type: issue, repo: vllm-project/vllm, number: 52617}\n"},
      {"results/run-b.yaml",
       "oracle: monolithic-equivalence\ndate: 2026-10-01\n"
       "subject:\n  engines: [{engine: vllm, version: 0.27.1}, {engine: lmcache}]\n"
       "  config: {kv_transfer: pd}\npassed: 0\nfailed: 3\n"
       "evidence_for: [gotchas/pd-cache-hit]\n"},
      {"results/mooncake-control.yaml",
       "oracle: monolithic-equivalence\ndate: 2026-10-03\n"
       "subject:\n  engines: [{engine: vllm}, {engine: mooncake}]\n"
       "  config: {kv_transfer: pd}\npassed: 1\nfailed: 0\n"},
      {"gotchas/pd-cache-hit.yaml",
       "title: P/D cache hit silently differs from a cold run\nseverity: blocker\nstatus: open\n"
       "kind: correctness\nfamily: disaggregation\ncreated: 2026-10-01\n"
       "affects:\n  - {engine: vllm, versions: \">=0.26.0, <0.28\"}\n  - lmcache\n"
       "symptom: |\n  Output diverges from token 0.\n"
       "workaround: |\n  Run the oracle.\n"
       "related: [pd-batch-invariant]\noracles: [monolithic-equivalence]\n"
       "references:\n  - {type: issue, repo: vllm-project/vllm, number: 40896, state: open, as_of: "
       "2026-10-03}\n"},
      {"gotchas/pd-batch-invariant.yaml",
       "title: Batch-invariant mode is not part of the KV namespace\nseverity: major\nstatus: "
       "open\n"
       "kind: config\nfamily: disaggregation\ncreated: 2026-10-02\n"
       "affects:\n  - vllm\n  - {engine: nixl}\n  - {engine: mooncake, versions: \">=0.3.0, "
       "<0.4\"}\n"
       "applies_when:\n  all:\n    - {config: {VLLM_BATCH_INVARIANT: \"1\"}}\n"
       "    - any: [{config: {kv_transfer: pd}}, {config: {kv_offload: shared}}]\n"
       "symptom: |\n  No observed failure yet: see `FileMapper.fields` and\n"
       "  [the RFC](https://github.com/vllm-project/vllm/issues/55524).\n\n"
       "  | field | in hash |\n  |---|---|\n  | dtype | yes |\n"
       "root_cause: |\n  The flag is ~~absent~~ missing.\n"
       "notes: |\n  Read at v0.29.0.\n"
       "related: [pd-cache-hit]\n"
       "references:\n  - {type: issue, repo: vllm-project/vllm, number: 55524, state: open, as_of: "
       "2026-10-03}\n"
       "  - {type: commit, repo: vllm-project/vllm, ref: 98dff2a, note: read at v0.29.0}\n"
       "repairs:\n  - {date: 2026-10-04, field: \"affects[2]\", from: mooncache, to: mooncake,\n"
       "     reason: one-character typo in an engine id}\n"},
  };
}

}  // namespace kb::test
