#pragma once

// The readers of deployment artifacts, in OSV-SCALIBR's extractor shape: each has a name,
// a cheap `accepts(path, text)` test and `read(input) -> facts`, and never opens a file;
// the driver (driver.cpp) picks one per input and merges what they return. Every meaning
// -- which flag is which setting, which image or package is which engine -- is looked up
// in the records through the Context.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/budget.h"
#include "kb/deploy.h"
#include "kb/deployment.h"
#include "kb/diagnostic.h"

namespace kb {
class Corpus;
class Vocabulary;
}  // namespace kb

namespace kb::deploy {

class Catalog;

/// What every reader reads with.
struct Context {
  const Corpus& corpus;
  const Vocabulary& vocab;
  const Catalog& catalog;
  ReadOptions options;
  /// What reading the inputs may still make, shared by all of them; the driver sets the
  /// input being read and reports an overrun.
  Budget* budget;
};

/// A setting whose value names a config file of an engine (`LMCACHE_CONFIG_FILE=x.yaml`,
/// a setting record's `file_of`): given beside it, the file's keys are that service's.
struct ConfigRef {
  std::size_t service = 0;  ///< index into the Facts' services
  std::string path;         ///< as written, variables and all
  std::string engine;       ///< the engine whose keys the file holds
  std::string file;
  Pos pos;
  std::string via;  ///< "env LMCACHE_CONFIG_FILE"
};

/// What a reader found in one input.
struct Facts {
  /// The services the input describes, with raw facts (resolved later by the check).
  std::vector<Service> services;
  /// Engines that describe the environment of every service (a package list, an image
  /// reference on its own): they fill in versions, or form one service when no input
  /// describes any.
  std::vector<DeployedEngine> shared_engines;
  /// The input was the hand-written deployment format: kept whole when it is the only input.
  std::optional<Deployment> whole;
  std::vector<Unread> unread;
  std::vector<Diagnostic> diagnostics;
  std::vector<ConfigRef> config_refs;
};

/// One kind of artifact.
class Reader {
 public:
  virtual ~Reader() = default;
  /// "endpoint", "kubernetes", "compose", "values", "deployment", "packages", "image" or
  /// "shell".
  virtual std::string_view name() const = 0;
  /// Whether the input looks like this kind; cheap, never a full parse.
  virtual bool accepts(std::string_view path, std::string_view text, const Context& ctx) const = 0;
  /// Reads the input.
  virtual Facts read(const DeployInput& in, const Context& ctx) const = 0;
};

std::unique_ptr<Reader> endpoint_reader();
std::unique_ptr<Reader> kubernetes_reader();
std::unique_ptr<Reader> compose_reader();
std::unique_ptr<Reader> values_reader();
std::unique_ptr<Reader> deployment_reader();
std::unique_ptr<Reader> packages_reader();
std::unique_ptr<Reader> image_reader();
std::unique_ptr<Reader> shell_reader();

/// Reads `inputs` as one deployment: picks a reader per input (options.kind, else by
/// content), charges one expansion budget, and merges the services they name.
Deployment read_inputs(const Corpus& corpus, const Vocabulary& vocab,
                       const std::vector<DeployInput>& inputs, const ReadOptions& options,
                       std::vector<Diagnostic>& diags);

/// A diagnostic about an input.
Diagnostic diag(Severity s, std::string code, const std::string& file, Pos pos, std::string message,
                std::string hint = {});

}  // namespace kb::deploy
