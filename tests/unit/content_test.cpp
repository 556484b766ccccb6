// Content tests of the shipped knowledge base: each deployment under tests/data/content/
// must hit (a definite finding) every gotcha its expect-*.yaml entry lists under `hits`,
// must not report (neither definite nor possible) any listed under `misses`, and must report
// those under `possible` as possible only. This is how a record's applies_when is tested
// against the real settings, engines and models.

#include <yaml-cpp/yaml.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/evidence.h"

namespace fs = std::filesystem;
using namespace kb;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Shipped {
  std::shared_ptr<const Corpus> corpus;
  EvidenceIndex evidence;
  CheckIndex index;

  static const Shipped& get() {
    static const Shipped s;
    return s;
  }
  Shipped() {
    corpus = Corpus::load(fs::path(KB_SOURCE_DIR) / "records");
    evidence = EvidenceIndex::build(*corpus);
    index = CheckIndex::build(*corpus, evidence);
  }
};

std::vector<std::string> strings(const YAML::Node& n) {
  std::vector<std::string> out;
  if (n) {
    for (const auto& x : n) out.push_back(x.as<std::string>());
  }
  return out;
}

}  // namespace

TEST_CASE("content: the shipped records load without errors or warnings", "[content]") {
  const auto& s = Shipped::get();
  for (const auto& d : s.corpus->diagnostics()) {
    if (d.severity == Severity::error || d.severity == Severity::warning) {
      FAIL_CHECK(format_diagnostic(d));
    }
  }
  CHECK(s.index.size() >= 60);
}

TEST_CASE("content: each deployment hits and misses the gotchas it lists", "[content]") {
  const auto& s = Shipped::get();
  const fs::path dir = fs::path(KB_TEST_DATA) / "content";
  std::set<std::string> gotchas;
  for (const auto& r : s.corpus->records()) {
    if (r->kind == Kind::gotcha) gotchas.insert(r->id);
  }
  std::size_t cases = 0;
  std::set<std::string> used;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("expect-", 0) != 0) continue;
    YAML::Node list = YAML::LoadFile(entry.path().string());
    REQUIRE(list.IsSequence());
    for (const auto& c : list) {
      const std::string file = c["deployment"].as<std::string>();
      used.insert(file);
      INFO(name << ": " << file);
      const auto hits = strings(c["hits"]);
      const auto misses = strings(c["misses"]);
      const auto possible = strings(c["possible"]);
      REQUIRE(hits.size() + misses.size() + possible.size() > 0);
      for (const auto& id : hits) CHECK(gotchas.count(id) == 1);  // a typo would pass silently
      for (const auto& id : misses) CHECK(gotchas.count(id) == 1);
      for (const auto& id : possible) CHECK(gotchas.count(id) == 1);

      std::vector<Diagnostic> diags;
      Deployment d = s.index.read({{file, slurp(dir / file)}}, {}, diags);
      for (const auto& x : diags) INFO(format_diagnostic(x));
      REQUIRE(count_severity(diags, Severity::error) == 0);
      CheckReport report = s.index.run(d, {});
      for (const auto& x : report.diagnostics) INFO(format_diagnostic(x));
      REQUIRE(count_severity(report.diagnostics, Severity::error) == 0);

      std::set<std::string> definite, reported;
      for (const auto& f : report.findings) {
        reported.insert(f.id);
        if (!f.possible) definite.insert(f.id);
      }
      for (const auto& id : hits) {
        INFO("must hit " << id);
        CHECK(definite.count(id) == 1);
      }
      for (const auto& id : misses) {
        INFO("must miss " << id);
        CHECK(reported.count(id) == 0);
      }
      for (const auto& id : possible) {
        INFO("must be possible, not definite " << id);
        CHECK(reported.count(id) == 1);
        CHECK(definite.count(id) == 0);
      }
      ++cases;
    }
  }
  CHECK(cases >= 90);
  // Every deployment fixture is used by some expectation.
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("expect-", 0) == 0 || entry.path().extension() == ".md") continue;
    INFO(name << " is not listed in any expect-*.yaml");
    CHECK(used.count(name) == 1);
  }
}
