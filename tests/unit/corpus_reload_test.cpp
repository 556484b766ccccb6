// Corpus::reload must answer exactly like a fresh load of the same tree, whether it was
// told which files changed or scanned for them, and whether it patched the previous
// corpus or rebuilt the cross-record checks.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "kb/corpus.h"
#include "live/watch.h"

namespace fs = std::filesystem;

namespace {

const fs::path kFixture = fs::path(KB_TEST_DATA) / "serve" / "records";

struct Tree : kb::test::TempTree {
  Tree() : TempTree(kFixture) {}
};

std::vector<std::string> render(const std::vector<kb::Diagnostic>& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) {
    out.push_back(d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " +
                  d.code + " " + d.message + " | " + d.hint + " | " + d.record);
  }
  return out;
}

std::vector<std::string> ids(const kb::Corpus& c) {
  std::vector<std::string> out;
  for (const auto& r : c.records()) out.push_back(r->id);
  return out;
}

// Everything a fresh load of the same tree would say.
void require_same_as_fresh(const kb::Corpus& reloaded) {
  auto fresh = kb::Corpus::load(reloaded.dir());
  CHECK(render(reloaded.diagnostics()) == render(fresh->diagnostics()));
  CHECK(ids(reloaded) == ids(*fresh));
  CHECK(reloaded.content_hash() == fresh->content_hash());
  for (const auto& r : fresh->records()) {
    const kb::Record* mine = reloaded.find(r->id);
    REQUIRE(mine != nullptr);
    CHECK(mine->content_hash == r->content_hash);
  }
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("a text edit reloads one file and keeps the name index", "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  const std::string rel = "gotchas/beta-major.yaml";
  t.write(rel, replace(t.read(rel), "title: ", "title: Edited "));
  const std::vector<std::string> only{rel};

  auto told = kb::Corpus::reload(*prev, {}, &only);
  auto scanned = kb::Corpus::reload(*prev, {});
  for (const auto* next : {told.get(), scanned.get()}) {
    CHECK(&next->names() == &prev->names());  // shared, not rebuilt
    CHECK(next->find("gotchas/beta-major")->title.rfind("Edited ", 0) == 0);
    CHECK(next->find("gotchas/alpha-blocker") == prev->find("gotchas/alpha-blocker"));
    CHECK(next->content_hash() != prev->content_hash());
    require_same_as_fresh(*next);
  }
}

TEST_CASE("an edit that breaks or fixes a reference updates only its own diagnostics",
          "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  REQUIRE(prev->diagnostics().empty());
  const std::string rel = "gotchas/alpha-blocker.yaml";
  const std::string good = t.read(rel);
  t.write(rel, replace(good, "affects: [vllm, lmcache]", "affects: [vllm, mooncache]"));
  const std::vector<std::string> only{rel};
  auto broken = kb::Corpus::reload(*prev, {}, &only);
  CHECK(&broken->names() == &prev->names());
  auto codes = render(broken->diagnostics());
  REQUIRE(codes.size() == 1);
  CHECK(codes[0].find("gotchas/alpha-blocker.yaml:8:") == 0);
  CHECK(codes[0].find("ref.dangling affects[1]: no engine 'mooncache'") != std::string::npos);
  require_same_as_fresh(*broken);

  t.write(rel, good);
  auto fixed = kb::Corpus::reload(*broken, {}, &only);
  CHECK(fixed->diagnostics().empty());
  require_same_as_fresh(*fixed);
}

TEST_CASE("a changed name rebuilds the index, so other records' references are rechecked",
          "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  // alpha-blocker affects lmcache; a second engine taking that name makes it ambiguous.
  const std::string rel = "engines/nixl.yaml";
  t.write(rel, t.read(rel) + "aliases: [lmcache]\n");
  const std::vector<std::string> only{rel};
  auto next = kb::Corpus::reload(*prev, {}, &only);
  CHECK(&next->names() != &prev->names());
  bool ambiguous = false;
  for (const auto& d : next->diagnostics())
    ambiguous |= d.code == "ref.ambiguous" && d.record == "gotchas/alpha-blocker";
  CHECK(ambiguous);
  require_same_as_fresh(*next);
}

TEST_CASE("named files that appeared, vanished or are not records", "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  t.write("gotchas/new-one.yaml",
          "id: gotchas/new-one\ntitle: A new one\nseverity: minor\nstatus: open\n"
          "symptom: |\n  New.\naffects: [sglang]\n");
  fs::remove(t.dir / "gotchas/kappa-info.yaml");
  t.write("gotchas/notes.txt", "not a record");
  t.write(".hidden/x.yaml", "id: gotchas/x\n");
  const std::vector<std::string> only{"gotchas/new-one.yaml", "gotchas/kappa-info.yaml",
                                      "gotchas/notes.txt", ".hidden/x.yaml",
                                      "gotchas/never-there.yaml"};
  auto next = kb::Corpus::reload(*prev, {}, &only);
  CHECK(next->find("gotchas/new-one") != nullptr);
  CHECK(next->find("gotchas/kappa-info") == nullptr);
  CHECK(next->find("gotchas/x") == nullptr);
  CHECK(next->files().size() == prev->files().size());
  require_same_as_fresh(*next);
}

TEST_CASE("a named file that broke keeps its last good record, marked stale", "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  const std::string rel = "gotchas/gamma-major.yaml";
  t.write(rel, t.read(rel) + "title: [unclosed\n");
  const std::vector<std::string> only{rel};
  auto next = kb::Corpus::reload(*prev, {}, &only);
  CHECK(next->is_stale("gotchas/gamma-major"));
  CHECK(next->find("gotchas/gamma-major") == prev->find("gotchas/gamma-major"));
  CHECK(&next->names() == &prev->names());
  REQUIRE_FALSE(next->diagnostics().empty());
  CHECK(next->diagnostics().front().file == rel);
  // The same tree scanned from scratch says the same about the broken file.
  auto scanned = kb::Corpus::reload(*prev, {});
  CHECK(render(scanned->diagnostics()) == render(next->diagnostics()));
  CHECK(scanned->content_hash() == next->content_hash());
}

TEST_CASE("the watcher names the record files that changed, or asks for a rescan",
          "[corpus][reload][watch]") {
  Tree t;
  kb::DirWatcher w(t.dir, false);
  REQUIRE(w.uses_inotify());
  const auto settle = [&] {
    return w.wait(std::chrono::milliseconds(2000), std::chrono::milliseconds(50));
  };
  t.write("gotchas/beta-major.yaml", t.read("gotchas/beta-major.yaml") + "notes: x\n");
  t.write("gotchas/beta-major.yaml.swp", "editor noise");
  REQUIRE(settle() == kb::WatchEvent::changed);
  auto changes = w.take_changes();
  REQUIRE(changes);
  CHECK(*changes == std::vector<std::string>{"gotchas/beta-major.yaml"});

  fs::create_directory(t.dir / "gotchas" / "more");
  REQUIRE(settle() == kb::WatchEvent::changed);
  // A new directory is named, for the reload to look under it (and nowhere else).
  CHECK(w.take_changes() == std::vector<std::string>{"gotchas/more/"});
  t.write("gotchas/more/x.yaml", "id: gotchas/more/x\n");
  fs::rename(t.dir / "engines/nixl.yaml", t.dir / "engines/nixl2.yaml");
  REQUIRE(settle() == kb::WatchEvent::changed);
  changes = w.take_changes();
  REQUIRE(changes);
  CHECK(*changes ==
        std::vector<std::string>{"engines/nixl.yaml", "engines/nixl2.yaml", "gotchas/more/x.yaml"});
}

TEST_CASE("a named directory reloads what was and is under it, nothing else", "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  const fs::path away = t.dir.string() + "-away";
  fs::rename(t.dir / "gotchas", away);
  const std::vector<std::string> only{"gotchas/"};
  auto gone = kb::Corpus::reload(*prev, {}, &only);
  CHECK(gone->find("gotchas/beta-major") == nullptr);
  CHECK(gone->find("engines/vllm") == prev->find("engines/vllm"));
  require_same_as_fresh(*gone);

  fs::rename(away, t.dir / "gotchas");
  auto back = kb::Corpus::reload(*gone, {}, &only);
  CHECK(back->find("gotchas/beta-major") != nullptr);
  CHECK(back->content_hash() == prev->content_hash());
  require_same_as_fresh(*back);
  // A hidden directory is never loaded, named or not.
  t.write(".drafts/gotchas/x.yaml", "id: gotchas/x\n");
  const std::vector<std::string> hidden{".drafts/"};
  CHECK(kb::Corpus::reload(*back, {}, &hidden)->content_hash() == back->content_hash());
}

TEST_CASE("a reload patches the content hash to what summing every file gives",
          "[corpus][reload]") {
  Tree t;
  auto prev = kb::Corpus::load(t.dir);
  const std::string rel = "gotchas/beta-major.yaml";
  const std::string good = t.read(rel);
  // The hash of the same files, summed from scratch rather than patched.
  auto summed = [](const kb::Corpus& c) {
    std::vector<kb::FileResult> files;
    for (const auto& f : c.files()) files.push_back(*f);
    return kb::Corpus::from_files(c.dir(), std::move(files))->content_hash();
  };
  const std::vector<std::string> only{rel};

  t.write(rel, replace(good, "title: ", "title: Edited "));
  auto edited = kb::Corpus::reload(*prev, {}, &only);
  CHECK(&edited->names() == &prev->names());  // the incremental path
  CHECK(edited->content_hash() != prev->content_hash());
  CHECK(edited->content_hash() == summed(*edited));

  t.write(rel, "id: [unclosed\n");  // broken: the last good record stays, stale
  auto broken = kb::Corpus::reload(*edited, {}, &only);
  REQUIRE(broken->is_stale("gotchas/beta-major"));
  CHECK(broken->content_hash() != edited->content_hash());
  CHECK(broken->content_hash() == summed(*broken));

  t.write(rel, good);  // back to the first state: the first hash again
  auto back = kb::Corpus::reload(*broken, {}, &only);
  CHECK(back->content_hash() == prev->content_hash());
  require_same_as_fresh(*back);
}

TEST_CASE("a file with schema errors still has its references and predicates checked", "[corpus]") {
  kb::test::TempTree tree(fs::path(KB_TEST_DATA) / "deploy" / "records");
  tree.write("gotchas/two-problems.yaml",
             "id: gotchas/two-problems\n"
             "title: A gotcha with a schema error and a typo'd engine\n"
             "severity: blockr\n"
             "status: open\n"
             "kind: correctness\n"
             "affects: [vlmm]\n"
             "applies_when:\n"
             "  all:\n"
             "    - {engine: vllm}\n"
             "    - {config: {prefix_cachin: true}}\n"
             "symptom: |\n  It breaks.\n"
             "workaround: |\n  Do not.\n");
  auto corpus = kb::Corpus::load(tree.dir);
  std::vector<std::string> found;
  for (const auto& d : corpus->diagnostics()) {
    if (d.file == "gotchas/two-problems.yaml")
      found.push_back(d.code + " " + std::to_string(d.line));
  }
  INFO(found.size());
  for (const auto& f : found) INFO(f);
  // The schema error, and in the same run the dangling engine and the unknown setting key
  // of the predicate.
  CHECK(std::count_if(found.begin(), found.end(),
                      [](const std::string& f) { return f.ends_with(" 3"); }) == 1);
  CHECK(std::any_of(found.begin(), found.end(), [](const std::string& f) {
    return f.starts_with("ref.") && f.ends_with(" 6");
  }));
  CHECK(std::any_of(found.begin(), found.end(), [](const std::string& f) {
    return f.starts_with("ref.") && f.ends_with(" 10");
  }));
  // The broken file is no record.
  CHECK(corpus->find("gotchas/two-problems") == nullptr);
}
