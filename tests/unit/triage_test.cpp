// `kb triage`: log lines matched against gotchas' detection.signatures, streamed.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <filesystem>
#include <string>

#include "kb/corpus.h"
#include "kb/triage.h"

namespace fs = std::filesystem;
using namespace kb;

namespace {

const fs::path kRecords = fs::path(KB_TEST_DATA) / "deploy" / "records";

const char* kSigned = R"(id: gotchas/zz-signed
title: A gotcha whose log lines name it
severity: major
status: open
affects: [vllm]
symptom: |
  It logs a line.
workaround: |
  Do the `thing`.
detection:
  signatures:
    - {literal: "Remote NIXL agent engine ID mismatch", engine: vllm, versions: ">=0.9.0"}
    - {regex: "page_size=[0-9]+, but prefill"}
)";

const char* kMinor = R"(id: gotchas/zz-minor
title: A minor one
severity: minor
status: open
affects: [vllm]
symptom: |
  Another line.
detection:
  signatures:
    - {literal: "zz minor"}
)";

const char* kWithdrawn = R"(id: gotchas/zz-withdrawn
title: Withdrawn
severity: blocker
status: withdrawn
affects: [vllm]
symptom: |
  Gone.
detection:
  signatures:
    - {literal: "Remote NIXL"}
)";

struct Tree {
  test::TempTree tree{kRecords};
  std::shared_ptr<const Corpus> corpus;
  Tree() {
    tree.write("gotchas/zz-signed.yaml", kSigned);
    tree.write("gotchas/zz-minor.yaml", kMinor);
    tree.write("gotchas/zz-withdrawn.yaml", kWithdrawn);
    corpus = Corpus::load(tree.dir);
  }
};

TriageReport run(const Corpus& corpus, const std::string& log, std::size_t piece = 0,
                 TriageOptions options = {}) {
  Triage t(corpus, options);
  if (piece == 0) {
    t.feed(log);
  } else {
    for (std::size_t i = 0; i < log.size(); i += piece)
      t.feed(std::string_view(log).substr(i, piece));
  }
  return t.finish();
}

}  // namespace

TEST_CASE("triage: signatures name their gotchas with the matching lines", "[triage]") {
  Tree t;
  const std::string log =
      "INFO starting\n"
      "ERROR Remote NIXL agent engine ID mismatch (expected a, got b)\r\n"
      "zz minor thing\n"
      "ValueError: decode server has page_size=64, but prefill server has page_size=32.\n"
      "Remote NIXL agent engine ID mismatch again";  // no end of line: still read
  const TriageReport r = run(*t.corpus, log);
  CHECK(r.lines == 5);
  CHECK(r.bytes == log.size());
  CHECK(r.signatures == 3);  // the withdrawn gotcha's signature is not tried
  REQUIRE(r.matches.size() == 2);
  const TriageMatch& m = r.matches[0];  // major before minor
  CHECK(m.id == "gotchas/zz-signed");
  CHECK(m.severity == "major");
  CHECK(m.workaround == "Do the thing.");
  CHECK(m.count == 3);
  REQUIRE(m.lines.size() == 3);
  CHECK(m.lines[0].line == 2);
  CHECK(m.lines[0].text == "ERROR Remote NIXL agent engine ID mismatch (expected a, got b)");
  CHECK(m.lines[1].line == 4);
  CHECK(m.lines[2].line == 5);
  REQUIRE(m.signatures.size() == 2);
  CHECK(m.signatures[0] == "Remote NIXL agent engine ID mismatch");
  CHECK(m.engines[0] == "vllm >=0.9.0");
  CHECK(m.signatures[1] == "/page_size=[0-9]+, but prefill/");
  CHECK(m.engines[1].empty());
  CHECK(r.matches[1].id == "gotchas/zz-minor");
  CHECK(r.matches[1].lines[0].line == 3);

  // The pieces a log arrives in do not matter, down to one byte at a time.
  for (std::size_t piece : {1, 2, 7, 64}) {
    const TriageReport p = run(*t.corpus, log, piece);
    REQUIRE(p.matches.size() == 2);
    CHECK(p.matches[0].count == 3);
    CHECK(p.matches[0].lines[1].line == 4);
    CHECK(p.lines == 5);
  }
}

TEST_CASE("triage: memory is bounded by the longest line kept, not by the log", "[triage]") {
  Tree t;
  TriageOptions options;
  options.max_line_bytes = 32;
  options.lines_per_gotcha = 2;
  std::string log;
  for (int i = 0; i < 1000; ++i) log += "zz minor " + std::to_string(i) + "\n";
  // A long line is matched on its first bytes: a signature past them is not seen.
  log += std::string(100, 'x') + " zz minor\n";
  log += "zz minor at the start of a long line " + std::string(100, 'y') + "\n";
  const TriageReport r = run(*t.corpus, log, 4096, options);
  REQUIRE(r.matches.size() == 1);
  CHECK(r.matches[0].count == 1001);
  CHECK(r.matches[0].lines.size() == 2);  // all counted, two kept
  CHECK(r.long_lines == 2);
  CHECK(r.lines == 1002);
}

TEST_CASE("triage: bytes that are not UTF-8 are shown as U+FFFD", "[triage]") {
  Tree t;
  const TriageReport r = run(*t.corpus, "zz minor \xff\xfe end\n");
  REQUIRE(r.matches.size() == 1);
  CHECK(r.matches[0].lines[0].text == "zz minor \xEF\xBF\xBD\xEF\xBF\xBD end");
}

TEST_CASE("triage: a log no signature matches names nothing", "[triage]") {
  Tree t;
  CHECK(run(*t.corpus, "").matches.empty());
  CHECK(run(*t.corpus, "").lines == 0);
  CHECK(run(*t.corpus, "all good\n\n").lines == 2);
  CHECK(run(*t.corpus, "remote nixl agent engine id mismatch\n").matches.empty());  // case
}
