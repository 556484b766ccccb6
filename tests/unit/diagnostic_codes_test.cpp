// The registry of diagnostic codes (kb/include/kb/diagnostic_codes.h): every code the
// sources emit goes through it, README.md's table is generated from it, and every code a
// record can trigger has an example under tests/data/invalid/ that reports it where its
// header says, linted in the context of the shipped records/.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "kb/diagnostic_codes.h"
#include "kb/lint.h"
#include "kb/schema.h"
#include "schema/setting_values.h"

namespace fs = std::filesystem;
using kb::CodeScope;
using kb::test::read_file;

namespace {

/// The header of a fixture: `# expect: CODE LINE:COL [in NAMESPACE]`, or `in PATH.yaml` for
/// a fixture that stands in place of the shipped record at PATH (`settings/role.yaml`).
struct Expect {
  std::string code;
  int line = 0;
  int column = 0;
  std::string ns = "gotchas";
  /// Where the fixture is linted: NAMESPACE/CODE.yaml, or the PATH given.
  std::string file() const { return ns.ends_with(".yaml") ? ns : ns + "/" + code + ".yaml"; }
};

Expect expect_of(const std::string& bytes) {
  std::istringstream head(bytes.substr(0, bytes.find('\n')));
  std::string hash, word, pos, in;
  Expect e;
  head >> hash >> word >> e.code >> pos >> in >> e.ns;
  if (word != "expect:" || pos.find(':') == std::string::npos) return {};
  e.line = std::stoi(pos.substr(0, pos.find(':')));
  e.column = std::stoi(pos.substr(pos.find(':') + 1));
  return e;
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(KB_TEST_DATA) / "invalid")) {
    if (e.is_regular_file()) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Every source file of the product, relative to the repository.
std::vector<fs::path> product_sources() {
  std::vector<fs::path> out;
  for (const char* dir : {"kb", "server", "cli", "client"}) {
    const fs::path root = fs::path(KB_SOURCE_DIR) / dir;
    if (!fs::is_directory(root)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      const auto ext = e.path().extension();
      // The registry itself is where the codes are written out.
      if (e.path().filename() == "diagnostic_codes.h") continue;
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".h")) out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// What stands between `begin` and the next END GENERATED marker of `text`.
std::string generated_section(const std::string& text, const std::string& begin) {
  const auto at = text.find(begin);
  if (at == std::string::npos) return "<no section " + begin + ">";
  const auto from = at + begin.size();
  const auto end = text.find("<!-- END GENERATED -->", from);
  if (end == std::string::npos) return "<no end marker>";
  return text.substr(from, end - from);
}

std::shared_ptr<const kb::Corpus> shipped() {
  static const auto corpus = kb::Corpus::load(fs::path(KB_SOURCE_DIR) / "records");
  return corpus;
}

}  // namespace

TEST_CASE("the registry is sorted, unique and documented", "[codes]") {
  const auto codes = kb::diagnostic_codes();
  REQUIRE(codes.size() >= 100);
  const std::regex shape("[a-z0-9]+\\.[a-z0-9-]+");
  for (const auto& c : codes) {
    INFO(c.code);
    CHECK(std::regex_match(std::string(c.code), shape));
    CHECK_FALSE(c.meaning.empty());
    CHECK_FALSE(c.fix.empty());
    CHECK(kb::find_code(c.code) == &c);
  }
  CHECK(kb::find_code("schema.unknown-feld") == nullptr);
  CHECK(kb::suggest_code("schema.unknown-feld") == "schema.unknown-field");
  CHECK(kb::suggest_code("nothing.like-it") == std::nullopt);
  CHECK(std::string(kb::diag_code("ref.dangling")) == "ref.dangling");
}

TEST_CASE("explain prints the meaning, the usual fix and who finds it", "[codes]") {
  CHECK(kb::explain_code(*kb::find_code("ref.dangling")) ==
        "ref.dangling (error, tree)\n"
        "  a reference names no record\n"
        "  fix: fix the id (did-you-mean is in the hint; `kb repair --write` applies a sure one)\n"
        "  found by: kb lint, checking a record against the rest of the tree\n");
}

TEST_CASE("the product's sources name every code through diag_code()", "[codes]") {
  std::set<std::string> namespaces;
  for (const auto& c : kb::diagnostic_codes()) {
    namespaces.insert(std::string(c.code.substr(0, c.code.find('.'))));
  }
  std::string alternatives;
  for (const auto& n : namespaces) alternatives += (alternatives.empty() ? "" : "|") + n;
  // A quoted code not inside diag_code(...) and not in a comment.
  const std::regex literal("\"(" + alternatives + ")\\.[a-z0-9-]+\"");
  std::vector<std::string> bare;
  std::size_t wrapped = 0;
  for (const auto& path : product_sources()) {
    std::istringstream lines(read_file(path));
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      // Codes named in comments are documentation, not emitted.
      const auto comment = line.find("//");
      for (std::sregex_iterator it(line.begin(), line.end(), literal), end; it != end; ++it) {
        const auto at = static_cast<std::size_t>(it->position());
        if (comment != std::string::npos && at > comment) continue;
        if (at >= 10 && line.compare(at - 10, 10, "diag_code(") == 0) {
          ++wrapped;
          continue;
        }
        // Field names such as "evidence.state" (a CSV column) look like codes; only a
        // registered code written bare is a mistake.
        const std::string quoted = it->str();
        if (kb::find_code(quoted.substr(1, quoted.size() - 2)) == nullptr) continue;
        bare.push_back(fs::relative(path, KB_SOURCE_DIR).string() + ":" + std::to_string(n) + ": " +
                       it->str());
      }
    }
  }
  INFO("write diag_code(\"...\") so the registry checks the code:\n"
       << [&] {
            std::string s;
            for (const auto& b : bare) s += b + "\n";
            return s;
          }());
  CHECK(bare.empty());
  CHECK(wrapped >= 150);
}

TEST_CASE("README.md's table of codes is the generated one", "[codes]") {
  const std::string readme = read_file(fs::path(KB_SOURCE_DIR) / "README.md");
  INFO("run: kb explain --update README.md");
  CHECK(generated_section(readme, "<!-- BEGIN GENERATED: kb explain --update README.md -->") ==
        "\n" + kb::codes_markdown() + "\n");
}

TEST_CASE("records/README.md's field reference is the generated one", "[codes][schema]") {
  const std::string readme = read_file(fs::path(KB_SOURCE_DIR) / "records" / "README.md");
  INFO("run: kb schema --update records/README.md");
  CHECK(generated_section(readme, "<!-- BEGIN GENERATED: kb schema --format markdown -->") ==
        "\n" + kb::schema::markdown_reference() + "\n");
}

TEST_CASE("the values table names every bool spelling values are read with", "[codes]") {
  const std::string ref = kb::schema::markdown_reference();
  const auto row = ref.find("| `bool` |");
  REQUIRE(row != std::string::npos);
  const std::string line = ref.substr(row, ref.find('\n', row) - row);
  for (const auto& [word, value] : kb::bool_spellings()) {
    INFO(word << " (" << value << ") is read as a bool but the values table omits it");
    CHECK((line.find("`" + std::string(word) + "/") != std::string::npos ||
           line.find("/" + std::string(word) + "`") != std::string::npos));
  }
}

TEST_CASE("every code a record can trigger has a fixture named after it", "[codes]") {
  std::set<std::string> have;
  for (const auto& p : fixtures()) have.insert(p.stem().string());
  for (const auto& c : kb::diagnostic_codes()) {
    if (c.scope != CodeScope::record && c.scope != CodeScope::tree) continue;
    INFO("no tests/data/invalid/" << c.code << ".yaml");
    CHECK(have.count(std::string(c.code)) == 1);
  }
  for (const auto& name : have) {
    INFO("tests/data/invalid/" << name << ".yaml is named after no record or tree code");
    const auto* info = kb::find_code(name);
    REQUIRE(info != nullptr);
    CHECK((info->scope == CodeScope::record || info->scope == CodeScope::tree));
  }
}

// Each fixture joins the shipped records (plus the files under
// tests/data/invalid-context/CODE/, when a code needs other records to show) as
// NAMESPACE/CODE.yaml, or in place of the shipped file at the header's PATH.yaml; linting
// that tree reports the code at the header's position.
TEST_CASE("every fixture reports its code in the context of the shipped records", "[codes]") {
  kb::LintOptions options;
  options.today = "2026-11-30";
  int checked = 0;
  for (const auto& path : fixtures()) {
    const std::string bytes = read_file(path);
    const Expect e = expect_of(bytes);
    const std::string file = e.file();
    INFO(path.filename().string());
    REQUIRE(e.code == path.stem().string());
    std::vector<kb::FileResult> files;
    for (const auto& f : shipped()->files()) {
      if (f->file != file) files.push_back(*f);
    }
    files.push_back(kb::load_record_text(file, bytes, {.max_file_bytes = 4096}));
    const fs::path context = fs::path(KB_TEST_DATA) / "invalid-context" / e.code;
    if (fs::is_directory(context)) {
      for (const auto& c : fs::recursive_directory_iterator(context)) {
        if (!c.is_regular_file()) continue;
        const std::string rel = fs::relative(c.path(), context).generic_string();
        files.push_back(kb::load_record_text(rel, read_file(c.path())));
      }
    }
    const auto linted =
        kb::lint_corpus(kb::Corpus::from_files("fixture", std::move(files)), options);
    std::string mine;
    bool found = false;
    for (const auto& d : linted.diagnostics) {
      if (d.file != file) continue;
      mine += d.code + " " + std::to_string(d.line) + ":" + std::to_string(d.column) + " " +
              d.message + "\n";
      if (d.code == e.code && d.line == e.line && d.column == e.column) found = true;
    }
    INFO(mine);
    CHECK(found);
    ++checked;
  }
  CHECK(checked >= 40);
}
