#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "kb/corpus.h"
#include "kb/import_text.h"
#include "edit/record_writer.h"
#include "yaml/yaml_tree.h"

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kSeed000 = std::string(KB_TEST_DATA) + "/seeds/000_0537091e3719589d.txt";
const std::string kSeed002 = std::string(KB_TEST_DATA) + "/seeds/002_24e3c208d3083946.txt";

// The value a YAML reader gets back for `key` from what the writer produced.
std::string read_back(const std::string& yaml_text, const std::string& key) {
  kb::yaml::Node root;
  std::vector<kb::Diagnostic> diags;
  REQUIRE(kb::yaml::parse(yaml_text, "t.yaml", kb::yaml::Limits{}, root, diags));
  REQUIRE(root.is_map());
  const kb::yaml::Node* v = root.find(key);
  REQUIRE(v != nullptr);
  REQUIRE(v->is_scalar());
  return v->value;
}

std::vector<std::string> codes(const kb::TextImport& t) {
  std::vector<std::string> out;
  for (const auto& d : t.diagnostics) out.push_back(d.code);
  return out;
}

}  // namespace

TEST_CASE("a seed file parses into its id and four sections, exactly") {
  auto t = kb::parse_seed_text(read_file(kSeed000), "000.txt");
  REQUIRE(t.diagnostics.empty());
  REQUIRE(t.record);
  const kb::Record& r = *t.record;
  CHECK(r.kind == kb::Kind::gotcha);
  CHECK(r.id == "gotchas/pd-cache-hit-silently-differs-from-cold-run");
  CHECK(r.symptom.starts_with("The disaggregated deployment looks completely healthy"));
  CHECK(r.symptom.ends_with("restarting returns to A."));
  CHECK(r.root_cause.starts_with("Two distinct causes"));
  CHECK(r.workaround.ends_with("rather than a smoke test."));
  CHECK(r.notes.ends_with("handing KV between processes."));
  CHECK(r.title.empty());
}

TEST_CASE("format_seed_text gives both seed files back byte for byte") {
  for (const auto& path : {kSeed000, kSeed002}) {
    std::string bytes = read_file(path);
    auto t = kb::parse_seed_text(bytes, path);
    REQUIRE(t.record);
    CHECK(kb::format_seed_text(*t.record) == bytes);
  }
}

TEST_CASE("an imported seed loads with only the required fields left to complete") {
  for (const auto& path : {kSeed000, kSeed002}) {
    std::string bytes = read_file(path);
    auto t = kb::parse_seed_text(bytes, path);
    REQUIRE(t.record);
    std::string yaml_text = kb::format_record_yaml(*t.record);
    std::string file = kb::record_relative_path(t.record->id).string();
    auto loaded = kb::load_record_text(file, yaml_text);
    std::vector<std::string> missing;
    for (const auto& d : loaded.diagnostics) {
      CHECK(d.code == "schema.missing-field");
      missing.push_back(d.message);
    }
    CHECK(missing.size() == 3);
    CHECK(kb::missing_required_fields(*t.record) ==
          std::vector<std::string>{"title", "severity", "status"});

    // With the required fields filled in, the file loads clean and reads back exactly.
    kb::Record done = *t.record;
    done.title = "t";
    done.severity = kb::GotchaSeverity::major;
    done.status = kb::GotchaStatus::open;
    auto full = kb::load_record_text(file, kb::format_record_yaml(done));
    CHECK(full.diagnostics.empty());
    REQUIRE(full.record);
    CHECK(kb::format_seed_text(*full.record) == bytes);
  }
}

TEST_CASE("the shipped seed gotchas still hold the seeds' text byte for byte") {
  const std::pair<std::string, std::string> seeds[] = {
      {kSeed000, "gotchas/pd-cache-hit-silently-differs-from-cold-run.yaml"},
      {kSeed002, "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace.yaml"}};
  for (const auto& [seed, file] : seeds) {
    std::string yaml_text = read_file(std::string(KB_SOURCE_DIR) + "/records/" + file);
    auto loaded = kb::load_record_text(file, yaml_text);
    CHECK(loaded.diagnostics.empty());
    REQUIRE(loaded.record);
    CHECK(kb::format_seed_text(*loaded.record) == read_file(seed));
  }
}

TEST_CASE("the YAML writer keeps any text exact through a reader") {
  const std::string samples[] = {
      "one line",
      "trailing newline\n",
      "two trailing newlines\n\n",
      "three\n\n\n",
      "  leading spaces on the first line",
      "\n\nleading blank lines",
      "\n  blank then indented",
      "   \nspaces-only first line",
      "mid\n   \nspaces-only line\n",
      "trailing spaces   ",
      "tab\tinside and\n\tleading tab",
      "# not a comment\n- not a list\n--- not a document\n...",
      "key: value: \"quoted\" 'single' \\ backslash",
      "crlf\r\nline",
      "control \x01 char",
      "line\xE2\x80\xA8separator",
      "caf\xC3\xA9 \xE2\x86\x92 unicode",
      "   ",
      "\n",
      "",
      "|",
      "> folded?",
  };
  for (const auto& s : samples) {
    std::string out;
    kb::yaml_out::append_text(out, "text", s);
    INFO(out);
    CHECK(read_back(out, "text") == s);
  }
}

TEST_CASE("the writer picks the block style that keeps the text") {
  std::string out;
  kb::yaml_out::append_text(out, "a", "x");
  kb::yaml_out::append_text(out, "b", "x\n");
  kb::yaml_out::append_text(out, "c", "x\n\n");
  kb::yaml_out::append_text(out, "d", " x");
  kb::yaml_out::append_text(out, "e", "x\r\n");
  CHECK(out == "a: |-\n  x\nb: |\n  x\nc: |+\n  x\n\nd: |2-\n   x\ne: \"x\\r\\n\"\n");
}

TEST_CASE("scalars are plain only when a reader gives back the same text") {
  CHECK(kb::yaml_out::scalar("gotchas/x") == "gotchas/x");
  CHECK(kb::yaml_out::scalar("0.26.0") == "0.26.0");
  CHECK(kb::yaml_out::scalar("null") == "\"null\"");
  CHECK(kb::yaml_out::scalar("") == "\"\"");
  CHECK(kb::yaml_out::scalar("a: b") == "\"a: b\"");
  CHECK(kb::yaml_out::scalar("-x") == "\"-x\"");
  CHECK(kb::yaml_out::scalar("x #y") == "\"x #y\"");
  for (const std::string s : {"null", "", "a: b", "-x", "x #y", "say \"hi\"", "tab\t", "~"}) {
    CHECK(read_back("v: " + kb::yaml_out::scalar(s) + "\n", "v") == s);
  }
}

TEST_CASE("CRLF line endings and a BOM are read, not kept") {
  auto t = kb::parse_seed_text("\xEF\xBB\xBFid\r\ngotchas/x\r\nSymptom\r\nbad\r\nthings", "f");
  REQUIRE(t.record);
  CHECK(t.record->id == "gotchas/x");
  CHECK(t.record->symptom == "bad\nthings");
}

TEST_CASE("a bare id is a gotcha id") {
  auto t = kb::parse_seed_text("id\nmy-gotcha\nSymptom\ns", "f");
  REQUIRE(t.record);
  CHECK(t.record->id == "gotchas/my-gotcha");
}

TEST_CASE("malformed input is reported with its code and line") {
  struct Case {
    std::string text;
    std::string code;
    int line;
  };
  const Case cases[] = {
      {"", "import.empty", 0},
      {" \n\n", "import.empty", 0},
      {"Symptom\nx", "import.missing-id", 1},
      {"\nsome text\nid\ngotchas/x\nSymptom\ns", "import.missing-id", 2},
      {"id\n\nSymptom\ns", "import.missing-id", 1},
      {"id\nGotchas/X\nSymptom\ns", "import.bad-id", 2},
      {"id\nengines/vllm\nSymptom\ns", "import.bad-id", 2},
      {"id\ngotchas/x\ngotchas/y\nSymptom\ns", "import.bad-id", 3},
      {"id\ngotchas/../x\nSymptom\ns", "import.bad-id", 2},
      {"id\ngotchas/x\nSymptom\ns\nRoot Cause\nr", "import.unknown-section", 5},
      {"id\ngotchas/x\nSymptom\ns\nSeverity\nmajor", "import.unknown-section", 5},
      {"id\ngotchas/x\nSymptom\ns\nnotes\na\nSymptom\nb", "import.duplicate-section", 7},
      {"id\ngotchas/x\nnotes\nn", "import.missing-section", 0},
      {"id\ngotchas/x\nSymptom\n \nnotes\nn", "import.empty-section", 3},
      {"id\ngotchas/x\nSymptom\ns\nid\ngotchas/y\nSymptom\nt", "import.multiple-records", 5},
      {"id\ngotchas/x\nSymptom\nends here.id\ngotchas/y\nSymptom\nt", "import.multiple-records", 4},
      {"id\ngotchas/x\nSymptom\nbad \xC3\x28 byte", "import.not-utf8", 4},
      {std::string("id\ngotchas/x\nSymptom\nnul ") + '\0', "import.nul", 4},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto t = kb::parse_seed_text(c.text, "in.txt");
    REQUIRE(!t.diagnostics.empty());
    CHECK(t.diagnostics.front().code == c.code);
    CHECK(t.diagnostics.front().line == c.line);
    CHECK(t.diagnostics.front().file == "in.txt");
    CHECK(t.diagnostics.front().severity == kb::Severity::error);
    CHECK_FALSE(t.record);
  }
}

TEST_CASE("a glued record is pointed at the 'id' that lost its newline") {
  auto t = kb::parse_seed_text("id\ngotchas/x\nSymptom\nbetween processes.id\ngotchas/y\nnotes\nn",
                               "in.txt");
  REQUIRE(codes(t) == std::vector<std::string>{"import.multiple-records"});
  CHECK(t.diagnostics[0].line == 4);
  CHECK(t.diagnostics[0].column == 19);
  CHECK(t.diagnostics[0].record == "gotchas/x");
}

TEST_CASE("text that merely ends in 'id' stays text") {
  auto t = kb::parse_seed_text("id\ngotchas/x\nSymptom\nthe pid\nnot an id line\nnotes\nn", "f");
  REQUIRE(t.record);
  CHECK(t.record->symptom == "the pid\nnot an id line");
}

TEST_CASE("an empty optional section is a warning and is left out") {
  auto t = kb::parse_seed_text("id\ngotchas/x\nSymptom\ns\nWorkaround\nnotes\nn", "f");
  REQUIRE(codes(t) == std::vector<std::string>{"import.empty-section"});
  CHECK(t.diagnostics[0].severity == kb::Severity::warning);
  CHECK(t.diagnostics[0].line == 5);
  REQUIRE(t.record);
  CHECK(t.record->workaround.empty());
  CHECK(kb::format_record_yaml(*t.record) ==
        "# yaml-language-server: $schema=../../schemas/gotchas.schema.json\n"
        "id: gotchas/x\nsymptom: |-\n  s\nnotes: |-\n  n\n");
}

TEST_CASE("write_file_atomic refuses to overwrite unless asked") {
  auto dir = std::filesystem::temp_directory_path() / "kb_import_text_test";
  std::filesystem::remove_all(dir);
  auto path = dir / "gotchas" / "x.yaml";
  CHECK(kb::write_file_atomic(path, "one\n", false));
  CHECK(read_file(path) == "one\n");
  CHECK_FALSE(kb::write_file_atomic(path, "two\n", false));
  CHECK(read_file(path) == "one\n");
  CHECK(kb::write_file_atomic(path, "three\n", true));
  CHECK(read_file(path) == "three\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir / "gotchas")) {
    ++entries;
  }
  CHECK(entries == 1);
  std::filesystem::remove_all(dir);
}
