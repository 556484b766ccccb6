#include <catch2/catch.hpp>

#include "../test_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kb/corpus.h"
#include "kb/diagnostic_codes.h"

namespace fs = std::filesystem;
using kb::Diagnostic;
using kb::load_record_text;

namespace {

using kb::test::read_file;

bool has(const std::vector<Diagnostic>& diags, const std::string& code, int line, int column) {
  for (const auto& d : diags) {
    if (d.code == code && d.line == line && d.column == column) return true;
  }
  return false;
}

std::string dump(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) {
    s += d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.message +
         "\n";
  }
  return s;
}

const char* kValidGotcha = R"(title: Something goes wrong
severity: major
status: open
symptom: |
  It breaks.
)";

}  // namespace

// Fixtures of codes found on one file alone; those found against the rest of the tree
// (kb::CodeScope::tree) are checked by tests/unit/diagnostic_codes_test.cpp. Fixtures are
// loaded with a 4 KiB file limit, so that limits.file-size has a small example.
TEST_CASE("every invalid fixture reports its code at its line and column", "[loader]") {
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(KB_TEST_DATA) / "invalid")) {
    if (!entry.is_regular_file()) continue;
    const std::string bytes = read_file(entry.path());
    // First line: "# expect: CODE LINE:COL [in NAMESPACE]" (gotchas unless named)
    auto eol = bytes.find('\n');
    std::istringstream head(bytes.substr(0, eol));
    std::string hash, expect, code, pos, in, ns = "gotchas";
    head >> hash >> expect >> code >> pos >> in >> ns;
    REQUIRE(expect == "expect:");
    int line = std::stoi(pos.substr(0, pos.find(':')));
    int column = std::stoi(pos.substr(pos.find(':') + 1));
    const std::string stem = entry.path().stem().string();
    const std::string file = ns + "/" + stem + ".yaml";
    const kb::CodeInfo* info = kb::find_code(code);
    REQUIRE(info != nullptr);
    if (info->scope == kb::CodeScope::tree) continue;
    auto result = load_record_text(file, bytes, {.max_file_bytes = 4096});
    INFO(entry.path().filename().string() << "\n" << dump(result.diagnostics));
    CHECK(code == stem);
    CHECK(has(result.diagnostics, code, line, column));
    CHECK_FALSE(result.record);
    for (const auto& d : result.diagnostics) CHECK(d.file == file);
    ++checked;
  }
  CHECK(checked >= 20);
}

TEST_CASE("a valid gotcha loads with its fields", "[loader]") {
  auto r = load_record_text("gotchas/x.yaml", kValidGotcha);
  INFO(dump(r.diagnostics));
  REQUIRE(r.record);
  CHECK(r.diagnostics.empty());
  CHECK(r.record->id == "gotchas/x");
  CHECK(r.record->kind == kb::Kind::gotcha);
  CHECK(r.record->severity == kb::GotchaSeverity::major);
  CHECK(r.record->symptom == "It breaks.\n");
}

TEST_CASE("a BOM, CRLF line endings and non-ASCII text load clean", "[loader]") {
  std::string text =
      "\xEF\xBB\xBFtitle: Caf\xC3\xA9 \xE2\x80\x94 \xE6\x97\xA5\xE6\x9C\xAC\r\n"
      "severity: minor\r\nstatus: open\r\nsymptom: |\r\n  line one\r\n  line two\r\n";
  auto r = load_record_text("gotchas/bom.yaml", text);
  INFO(dump(r.diagnostics));
  REQUIRE(r.record);
  CHECK(r.diagnostics.empty());
  CHECK(r.record->title == "Caf\xC3\xA9 \xE2\x80\x94 \xE6\x97\xA5\xE6\x9C\xAC");
  CHECK(r.record->symptom == "line one\nline two\n");
}

TEST_CASE("the path decides the id and the namespace", "[loader]") {
  auto outside = load_record_text("misc/x.yaml", kValidGotcha);
  REQUIRE(outside.diagnostics.size() == 1);
  CHECK(outside.diagnostics[0].code == "file.path");
  auto bad_slug = load_record_text("gotchas/Bad Name.yaml", kValidGotcha);
  REQUIRE(bad_slug.diagnostics.size() == 1);
  CHECK(bad_slug.diagnostics[0].code == "file.path");
  auto engine = load_record_text("engines/vllm.yml", "name: vLLM\nrepo: vllm-project/vllm\n");
  REQUIRE(engine.record);
  CHECK(engine.record->id == "engines/vllm");
}

TEST_CASE("a record in a subfolder is refused: no URL could name it", "[loader]") {
  auto nested = load_record_text("gotchas/team/x.yaml", kValidGotcha);
  CHECK_FALSE(nested.record);
  REQUIRE(nested.diagnostics.size() == 1);
  CHECK(nested.diagnostics[0].code == "file.path");
  CHECK(nested.diagnostics[0].message ==
        "a record file lives directly in its namespace folder, not in a subfolder (no URL can "
        "name it): move it to gotchas/team-x.yaml");
  auto deeper = load_record_text("settings/a/b/c.yml", kValidGotcha);
  REQUIRE(deeper.diagnostics.size() == 1);
  CHECK(deeper.diagnostics[0].message.find("move it to settings/a-b-c.yaml") != std::string::npos);
}

TEST_CASE("an unknown field suggests the field meant", "[loader]") {
  auto r = load_record_text("gotchas/x.yaml", std::string(kValidGotcha) + "severty: major\n");
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].code == "schema.unknown-field");
  CHECK(r.diagnostics[0].line == 6);
  CHECK(r.diagnostics[0].hint == "did you mean 'severity'?");
}

TEST_CASE("a bad version range is reported at its offending character", "[loader]") {
  auto where = [](const std::string& affects) {
    auto r = load_record_text("gotchas/x.yaml", std::string(kValidGotcha) + "affects:\n" + affects);
    INFO(dump(r.diagnostics));
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].code == "version.invalid");
    return std::to_string(r.diagnostics[0].line) + ":" + std::to_string(r.diagnostics[0].column);
  };
  // Double-quoted, plain, single-quoted: the position of the `x` of `0.2x8`.
  CHECK(where("  - {engine: vllm, versions: \">=0.26, <0.2x8\"}\n") == "7:43");
  CHECK(where("  - {engine: vllm, versions: <0.2x8}\n") == "7:34");
  CHECK(where("  - engine: vllm\n    versions: '>=0.26, <0.2x8'\n") == "8:28");
  // An escape moves the bytes: the column falls back to the scalar's start.
  CHECK(where("  - {engine: vllm, versions: \"\\x3e=0.26, <0.2x8\"}\n") == "7:30");
}

TEST_CASE("hostile input is bounded", "[loader][hostile]") {
  SECTION("a file over the size limit is refused without parsing") {
    std::string big = "title: x\nnotes: \"" + std::string(30u << 20, 'a') + "\"\n";
    auto r = load_record_text("gotchas/big.yaml", big);
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics[0].code == "limits.file-size");
  }
  SECTION("deep block nesting on one line") {
    std::string deep = "title: x\nnotes:\n  ";
    for (int i = 0; i < 5000; ++i) deep += "- ";
    deep += "x\n";
    auto r = load_record_text("gotchas/deep.yaml", deep);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].code == "limits.depth");
  }
  SECTION("deep flow nesting across lines") {
    std::string deep = "title: x\nnotes: ";
    for (int i = 0; i < 100000; ++i) deep += "[\n";
    auto r = load_record_text("gotchas/deep.yaml", deep);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].code == "limits.depth");
    CHECK(r.diagnostics[0].line == 2 + 64);
  }
  SECTION("a billion-laughs alias bomb stops at the node budget") {
    // Nulls: no text, so nodes run out before the byte budget (next section).
    std::string bomb = "a: &a [~, ~, ~, ~, ~, ~, ~, ~, ~, ~]\n";
    for (int i = 1; i < 20; ++i) {
      bomb += "b" + std::to_string(i) + ": &b" + std::to_string(i) + " [";
      std::string prev = i == 1 ? "*a" : "*b" + std::to_string(i - 1);
      for (int k = 0; k < 10; ++k) bomb += (k ? ", " : "") + prev;
      bomb += "]\n";
    }
    auto r = load_record_text("gotchas/bomb.yaml", bomb);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].code == "limits.nodes");
  }
  SECTION("a billion laughs of text stops at the byte budget, where it runs out") {
    std::string bomb = "a: &a [xxxxxxxx, xxxxxxxx]\n";  // 16 bytes, and the key
    for (int i = 1; i < 20; ++i) {
      bomb += "b" + std::to_string(i) + ": &b" + std::to_string(i) + " [";
      std::string prev = i == 1 ? "*a" : "*b" + std::to_string(i - 1);
      for (int k = 0; k < 10; ++k) bomb += (k ? ", " : "") + prev;
      bomb += "]\n";
    }
    auto r = load_record_text("gotchas/bomb.yaml", bomb);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].code == "limits.expansion");
    // 16 x 1,248 bytes = 19,968: b1, b2 and b3 (160, 1,600 and 16,000 bytes) fit; the
    // first alias of b4 (line 5) would add 16,000 more.
    CHECK(r.diagnostics[0].line == 5);
    CHECK(r.diagnostics[0].column == 10);  // `b4: &b4 [*b3`
  }
  SECTION("many small mapping keys in one record stay under the budget") {
    std::string wide = kValidGotcha;
    wide += "notes: |\n";
    for (int i = 0; i < 10000; ++i) wide += "  line " + std::to_string(i) + "\n";
    auto r = load_record_text("gotchas/wide.yaml", wide);
    CHECK(r.record);
  }
}

TEST_CASE("cross-record checks: duplicate ids, alias collisions, dangling references", "[corpus]") {
  std::vector<kb::FileResult> files;
  files.push_back(load_record_text("engines/vllm.yaml", "name: vLLM\naliases: [vllm-engine]\n"));
  files.push_back(load_record_text("engines/vllm.yml", "name: vLLM again\n"));
  files.push_back(load_record_text("engines/other.yaml", "name: Other\naliases: [vllm-engine]\n"));
  files.push_back(load_record_text(
      "gotchas/g.yaml", std::string(kValidGotcha) + "affects: [vllm, nowhere-engine]\n"));
  auto corpus = kb::Corpus::from_files("t", std::move(files));
  const auto& diags = corpus->diagnostics();
  INFO(dump(diags));
  CHECK(has(diags, "id.duplicate", 1, 1));
  bool collision = false;
  for (const auto& d : diags) collision |= d.code == "id.alias-collision";
  CHECK(collision);
  CHECK(has(diags, "ref.dangling", 6, 17));
  CHECK(corpus->records().size() == 3);
  CHECK(corpus->target(kb::Kind::engine, "vLLM") == std::optional<std::string>("engines/vllm"));
}
