#pragma once

// The records tree of tests/data/deploy/records, loaded once, and helpers that read
// deployment artifacts through it: shared by the deployment-reader tests.

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "kb/check.h"
#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/evidence.h"

namespace kb::test {

inline std::string deploy_path(const std::string& name) {
  return std::string(KB_TEST_DATA) + "/deploy/" + name;
}

inline std::string slurp_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct DeployFixture {
  std::shared_ptr<const Corpus> corpus;
  EvidenceIndex evidence;
  CheckIndex index;

  static const DeployFixture& get() {
    static const DeployFixture f;
    return f;
  }

  DeployFixture() {
    corpus = Corpus::load(deploy_path("records"));
    for (const auto& d : corpus->diagnostics()) INFO(format_diagnostic(d));
    REQUIRE(count_severity(corpus->diagnostics(), Severity::error) == 0);
    evidence = EvidenceIndex::build(*corpus);
    index = CheckIndex::build(*corpus, evidence);
  }
};

/// What reading some inputs gave.
struct Read {
  Deployment deployment;
  std::vector<Diagnostic> diags;

  const Service& service(const std::string& name) const {
    auto it = std::find_if(deployment.services.begin(), deployment.services.end(),
                           [&](const Service& s) { return s.name == name; });
    INFO("service " << name);
    REQUIRE(it != deployment.services.end());
    return *it;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& s : deployment.services) out.push_back(s.name);
    return out;
  }
  std::vector<std::string> codes() const {
    std::vector<std::string> out;
    for (const auto& d : diags) out.push_back(d.code);
    return out;
  }
  bool unread(const std::string& text, int line) const {
    return std::any_of(deployment.not_understood.begin(), deployment.not_understood.end(),
                       [&](const Unread& u) { return u.text == text && u.pos.line == line; });
  }
};

/// Reads texts (file name, text) with the fixture records.
inline Read read_texts(const std::vector<std::pair<std::string, std::string>>& texts,
                       const ReadOptions& options = {}) {
  std::vector<DeployInput> inputs;
  for (const auto& [file, text] : texts) inputs.push_back({file, text});
  Read r;
  r.deployment = DeployFixture::get().index.read(inputs, options, r.diags);
  return r;
}

/// Reads files of tests/data/deploy, reported under their bare names.
inline Read read_files(const std::vector<std::string>& names, const ReadOptions& options = {}) {
  std::vector<std::pair<std::string, std::string>> texts;
  for (const auto& n : names) texts.emplace_back(n, slurp_file(deploy_path(n)));
  return read_texts(texts, options);
}

/// The raw setting `key` of a service (as read, before resolution), or nullptr.
inline const Setting* setting(const Service& s, const std::string& key) {
  return s.find(key);
}

/// The engine `id` of a service, or nullptr.
inline const DeployedEngine* engine(const Service& s, const std::string& id) {
  for (const auto& e : s.engines) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

/// The check of inputs already read, with the fixture records.
inline CheckReport check_read(const Read& r, const CheckOptions& options = {}) {
  return DeployFixture::get().index.run(r.deployment, options);
}

inline std::vector<std::string> finding_ids(const CheckReport& report) {
  std::vector<std::string> out;
  for (const auto& f : report.findings) out.push_back(f.id);
  return out;
}

}  // namespace kb::test
