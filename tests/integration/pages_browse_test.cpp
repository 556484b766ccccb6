// The pages that make the site browsable, rendered from tests/data/pages/records: the
// gotcha page's fix chain, detection, impact and readable predicate; the grouped home and
// engine pages (silent gotchas first); the setting and model pages; back-links.

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include "kb/error.h"
#include "pages_fixture.h"
#include "site.h"

using kb::pages::LinkStyle;
using kb::pages::Renderer;
using kb::test::attrs_at;
using kb::test::parse_page;
using kb::test::text_at;

namespace fs = std::filesystem;

namespace {

const kb::test::Tree& tree() {
  static const kb::test::Tree t =
      kb::test::make_tree(kb::test::read_tree(fs::path(KB_TEST_DATA) / "pages" / "records"));
  return t;
}

std::unique_ptr<pugi::xml_document> parsed(const std::string& html) {
  std::string error;
  auto doc = parse_page(html, &error);
  INFO(error);
  REQUIRE(doc->first_child());
  return doc;
}

std::unique_ptr<pugi::xml_document> page(const Renderer& r, const char* id) {
  const kb::Record* rec = tree().linted.corpus->find(id);
  REQUIRE(rec != nullptr);
  auto html = r.record(tree().view(), *rec);
  REQUIRE(html);
  return parsed(*html);
}

// The whitespace-normalised text of every node matching `xpath`; text on either side of a
// <br /> runs together.
std::vector<std::string> texts(const pugi::xml_document& d, const char* xpath) {
  std::vector<std::string> out;
  for (const auto& n : d.select_nodes(xpath)) {
    std::string text;
    if (n.node().type() == pugi::node_pcdata) text = n.node().value();
    for (const auto& t : n.node().select_nodes(".//text()")) text += t.node().value();
    out.push_back(kb::test::normalize_space(text));
  }
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("the browse fixture lints clean, without warnings", "[pages][browse]") {
  for (const auto& d : tree().linted.diagnostics) {
    INFO(kb::format_diagnostic(d));
    CHECK(d.severity == kb::Severity::note);
  }
  CHECK(tree().linted.corpus->records().size() == 14);
}

TEST_CASE("gotcha page: readable predicate with engines and settings linked", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = page(r, "gotchas/a-silent-cache");
  const auto& d = *doc;
  CHECK(texts(d, "//ul[@class='predicate']/li") ==
        Strings{"all of:", "engine vLLM <0.28.0", "prefix_caching = true", "any of:",
                "kv_cache_dtype is one of fp8, auto", "not kv_connector is set explicitly"});
  CHECK(attrs_at(d, "//ul[@class='predicate']/li", "class") ==
        Strings{"depth-0", "depth-1", "depth-1", "depth-1", "depth-2", "depth-2"});
  CHECK(attrs_at(d, "//ul[@class='predicate']//a", "href") ==
        Strings{"../engines/vllm", "../settings/prefix-caching", "../settings/kv-cache-dtype",
                "../settings/kv-connector"});
  CHECK(texts(d, "//ul[@class='predicate']//code") == Strings{"<0.28.0", "true", "fp8", "auto"});

  auto b = page(r, "gotchas/b-loud-crash");
  CHECK(texts(*b, "//ul[@class='predicate']/li") ==
        Strings{"all of:", "engine vLLM", "role is prefill or decode",
                "prefill and decode differ in kv_cache_dtype"});
  auto c = page(r, "gotchas/c-model-moe");
  CHECK(texts(*c, "//ul[@class='predicate']/li") ==
        Strings{"all of:", "engine vLLM Ascend", "model trait moe = true"});
  CHECK(attrs_at(*c, "//ul[@class='predicate']//a", "href") ==
        Strings{"../engines/vllm-ascend", "../settings/moe"});
  auto dd = page(r, "gotchas/d-silent-minor");
  CHECK(texts(*dd, "//ul[@class='predicate']/li[3]") ==
        Strings{"the decode services' kv_cache_dtype != the prefill services' kv_cache_dtype"});
}

TEST_CASE("gotcha page: confidence, as_of, tags, detection", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = page(r, "gotchas/a-silent-cache");
  const auto& d = *doc;
  CHECK(text_at(d, "//p[@class='badges']/span[@class='badge silent']") == "silent");
  CHECK(text_at(d, "//dt[.='Confidence']/following-sibling::dd[1]") == "reproduced upstream");
  CHECK(text_at(d, "//dt[.='Status as of']/following-sibling::dd[1]") == "2026-09-01");
  CHECK(texts(d, "//ul[@class='inline tags']/li") == Strings{"cache-key", "determinism"});
  CHECK(attrs_at(d, "//ul[@class='inline tags']//a", "href") ==
        Strings{"../search?q=cache-key", "../search?q=determinism"});
  CHECK(text_at(d, "//section[@id='detection']/p[@class='silent-note']") ==
        "silent Every health signal says fine while it happens.");
  CHECK(texts(d, "//section[@id='detection']//ul[@class='inline signals']/li") ==
        Strings{"HTTP 200", "full cached_tokens"});
  CHECK(attrs_at(d, "//div[@class='caught-by']//a", "href") == Strings{"../oracles/cold-vs-warm"});
  CHECK(text_at(d, "//div[@class='caught-by']//a") == "Cold run against warm runs");
  CHECK(text_at(d, "//div[@class='prose canary']//strong") == "twice");
  CHECK(!d.select_node("//section[@id='impact']"));

  auto b = page(r, "gotchas/b-loud-crash");
  CHECK(!b->select_node("//p[@class='badges']/span[@class='badge silent']"));
  CHECK(text_at(*b, "//section[@id='detection']/p[@class='loud-note']") ==
        "Not silent: it shows itself.");
  CHECK(!b->select_node("//section[@id='fixes']"));
  CHECK(texts(*b, "//section[@id='impact']//tbody/tr/td") ==
        Strings{"throughput", "about -50%", "with long prompts"});
  auto c = page(r, "gotchas/c-model-moe");
  CHECK(!c->select_node("//section[@id='detection']"));
}

TEST_CASE("gotcha page: the fix chain says disabled is not fixed", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = page(r, "gotchas/a-silent-cache");
  const auto& d = *doc;
  CHECK(attrs_at(d, "//table[@class='fixes']/tbody/tr", "class") ==
        Strings{"resolution-fixed", "resolution-disabled"});
  CHECK(texts(d, "//table[@class='fixes']/tbody/tr[1]/td") ==
        Strings{"vLLM", "vllm-project/vllm#100 open", "vllm-project/vllm#101 merged",
                "fixed in 0.28.0", "fixed"});
  CHECK(attrs_at(d, "//table[@class='fixes']/tbody/tr[1]/td[3]//a", "href") ==
        Strings{"https://github.com/vllm-project/vllm/pull/101"});
  CHECK(texts(d, "//table[@class='fixes']/tbody/tr[2]/td") ==
        Strings{"vLLM Ascend", "", "vllm-project/vllm-ascend#7 merged", "no fixed version",
                // The note stands on a line of its own (<br />).
                "disabled disabled, not fixed: the feature is turned off, the bug is still there"
                "turns prefix caching off on Ascend"});
  CHECK(text_at(d, "//table[@class='fixes']/tbody/tr[2]//strong[@class='not-fixed']") ==
        "disabled, not fixed: the feature is turned off, the bug is still there");
}

TEST_CASE("related gotchas link both ways: a listed one shows the back-link", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto a = page(r, "gotchas/a-silent-cache");
  CHECK(attrs_at(*a, "//section[@id='related']//li/a", "href") ==
        Strings{"../gotchas/b-loud-crash"});
  CHECK(texts(*a, "//section[@id='related']//span[@class='direction']") ==
        Strings{"(listed here)"});
  // b lists nothing; a lists b, so b links back.
  auto b = page(r, "gotchas/b-loud-crash");
  CHECK(attrs_at(*b, "//section[@id='related']//li/a", "href") ==
        Strings{"../gotchas/a-silent-cache"});
  CHECK(texts(*b, "//section[@id='related']//span[@class='direction']") ==
        Strings{"(lists this one)"});
}

TEST_CASE("home page: gotchas by family and by engine, silent first", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = parsed(r.home(tree().view()));
  const auto& d = *doc;
  CHECK(text_at(d, "//p[@class='lede']/span[@class='badge silent']") == "2 silent");
  CHECK(attrs_at(d, "//section[@id='by-family']/section", "id") ==
        Strings{"family-moe", "family-prefix-caching"});
  CHECK(text_at(d, "//section[@id='family-prefix-caching']/h3") ==
        "prefix-caching 3 2 silent 1 blocker");
  // Silent first, even before a more severe gotcha that is not silent.
  CHECK(attrs_at(d, "//section[@id='family-prefix-caching']//li/a", "href") ==
        Strings{"gotchas/a-silent-cache", "gotchas/d-silent-minor", "gotchas/b-loud-crash"});
  CHECK(texts(d, "//section[@id='family-prefix-caching']//li/span[@class='badges']/span[1]") ==
        Strings{"silent", "silent", "major"});
  CHECK(text_at(d, "//section[@id='family-moe']/h3") == "moe 1");
  CHECK(attrs_at(d, "//section[@id='by-engine']/section", "id") ==
        Strings{"engine-lmcache", "engine-vllm", "engine-vllm-ascend"});
  CHECK(attrs_at(d, "//section[@id='engine-vllm']/h3/a", "href") == Strings{"engines/vllm"});
  CHECK(attrs_at(d, "//section[@id='engine-vllm']//li/a", "href") ==
        Strings{"gotchas/a-silent-cache", "gotchas/b-loud-crash"});
  CHECK(texts(d, "//section[@id='engine-vllm']//li/span[@class='range']") == Strings{"<0.28.0"});
  CHECK(attrs_at(d, "//section[@id='engine-vllm-ascend']//li/a", "href") ==
        Strings{"gotchas/a-silent-cache", "gotchas/c-model-moe"});
  CHECK(texts(d, "//section[@id='settings']//li") ==
        Strings{"kv_cache_dtype 3", "kv_connector 1", "moe 1", "prefix_caching 1", "role 0"});
  CHECK(attrs_at(d, "//section[@id='settings']//li/a", "href") ==
        Strings{"settings/kv-cache-dtype", "settings/kv-connector", "settings/moe",
                "settings/prefix-caching", "settings/role"});
  CHECK(texts(d, "//section[@id='models']//li") == Strings{"Mixtral 1"});
}

TEST_CASE("engine page: relations both ways, packages, images, entry points, releases, settings",
          "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = page(r, "engines/vllm");
  const auto& d = *doc;
  CHECK(texts(d, "//ul[@class='inline relations']/li") == Strings{"has plugin vLLM Ascend"});
  CHECK(attrs_at(d, "//ul[@class='inline relations']//a", "href") ==
        Strings{"../engines/vllm-ascend"});
  CHECK(texts(d, "//ul[@class='inline packages']/li") == Strings{"vllm (pypi)"});
  CHECK(texts(d, "//ul[@class='images']/li") == Strings{"vllm/vllm-openai"});
  CHECK(texts(d, "//ul[@class='entrypoints']/li") ==
        Strings{"vllm serve", "python -m vllm.entrypoints.openai.api_server"});
  CHECK(texts(d, "//ul[@class='releases']/li") == Strings{"0.28.0 2026-08-01", "0.26.0"});
  CHECK(texts(d, "//section[@id='settings']//li") ==
        Strings{"kv_cache_dtype --kv-cache-dtype VLLM_KV_CACHE_DTYPE",
                "kv_connector --kv-transfer-config kv_connector kv_transfer_config kv_connector",
                "prefix_caching --enable-prefix-caching --no-enable-prefix-caching "
                "enable_prefix_caching"});
  CHECK(attrs_at(d, "//section[@id='gotchas']/section", "id") == Strings{"family-prefix-caching"});
  CHECK(attrs_at(d, "//section[@id='gotchas']//li/a", "href") ==
        Strings{"../gotchas/a-silent-cache", "../gotchas/b-loud-crash"});

  auto ascend = page(r, "engines/vllm-ascend");
  CHECK(texts(*ascend, "//ul[@class='inline relations']/li") == Strings{"plugin of vLLM"});
  CHECK(texts(*ascend, "//ul[@class='images']/li") ==
        Strings{"quay.io/ascend/vllm-ascend ships vLLM"});
  CHECK(attrs_at(*ascend, "//section[@id='gotchas']/section", "id") ==
        Strings{"family-moe", "family-prefix-caching"});
  CHECK(!ascend->select_node("//section[@id='settings']"));
}

TEST_CASE("setting page: type, values, spellings per engine, defaults, gotchas testing it",
          "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = page(r, "settings/kv-cache-dtype");
  const auto& d = *doc;
  CHECK(text_at(d, "//h1") == "KV cache data type");
  CHECK(text_at(d, "//dt[.='Key']/following-sibling::dd[1]") == "kv_cache_dtype");
  CHECK(text_at(d, "//dt[.='Type']/following-sibling::dd[1]") == "enum");
  CHECK(text_at(d, "//dt[.='Scope']/following-sibling::dd[1]") == "service");
  CHECK(attrs_at(d, "//table[@class='values']/tbody/tr", "id") ==
        Strings{"value-auto", "value-fp8"});
  CHECK(texts(d, "//table[@class='values']/tbody/tr[2]/td") ==
        Strings{"fp8", "fp8_e4m3", "8-bit floating point KV"});
  CHECK(texts(d, "//table[@class='spellings']/tbody/tr/td") ==
        Strings{"vLLM", "all", "--kv-cache-dtype", "VLLM_KV_CACHE_DTYPE", "", "",
                "auto (all versions)"});
  CHECK(attrs_at(d, "//table[@class='spellings']//a", "href") == Strings{"../engines/vllm"});
  // Computed from the predicates: config in a, compare in d, differs in b; silent first.
  CHECK(
      attrs_at(d, "//section[@id='gotchas']//li/a", "href") ==
      Strings{"../gotchas/a-silent-cache", "../gotchas/d-silent-minor", "../gotchas/b-loud-crash"});
  CHECK(texts(d, "//section[@id='gotchas']//li/span[@class='range']") ==
        Strings{"kv_cache_dtype is one of fp8, auto",
                "decode.kv_cache_dtype != prefill.kv_cache_dtype",
                "prefill and decode differ in kv_cache_dtype"});

  auto apc = page(r, "settings/prefix-caching");
  CHECK(texts(*apc, "//dt[.='Synonyms']/following-sibling::dd[1]//li") ==
        Strings{"enable_prefix_caching", "apc"});
  CHECK(texts(*apc, "//table[@class='spellings']/tbody/tr/td[@class='flags']") ==
        Strings{"--enable-prefix-caching--no-enable-prefix-caching (means false)"});
  CHECK(texts(*apc, "//table[@class='spellings']/tbody/tr/td[@class='defaults']") ==
        Strings{"true (>=0.8.0)false (other versions)"});
  CHECK(text_at(*apc, "//section[@id='description']/p") == "Reuse of KV blocks across requests.");
  auto connector = page(r, "settings/kv-connector");
  CHECK(
      texts(*connector, "//table[@class='spellings']/tbody/tr/td[@class='json']") ==
      Strings{"--kv-transfer-config (field kv_connector)kv_transfer_config (field kv_connector)"});
  CHECK(text_at(*connector, "//section[@id='gotchas']//li/span[@class='range']") ==
        "kv_connector is set explicitly");
  auto moe = page(r, "settings/moe");
  CHECK(text_at(*moe, "//dt[.='Scope']/following-sibling::dd[1]") == "model");
  CHECK(texts(*moe, "//section[@id='models']//li") == Strings{"Mixtral true"});
  CHECK(text_at(*moe, "//section[@id='engines']/p[@class='none']") ==
        "No engine spells it: it is set by deployment files or derived.");
}

TEST_CASE("model page: match globs, traits, gotchas testing them", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  auto doc = page(r, "models/mixtral");
  const auto& d = *doc;
  CHECK(text_at(d, "//h1") == "Mixtral");
  CHECK(texts(d, "//ul[@class='inline match']/li") == Strings{"mistralai/Mixtral-*"});
  CHECK(texts(d, "//ul[@class='traits']/li") == Strings{"moe = true"});
  CHECK(attrs_at(d, "//ul[@class='traits']//a", "href") == Strings{"../settings/moe"});
  CHECK(attrs_at(d, "//section[@id='gotchas']//li/a", "href") == Strings{"../gotchas/c-model-moe"});
  CHECK(text_at(d, "//section[@id='gotchas']//li/span[@class='range']") ==
        "moe = true (this model: moe = true)");
}

TEST_CASE("live server paths reach setting and model pages and their JSON", "[pages][browse]") {
  const Renderer r(LinkStyle::live);
  const auto setting = r.serve(tree().view(), "/settings/kv-cache-dtype", {});
  CHECK(setting.outcome == kb::pages::Outcome::ok);
  CHECK(text_at(*parsed(setting.body), "//h1") == "KV cache data type");
  const auto model = r.serve(tree().view(), "/models/mixtral", {});
  CHECK(model.outcome == kb::pages::Outcome::ok);
  // The JSON beside the page: JSON fields say whether they sit in a flag or a key.
  const auto json = r.serve(tree().view(), "/settings/kv-connector.json", {});
  REQUIRE(json.outcome == kb::pages::Outcome::ok);
  const auto j = nlohmann::json::parse(json.body);
  CHECK(j["engines"][0]["json"] ==
        nlohmann::json::parse(R"([{"flag": "--kv-transfer-config", "field": "kv_connector"},
                                  {"key": "kv_transfer_config", "field": "kv_connector"}])"));
  const auto gotcha =
      nlohmann::json::parse(r.serve(tree().view(), "/gotchas/a-silent-cache.json", {}).body);
  CHECK(gotcha["fixes"][0]["prs"][0]["date"] == "2026-07-20");
  CHECK(gotcha["fixes"][1]["resolution"] == "disabled");
  CHECK(gotcha["detection"]["silent"] == true);
  CHECK(gotcha["confidence"] == "reproduced-upstream");
}

TEST_CASE("kb site writes the setting and model pages with static links", "[pages][browse]") {
  const fs::path out = fs::temp_directory_path() / ("kb-browse-site-" + std::to_string(::getpid()));
  fs::remove_all(out);
  kb::site::write_site(tree().linted, {out, {}});
  for (const char* file : {"settings/kv-cache-dtype.html", "settings/moe.html",
                           "models/mixtral.html", "models/mixtral.json"}) {
    INFO(file);
    CHECK(fs::is_regular_file(out / file));
  }
  auto home = parsed(kb::test::read_text(out / "index.html"));
  CHECK(attrs_at(*home, "//section[@id='models']//li/a", "href") == Strings{"models/mixtral.html"});
  CHECK(attrs_at(*home, "//section[@id='family-moe']//li/a", "href") ==
        Strings{"gotchas/c-model-moe.html"});
  auto setting = parsed(kb::test::read_text(out / "settings/kv-cache-dtype.html"));
  CHECK(attrs_at(*setting, "//section[@id='gotchas']//li/a", "href") ==
        Strings{"../gotchas/a-silent-cache.html", "../gotchas/d-silent-minor.html",
                "../gotchas/b-loud-crash.html"});
  auto gotcha = parsed(kb::test::read_text(out / "gotchas/a-silent-cache.html"));
  CHECK(attrs_at(*gotcha, "//ul[@class='predicate']//a", "href") ==
        Strings{"../engines/vllm.html", "../settings/prefix-caching.html",
                "../settings/kv-cache-dtype.html", "../settings/kv-connector.html"});
  fs::remove_all(out);
}
