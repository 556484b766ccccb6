#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

struct Run {
  int code = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary) << s;
}

// A fresh scratch directory per test case.
fs::path scratch(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("kb_import_text_cli_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

Run kb(const fs::path& dir, const std::string& args) {
  std::string cmd = std::string("'") + KB_BINARY + "' " + args + " >'" + (dir / "stdout").string() +
                    "' 2>'" + (dir / "stderr").string() + "'";
  int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(dir / "stdout");
  r.err = slurp(dir / "stderr");
  return r;
}

const std::string kSeeds = std::string(KB_TEST_DATA) + "/seeds/";
const std::string kSeed000 = kSeeds + "000_0537091e3719589d.txt";
const std::string kSeed002 = kSeeds + "002_24e3c208d3083946.txt";
const std::string kId000 = "gotchas/pd-cache-hit-silently-differs-from-cold-run";
const std::string kSchemaLine =
    "# yaml-language-server: $schema=../../schemas/gotchas.schema.json\n";
const std::string kId002 = "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace";

}  // namespace

TEST_CASE("import-text then show reproduces both seeds byte for byte") {
  auto dir = scratch("roundtrip");
  auto out = dir / "records";
  Run imp =
      kb(dir, "import-text '" + kSeed000 + "' '" + kSeed002 + "' --out '" + out.string() + "'");
  INFO(imp.err);
  REQUIRE(imp.code == 0);
  CHECK(imp.out.find("wrote " + (out / (kId000 + ".yaml")).string()) != std::string::npos);
  CHECK(imp.out.find("complete the required fields title, severity, status") != std::string::npos);

  for (const auto& [seed, id] : {std::pair{kSeed000, kId000}, std::pair{kSeed002, kId002}}) {
    auto file = out / (id + ".yaml");
    REQUIRE(fs::exists(file));
    CHECK(slurp(file).starts_with(kSchemaLine + "id: " + id + "\nsymptom: |-\n  "));
    // The author completes the required fields; the imported text must not move.
    std::ofstream(file, std::ios::app) << "title: t\nseverity: major\nstatus: open\n";
    Run show = kb(dir, "show " + id + " --records '" + out.string() + "' --format text");
    INFO(show.err);
    CHECK(show.code == 0);
    CHECK(show.out == slurp(seed));
  }
}

TEST_CASE("import-text refuses to overwrite unless --force") {
  auto dir = scratch("overwrite");
  auto out = dir / "records";
  std::string args = "import-text '" + kSeed000 + "' --out '" + out.string() + "'";
  REQUIRE(kb(dir, args).code == 0);
  auto file = out / (kId000 + ".yaml");
  spit(file, "edited by hand\n");

  Run again = kb(dir, args);
  CHECK(again.code == 1);
  CHECK(again.err.find("already exists; pass --force") != std::string::npos);
  CHECK(slurp(file) == "edited by hand\n");

  Run forced = kb(dir, args + " --force");
  CHECK(forced.code == 0);
  CHECK(slurp(file).starts_with(kSchemaLine + "id: " + kId000 + "\n"));
}

TEST_CASE("import-text writes nothing when any input is refused") {
  auto dir = scratch("all_or_nothing");
  auto out = dir / "records";
  auto existing = out / (kId002 + ".yaml");
  fs::create_directories(existing.parent_path());
  spit(existing, "keep\n");
  Run r = kb(dir, "import-text '" + kSeed000 + "' '" + kSeed002 + "' --out '" + out.string() + "'");
  CHECK(r.code == 1);
  CHECK_FALSE(fs::exists(out / (kId000 + ".yaml")));
  CHECK(slurp(existing) == "keep\n");
}

TEST_CASE("import-text exits 2 on unreadable input") {
  auto dir = scratch("unreadable");
  auto out = dir / "records";
  Run missing =
      kb(dir, "import-text '" + (dir / "nope.txt").string() + "' --out '" + out.string() + "'");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("cannot read") != std::string::npos);
  Run directory = kb(dir, "import-text '" + dir.string() + "' --out '" + out.string() + "'");
  CHECK(directory.code == 2);
  CHECK(kb(dir, "import-text").code == 2);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("import-text reports malformed input with file and line, writing nothing") {
  auto dir = scratch("malformed");
  auto out = dir / "records";
  auto bad = dir / "bad.txt";
  spit(bad, "id\ngotchas/x\nSymptom\ns\nRoot Cause\nr");
  Run r = kb(dir, "import-text '" + bad.string() + "' --out '" + out.string() + "'");
  CHECK(r.code == 1);
  CHECK(r.err.find(bad.string() + ":5:1: error[import.unknown-section]") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("two seeds glued into one file are refused, not merged") {
  auto dir = scratch("glued");
  auto out = dir / "records";
  auto both = dir / "both.txt";
  // Seed 000 has no final newline, so its last line runs into the next record's `id`.
  spit(both, slurp(kSeed000) + slurp(kSeed002));
  Run r = kb(dir, "import-text '" + both.string() + "' --out '" + out.string() + "'");
  CHECK(r.code == 1);
  CHECK(r.err.find(both.string() + ":10:") != std::string::npos);
  CHECK(r.err.find("error[import.multiple-records]") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}
