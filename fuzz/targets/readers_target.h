#pragma once

// Fuzz target body: one input read as each kind of deployment artifact (the first byte
// picks the kind, or lets the readers guess), against a small fixed vocabulary so entry
// points, images, packages, flags, JSON fields, env vars and labels are all looked up;
// then checked.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/evidence.h"

namespace kb::fuzz {

namespace detail {

struct ReadersFixture {
  std::shared_ptr<const Corpus> corpus;
  EvidenceIndex evidence;
  CheckIndex index;
};

inline const ReadersFixture& readers_fixture() {
  static const ReadersFixture fixture = [] {
    std::vector<FileResult> files;
    files.push_back(load_record_text("engines/vllm.yaml", R"(name: vLLM
packages: [vllm]
images: [vllm/vllm-openai]
entrypoints: [{command: "vllm serve"}, {module: vllm.entrypoints.openai.api_server}]
releases: [{version: 0.26.0}]
)"));
    files.push_back(load_record_text("engines/dynamo.yaml", R"(name: Dynamo
images: [{image: nvcr.io/nvidia/ai-dynamo/vllm-runtime, engines: [vllm]}]
entrypoints: [{module: dynamo.vllm}, {module: dynamo.frontend, role: router}]
releases: [{version: 1.3.0, bundles: {vllm: 0.26.0}}]
)"));
    files.push_back(load_record_text("settings/role.yaml", R"(title: Role
type: enum
values: [{value: prefill, synonyms: [kv_producer]}, {value: decode, synonyms: [kv_consumer]},
         {value: both}, {value: router, synonyms: [frontend]}, {value: cache-server}]
engines:
  - {engine: vllm, json: [{flag: --kv-transfer-config, field: kv_role}], keys: [llm-d.ai/role]}
  - {engine: dynamo, flags: [{flag: --is-prefill-worker, value: prefill}], keys: [subComponentType]}
)"));
    files.push_back(load_record_text("settings/prefix-caching.yaml", R"(title: APC
type: bool
engines:
  - engine: vllm
    flags: [--enable-prefix-caching, {flag: --no-enable-prefix-caching, value: false}]
    keys: [{key: disable_apc, invert: true}]
    defaults: [{versions: ">=0.8.0", value: true}, {value: false}]
)"));
    files.push_back(load_record_text("settings/tensor-parallel-size.yaml", R"(title: TP
type: integer
engines: [{engine: vllm, flags: [--tensor-parallel-size, -tp], env: [VLLM_TP]}]
)"));
    files.push_back(load_record_text("settings/model.yaml", R"(title: Model
type: string
engines: [{engine: vllm, flags: [--model]}]
)"));
    files.push_back(load_record_text("gotchas/a.yaml", R"(title: A
severity: blocker
status: open
symptom: s
workaround: w
affects: [vllm]
applies_when:
  all: [{engine: vllm}, {config: {prefix_caching: true}}, {differs: tensor_parallel_size}]
)"));
    auto corpus = Corpus::from_files("fuzz", std::move(files));
    EvidenceIndex evidence = EvidenceIndex::build(*corpus);
    CheckIndex index = CheckIndex::build(*corpus, evidence);
    return ReadersFixture{corpus, evidence, index};
  }();
  return fixture;
}

}  // namespace detail

/// Empty when every invariant held; otherwise the one the input broke.
inline std::string readers(std::string_view data) {
  static const char* kKinds[] = {"",         "kubernetes", "compose", "deployment",
                                 "packages", "image",      "shell"};
  const std::string kind = data.empty() ? "" : kKinds[static_cast<unsigned char>(data[0]) % 7];
  const std::string text(data.empty() ? data : data.substr(1));
  const auto& fixture = detail::readers_fixture();
  std::vector<Diagnostic> diags;
  Deployment d = fixture.index.read({{"fuzz.txt", text}}, {kind, false}, diags);
  for (const auto& diag : diags) {
    if (diag.code.empty()) return "diagnostic without a code";
  }
  for (const auto& s : d.services) {
    if (s.name.empty()) return "a service without a name";
    for (std::size_t i = 0; i < s.config.size(); ++i) {
      for (std::size_t j = i + 1; j < s.config.size(); ++j) {
        if (s.config[i].key == s.config[j].key) return "duplicate setting " + s.config[i].key;
      }
    }
  }
  CheckReport report = fixture.index.run(d, {true});
  for (const auto& f : report.findings) {
    for (const auto& l : f.locations) {
      if (l.pos.line < 0 || l.pos.column < 0) return "a location before the file";
    }
  }
  return {};
}

}  // namespace kb::fuzz
