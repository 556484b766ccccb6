#pragma once

// Reads the settings of one service from its command-line arguments, environment and
// record-spelled keys, through the vocabulary's spellings. When several facts set one
// setting, the strongest wins: what the orchestrator says (labels, Dynamo service fields:
// it routes traffic by them), then the launched engine's own flags, then flags of the
// other engines, then environment variables; among equals the later one, as argparse and
// Kubernetes do. The facts that lose are kept as unread.

#include <map>
#include <string>
#include <vector>

#include "corpus/vocab.h"
#include "deploy/command.h"

namespace kb::yaml {
struct Node;
}  // namespace kb::yaml

namespace kb::deploy {

class SettingsReader {
 public:
  /// `entry_engine`: the id of the engine the command line starts ("" when none).
  SettingsReader(const Context& ctx, Facts& out, Service& svc, std::string entry_engine);

  /// The role an entry point implies (`{module: sglang_router.launch_router, role: router}`).
  void entrypoint_role(const std::string& role, const Word& at, const std::string& file,
                       const std::string& via);
  /// The settings an entry point implies (`implies:`), weakest of all: anything the
  /// service states wins.
  void entrypoint_implies(const Vec<KeyValue>& implies, const Str& versions, const Word& at,
                          const std::string& file, const std::string& via);
  /// The role where a platform resource places a pod (KServe's `spec.prefill`): what the
  /// orchestrator says, so it wins over the engine's own flags.
  void platform_role(const Word& role, const std::string& file, const std::string& via);
  /// The role a workload's name says (`llama-decode`: a word of settings/role `in_names`),
  /// after every other fact is in: taken when no fact gives a role other than `both` (vLLM's
  /// NIXL P/D runs both sides as `kv_both`; the Deployments' names say which is which).
  void name_role(const Word& name, const std::string& file);
  /// Flags and positional arguments; the first positional one is the model when
  /// `positional_model` (`vllm serve MODEL`).
  void args(const std::vector<Word>& args, const std::string& file, bool positional_model);
  void env(const std::vector<EnvVar>& env);
  void keys(const std::vector<KeyFact>& keys);
  /// The keys of a config file of `engine` the service names (`LMCACHE_CONFIG_FILE`):
  /// spellings of that engine only, weaker than anything the service already says, which
  /// is taken into the reader first. A key no record spells is unread.
  void config_file(const std::vector<KeyFact>& keys, const std::string& engine);
  /// The fields of a chart's values item as `engine` spells them (the chart renders them
  /// into the engine's flags). A key with a fixed value is a switch: false leaves it unset.
  /// A chart item's fields, spelled as `engine`'s keys; a field under one of
  /// `settings_in` (`vllmConfig.`) that no record spells is listed as not understood.
  void chart_keys(const std::vector<KeyFact>& keys, const std::string& engine,
                  const std::vector<std::string>& settings_in = {});
  /// Moves the winning settings into the service, in the order they were first seen.
  void finish();

 private:
  struct Candidate {
    Setting setting;
    int rank = 0;
    std::size_t order = 0;
    bool has_norm = false;
    std::string norm;  ///< normalised value, to tell a real override from a repeat
  };

  /// `borrow`: a spelling only of engines the service does not run may be taken when every
  /// spelling means the same setting.
  const SpellingRef* choose(const std::vector<SpellingRef>* refs, bool borrow = true) const;
  bool engine_in_service(const SpellingRef& ref) const;
  void set(const SpellingRef& ref, const std::string& raw_value, const std::string& via,
           const std::string& file, Pos pos, Pos end, int rank, bool runtime = false);
  /// One item of a JSON field spelled `FIELD[]`: a config of the same flag nested in the
  /// value (vLLM's MultiConnector lists its child connectors so).
  void json_part(const std::vector<SpellingRef>& refs, const SpellingRef& list,
                 const yaml::Node& item, const std::string& at, const Word& flag, const Word& value,
                 const std::string& file);
  /// One of several values a setting is given at once (a MultiConnector's child, a word of
  /// `--connector kvbm nixl`): not the service's value, but it brings the engines that
  /// value runs and the settings it implies.
  void part_value(const SpellingRef& ref, const std::string& raw, const std::string& shown,
                  const std::string& file, Pos pos, Pos end);
  void json_flag(const std::vector<SpellingRef>& refs, const Word& flag, const Word& value,
                 const std::string& file);
  void unread(const std::string& file, Pos pos, std::string text, std::string why);
  /// A role fact that no spelling of an engine gives (an entry point's, a platform's).
  void role_fact(const char* spelled, const std::string& role, Pos pos, Pos end,
                 const std::string& file, const std::string& via, int rank);

  const Context& ctx_;
  Facts& out_;
  Service& svc_;
  std::string entry_engine_;
  /// False once the entry point's role runs no engine but its own (a router, a cache
  /// server, a client): its flags are read only as its own engine spells them.
  bool borrow_flags_ = true;
  std::map<std::string, Candidate> by_key_;
  /// A value one of several a flag gave a setting (part_value), by the flag's name.
  struct Part {
    std::string key;
    std::string flag;
    std::string value;
  };
  std::vector<Part> parts_;
  std::size_t order_ = 0;
  std::size_t service_index_ = 0;  ///< where the service will stand in the Facts' services
  std::string only_engine_;        ///< config_file: spellings of this engine only
};

/// The value of settings/role that `spelled` names (`kv_producer` is prefill); "" none.
std::string role_value(const Vocabulary& vocab, std::string_view spelled);
/// The role a service states, as a value of settings/role; "" when none or set at run time.
std::string stated_role(const Vocabulary& vocab, const Service& svc);
/// Whether a service of role value `role` runs what its image ships or its script
/// installs beyond what its command names: the value's `runs_shipped_engines` (false for a
/// router, a cache server, a client); true for "" or a role the record does not list.
bool runs_shipped(const Vocabulary& vocab, std::string_view role);

/// Whether `args` pass a flag some settings record spells (aside from the model and the port,
/// which any client takes, and the servers a router names, which a proxy of one's own
/// takes): a sign that the process is an engine even when kb cannot tell which.
bool passes_engine_flags(const Vocabulary& vocab, const std::vector<Word>& args);

/// The one engine whose own flags `args` pass: some flag is spelled by that engine alone
/// and none by another engine alone (`--kv-transfer-config` is vLLM's). Empty when no
/// flag or more than one engine says so. `which` is set to the first telling flag.
std::string engine_of_flags(const Vocabulary& vocab, const Corpus& corpus,
                            const std::vector<Word>& args, const Word** which);

}  // namespace kb::deploy
