#pragma once

// The vocabulary: the settings records of a corpus as `kb check` and the lint use them --
// which setting a key names, how a value normalises for the setting's type, an engine's
// default for a version, and the spellings (flags, env vars, JSON fields, keys) the
// deployment readers look up. Everything here is read from records; no key, flag or
// engine is known to the code.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kb/model.h"
#include "kb/version.h"
#include "schema/setting_values.h"

namespace kb {

class Corpus;

/// A setting's default for one engine, when the engine's version may or may not be known.
struct DefaultValue {
  std::optional<std::string> value;  ///< normalised; empty when unknown or none
  bool uncertain = false;            ///< the version is not known and the candidates disagree
  /// The engine works it out when it starts (`from->derived` says from what): no value.
  bool derived = false;
  const SettingDefault* from = nullptr;  ///< the entry that gave it
};

/// One way a setting is spelled by an engine, for the readers of deployment artifacts.
struct SpellingRef {
  const Record* setting = nullptr;
  const EngineSpelling* engine = nullptr;
  const Spelling* spelling = nullptr;
};

/// `flag` with `_` read as `-` after its leading dashes: the key flags are matched by
/// when not found as written.
std::string fold_flag(std::string_view flag);

/// Settings of one corpus, indexed.
class Vocabulary {
 public:
  /// Indexes every settings and models record of `corpus` (which must outlive it).
  static std::shared_ptr<const Vocabulary> build(const Corpus& corpus);

  /// The settings record a key or synonym names exactly, or nullptr.
  const Record* setting(std::string_view key) const;
  /// The default of `setting` for engine `engine_id` at `version` (nullopt: not known), on
  /// a service of `role` (a default that names its roles holds only for those).
  DefaultValue default_for(const Record& setting, const std::string& engine_id,
                           const std::optional<Version>& version, std::string_view role = {}) const;
  /// The enum settings with a default that names its roles and a value that runs engines.
  const std::vector<const Record*>& role_defaults() const { return role_defaults_; }
  /// The engines (ids) that declare a default for `setting`.
  std::vector<std::string> engines_with_default(const Record& setting) const;
  /// The model records whose `match` globs match `model_id`, best (longest glob) first.
  std::vector<const Record*> models_for(std::string_view model_id) const;

  /// Spellings of flags, env vars, keys and JSON-valued flags by name (flags with their
  /// dashes, env vars as written, keys lower-cased), for every engine. A flag not found as
  /// written is looked up with `_` and `-` alike after its leading dashes
  /// (`--kv_transfer_config` is `--kv-transfer-config`), as argument parsers such as
  /// vLLM's accept both.
  const std::vector<SpellingRef>* flag(std::string_view name) const;
  const std::vector<SpellingRef>* env(std::string_view name) const;
  const std::vector<SpellingRef>* key(std::string_view name) const;
  const std::vector<SpellingRef>* json(std::string_view flag_or_key) const;

  /// The settings records with `derive:` rules.
  const std::vector<const Record*>& derived() const { return derived_; }
  /// The settings records some value of which implies `key` (settings/gpu's gb10 implies
  /// unified_memory); empty when none.
  const std::vector<const Record*>& implied_by(std::string_view key) const;

  const Corpus& corpus() const { return *corpus_; }

 private:
  const Corpus* corpus_ = nullptr;
  std::vector<const Record*> models_;
  std::vector<const Record*> derived_;
  std::vector<const Record*> role_defaults_;
  std::unordered_map<std::string, std::vector<const Record*>> implied_by_;
  std::unordered_map<std::string, std::vector<SpellingRef>> flags_, env_, keys_, json_;
  std::unordered_map<std::string, std::vector<SpellingRef>> flags_folded_, json_folded_;
};

}  // namespace kb
