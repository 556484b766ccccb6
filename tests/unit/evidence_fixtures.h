#pragma once

// Record trees for the evidence tests, built in memory from inline YAML.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kb/corpus.h"
#include "kb/evidence.h"

namespace evidence_fixtures {

using kb::Corpus;
using kb::Diagnostic;
using Files = std::map<std::string, std::string>;

inline std::shared_ptr<const Corpus> corpus_of(const Files& files) {
  std::vector<kb::FileResult> loaded;
  for (const auto& [file, text] : files) loaded.push_back(kb::load_record_text(file, text));
  return Corpus::from_files("mem", std::move(loaded));
}

inline std::string dump(const std::vector<Diagnostic>& diags) {
  std::string s;
  for (const auto& d : diags) {
    s += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + " " + d.code +
         " " + d.message + "\n";
  }
  return s;
}

inline std::vector<Diagnostic> with_prefix(const std::vector<Diagnostic>& diags,
                                           const std::string& p) {
  std::vector<Diagnostic> out;
  for (const auto& d : diags) {
    if (d.code.rfind(p, 0) == 0) out.push_back(d);
  }
  return out;
}

inline std::string engine(const std::string& name) {
  return "name: " + name + "\n";
}

inline std::string result(const std::string& oracle, const std::string& engines,
                          const std::string& config, int passed, int failed,
                          const std::string& evidence_for, const std::string& date = "2026-09-30") {
  std::string y =
      "oracle: " + oracle + "\ndate: " + date + "\nsubject:\n  engines: " + engines + "\n";
  if (!config.empty()) y += "  config: " + config + "\n";
  y += "passed: " + std::to_string(passed) + "\nfailed: " + std::to_string(failed) + "\n";
  if (!evidence_for.empty()) y += "evidence_for: [" + evidence_for + "]\n";
  return y;
}

inline const char* kGotcha = R"(title: P/D cache hits differ from a cold run
severity: blocker
status: open
oracles: [monolithic-equivalence]
symptom: |
  Output differs.
)";

// The seed-000 shape: 6/6 on vLLM 0.26.0 in two runs, 3/3 on 0.27.1, one cold-vs-warm
// failure, and NIXL / Mooncake passing the same oracle.
inline Files seed_like_tree() {
  const std::string lm = "{kv_transfer: pd, connector: lmcache}";
  return {
      {"engines/vllm.yaml", engine("vLLM")},
      {"engines/lmcache.yaml", engine("LMCache")},
      {"engines/nixl.yaml", engine("NIXL")},
      {"engines/mooncake.yaml", engine("Mooncake") + "aliases: [mooncake-transfer-engine]\n"},
      {"oracles/monolithic-equivalence.yaml", "title: Monolithic equivalence\n"},
      {"oracles/cold-vs-warm.yaml", "title: Cold versus warm\n"},
      {"gotchas/pd.yaml", kGotcha},
      {"gotchas/other.yaml", "title: Other\nseverity: minor\nstatus: open\nsymptom: x\n"},
      {"results/a.yaml",
       result("monolithic-equivalence", "[{engine: vllm, version: 0.26.0}, {engine: lmcache}]", lm,
              0, 3, "gotchas/pd", "2026-09-28")},
      {"results/b.yaml", result("oracles/monolithic-equivalence",
                                "[{engine: lmcache}, {engine: vllm, version: 0.26.0}]", lm, 0, 3,
                                "pd", "2026-09-30")},
      {"results/c.yaml",
       result("monolithic-equivalence", "[{engine: vllm, version: 0.27.1}, {engine: lmcache}]", lm,
              0, 3, "pd", "2026-10-01")},
      {"results/warm.yaml",
       result("cold-vs-warm", "[vllm]", "{prefix_caching: true}", 0, 1, "pd", "2026-10-02")},
      {"results/nixl.yaml", result("monolithic-equivalence", "[vllm, nixl]",
                                   "{kv_transfer: pd, connector: nixl}", 1, 0, "")},
      {"results/mooncake.yaml", result("monolithic-equivalence", "[vllm, mooncake-transfer-engine]",
                                       "{kv_transfer: pd, connector: mooncake}", 2, 0, "")},
      // Fails on the same oracle but is not linked: evidence for something else, no control.
      {"results/sglang-fail.yaml", result("monolithic-equivalence", "[sglang]", "", 0, 1, "other")},
  };
}

}  // namespace evidence_fixtures
