#pragma once

// What the readers of manifests, compose files and scripts have in common: a process --
// an image, a command line, environment variables, labels -- turned into a service of
// raw facts: the engines it runs (entry point, image, packages), its settings (flags,
// JSON fields inside flags, environment variables, record-spelled keys such as labels)
// and its model, each with the line it came from. What it cannot map goes to
// `not_understood`; a process that clearly runs an engine kb cannot identify is an error.

#include <string>
#include <string_view>
#include <vector>

#include "deploy/reader.h"
#include "deploy/shell_words.h"

namespace kb::deploy {

/// An environment variable given to a process.
struct EnvVar {
  std::string name;
  std::string value;
  bool runtime = false;  ///< set when the process starts (a secret, a pod field): not known
  std::string file;
  Pos pos;
  Pos end;
  std::string source;  ///< "env", "configMap NAME", "export", ...
};

/// A key with a value that a record may spell: a label, a field of a Dynamo service, a
/// resource name.
struct KeyFact {
  std::string key;
  std::string value;
  std::string file;
  Pos pos;
  Pos end;
  std::string via;  ///< "label llm-d.ai/role", "subComponentType"
};

/// A process as an artifact describes it.
struct Process {
  std::string file;
  std::string name;
  Pos pos;
  Word image;              ///< empty text: no image
  std::vector<Word> argv;  ///< command followed by its arguments
  /// `argv` are arguments to the image's own entry point (no command was given).
  bool image_entrypoint = false;
  std::vector<EnvVar> env;
  std::vector<KeyFact> keys;
  std::string gpu;  ///< non-empty: why it clearly runs an engine ("requests nvidia.com/gpu")
  Pos gpu_pos;
  std::vector<DeployedEngine> packages;  ///< installed by the same script (`pip install`)
  bool quiet = false;                    ///< a script's command: say nothing when it runs no engine
  bool init = false;  ///< an init container: a service only when it starts an entry point
  /// What a platform resource says of the process (an engine record's `resources`): the
  /// engines it runs when its image and command name none, its served model and role.
  std::vector<DeployedEngine> implied;
  Word model;
  Word role;             ///< the role's text, where it was read
  std::string role_via;  ///< "LLMInferenceService spec.prefill"
  /// The workload's own name (a Deployment's `metadata.name`, a compose service's key),
  /// whose words may say its role (settings/role `in_names`); empty text: none.
  Word workload;
  /// `keys` are spellings of this engine, which the service need not run (a chart's
  /// values: `vllmConfig.enablePrefixCaching` is production-stack's spelling); "" none.
  std::string keys_of;
  /// Prefixes of `keys` (`vllmConfig.`) under which every field is a setting: one no
  /// record spells is not understood rather than not a setting.
  std::vector<std::string> settings_in;
  /// The engine's own arguments by their long names (a chart's `engine_args`), read as a
  /// `--config` file of the engine the service runs is.
  std::vector<KeyFact> engine_keys;
  /// The launchers the command was found behind ("srun, trtllm-llmapi-launch"); "" none.
  std::string launched_by;
};

/// What a copy of a fact costs the inputs' budget (deploy/budget.h): its text and
/// Budget::kFactOverhead a string. A process costs what it may share with others: its
/// environment, keys and packages.
std::size_t fact_cost(const EnvVar& e);
std::size_t fact_cost(const std::vector<EnvVar>& env);
std::size_t fact_cost(const Process& p);

/// Turns processes into services of one input.
class Interpreter {
 public:
  /// `source` is the whole input text (nested command strings are located in it).
  Interpreter(const Context& ctx, Facts& out, std::string_view source);

  /// Adds the services `p` runs: one, or one per engine command of an `sh -c` script;
  /// nothing once the input's budget is spent (the process is charged for first).
  void add(const Process& p);
  const LineIndex& lines() const { return lines_; }
  std::string_view source() const { return source_; }

 private:
  void add_one(const Process& p);
  void launched_engines(const Entrypoint& ep, const std::string& file, Pos pos, Pos end,
                        const std::string& via, std::vector<DeployedEngine>& out) const;

  const Context& ctx_;
  Facts& out_;
  std::string_view source_;
  LineIndex lines_;
  int depth_ = 0;  ///< `sh -c` strings inside `sh -c` strings
  /// Processes started by an entry point that serves nothing (`serves: false`: `ray start`)
  /// so far, with the command that started the last one.
  std::size_t joins_ = 0;
  std::string join_via_;
};

/// What a shell script starts and installs.
struct Script {
  /// Its commands in order (those that only set variables or install packages aside),
  /// each with the environment exported before it, its own `VAR=x` prefix, and every
  /// package the script installs; `docker run IMAGE ...` is a process of that image.
  std::vector<Process> processes;
  std::vector<DeployedEngine> packages;  ///< `pip install` / `uv pip install` lines
};

/// Reads a shell script; `base` gives the image, environment and labels of the container
/// the script runs in (empty for a script file).
Script read_script(std::string_view text, const Locator& where, const Process& base,
                   const Context& ctx, Facts& out);

/// Package requirements (`vllm==0.26.0`, `lmcache`, `sglang[all]>=0.5`) that are engines,
/// as engines with the pinned version (none for a range); others go to `unread`.
void read_requirement(const Word& spec, const std::string& file, const std::string& via,
                      const Context& ctx, std::vector<DeployedEngine>& engines,
                      std::vector<Unread>& unread);

/// Masks a value when the name it belongs to looks like a credential.
std::string shown_value(std::string_view name, std::string_view value);

}  // namespace kb::deploy
