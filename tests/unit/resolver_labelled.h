#pragma once

// The labelled fixture the repair policy's defaults are measured on: a universe of records
// shaped like the real data (engines and connectors with names, repos and aliases, a
// renamed gotcha, look-alike ids) and tests/data/repair/labelled.tsv.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "kb/resolver.h"

namespace kb::test {

struct NameSpec {
  Kind kind;
  std::string id;
  std::vector<std::string> aliases;
  std::string name;
  std::string repo;
};

inline const std::vector<NameSpec>& labelled_universe() {
  static const std::vector<NameSpec> specs = {
      {Kind::engine, "engines/vllm", {}, "vLLM", "vllm-project/vllm"},
      {Kind::engine, "engines/lmcache", {}, "LMCache", "LMCache/LMCache"},
      {Kind::engine, "engines/nixl", {}, "NIXL", "ai-dynamo/nixl"},
      {Kind::engine,
       "engines/mooncake",
       {"mooncake-transfer-engine"},
       "Mooncake",
       "kvcache-ai/Mooncake"},
      {Kind::engine, "engines/nvidia-dynamo", {"ai-dynamo"}, "NVIDIA Dynamo", "ai-dynamo/dynamo"},
      {Kind::engine, "engines/ucx", {}, "UCX", "openucx/ucx"},
      {Kind::engine, "engines/hf3fs", {"3fs"}, "HF3FS", "deepseek-ai/3FS"},
      {Kind::engine, "engines/moriio", {"mori-io"}, "MoRIIO", ""},
      {Kind::engine, "engines/mori", {}, "MoRI", "ROCm/mori"},
      {Kind::engine, "engines/sglang", {}, "SGLang", "sgl-project/sglang"},
      {Kind::engine, "engines/tensorrt-llm", {"trt-llm"}, "TensorRT-LLM", "NVIDIA/TensorRT-LLM"},
      {Kind::engine, "engines/nccl", {}, "NCCL", "NVIDIA/nccl"},
      {Kind::engine, "engines/rccl", {}, "RCCL", "ROCm/rccl"},
      {Kind::engine, "engines/flashinfer", {}, "FlashInfer", "flashinfer-ai/flashinfer"},
      {Kind::engine, "engines/deepep", {}, "DeepEP", "deepseek-ai/DeepEP"},
      {Kind::engine, "engines/deepgemm", {}, "DeepGEMM", "deepseek-ai/DeepGEMM"},
      {Kind::engine, "engines/lmdeploy", {}, "LMDeploy", "InternLM/lmdeploy"},
      {Kind::engine, "engines/llm-d", {}, "llm-d", "llm-d/llm-d"},
      {Kind::gotcha, "gotchas/pd-cache-hit-silently-differs-from-cold-run", {}, "", ""},
      {Kind::gotcha,
       "gotchas/pd-batch-invariant-mode-absent-from-kv-namespace",
       {"gotchas/batch-invariant-not-in-kv-hash"},
       "",
       ""},
      {Kind::gotcha, "gotchas/prefix-cache-warmup-masks-divergence", {}, "", ""},
      {Kind::gotcha, "gotchas/kv-layout-change-breaks-lmcache-restore", {}, "", ""},
      {Kind::gotcha, "gotchas/kv-layout-change-breaks-lmcache-save", {}, "", ""},
      {Kind::oracle, "oracles/monolithic-equivalence", {"oracles/mono-equiv"}, "", ""},
      {Kind::oracle, "oracles/cold-vs-warm", {}, "", ""},
      {Kind::result, "results/lmcache-pd-vllm-0-26-run-a", {}, "", ""},
      {Kind::result, "results/lmcache-pd-vllm-0-26-run-b", {}, "", ""},
      {Kind::result, "results/lmcache-pd-vllm-0-27-run-a", {}, "", ""},
  };
  return specs;
}

inline Record make_record(const NameSpec& s) {
  Record r;
  r.kind = s.kind;
  r.id = s.id;
  r.aliases = s.aliases;
  r.engine->name = s.name;
  r.engine->repo = s.repo;
  return r;
}

inline NameIndex labelled_index() {
  NameIndex names;
  for (const auto& s : labelled_universe()) names.add(make_record(s));
  names.finish();
  return names;
}

struct Labelled {
  Kind ns;
  std::string value;
  std::string label;     ///< exact | typo | decline
  std::string expected;  ///< id, or "-" for decline
  int line;
};

inline std::vector<Labelled> labelled_cases(const std::string& path) {
  std::ifstream in(path);
  std::vector<Labelled> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    if (cols.size() != 4) continue;
    out.push_back(Labelled{*parse_kind(cols[0]), cols[1], cols[2], cols[3], n});
  }
  return out;
}

/// Wrong repairs and correct repairs of the policy over the typo and decline cases.
struct Score {
  int wrong = 0;
  int repaired = 0;
  int typos = 0;
  std::vector<std::string> wrong_values;
};

inline Score score_policy(const NameIndex& names, const std::vector<Labelled>& cases,
                          const RepairPolicy& policy) {
  Score s;
  for (const auto& c : cases) {
    if (c.label == "exact") continue;
    if (c.label == "typo") ++s.typos;
    Resolution r = resolve(names, c.ns, c.value, policy);
    if (r.target) {
      if (c.label == "decline") {
        ++s.wrong;
        s.wrong_values.push_back(c.value);
      }
      continue;
    }
    if (!r.repairable) continue;
    if (c.label == "typo" && r.candidates.front().id == c.expected) {
      ++s.repaired;
    } else {
      ++s.wrong;
      s.wrong_values.push_back(c.value);
    }
  }
  return s;
}

}  // namespace kb::test
