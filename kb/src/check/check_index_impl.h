#pragma once

// The inside of a CheckIndex, shared by building (check_index.cpp) and running
// (check_run.cpp). Each gotcha is compiled once into a `Compiled` that later snapshots
// share while its record is unchanged and no name changed, so a live edit recompiles one
// gotcha instead of all of them. Private to kb_core.

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/check_predicate.h"
#include "corpus/vocab.h"
#include "kb/check.h"
#include "kb/evidence.h"

namespace kb {

class Corpus;
struct Record;

/// The engine slots and config keys a deployment must touch before a gotcha's predicate
/// can differ from its value for an empty deployment (see `trigger` in check_index.cpp).
struct CheckTrigger {
  std::vector<int> slots;         ///< sorted, unique
  std::vector<std::string> keys;  ///< sorted, unique
  bool operator==(const CheckTrigger& o) const { return slots == o.slots && keys == o.keys; }
};

/// One gotcha, compiled.
struct CompiledGotcha {
  const Record* record = nullptr;  ///< owned by the corpus the index was built for
  int rank = 0;                    ///< severity rank: blocker 0 ... info 3, unknown 4
  check::Node root;
  bool always = false;   ///< may hold for an empty deployment: a candidate of every check
  CheckTrigger trigger;  ///< when not `always`
};

/// Engine id -> slot. Slots are only ever added, so a later index can extend a copy.
using SlotMap = std::unordered_map<std::string, int>;

/// Which gotchas a deployment can hit, by position in `order`: those that may hold for an
/// empty deployment, and the rest by the engine slots and config keys that trigger them.
/// A check evaluates only these instead of every gotcha.
struct CheckTables {
  std::vector<std::uint32_t> order;  ///< record indexes of compiled gotchas, finding order
  std::vector<std::uint32_t> always;
  std::vector<std::vector<std::uint32_t>> by_slot;
  std::unordered_map<std::string, std::vector<std::uint32_t>> by_key;
};

struct CheckIndex::Impl {
  const Corpus* corpus = nullptr;
  std::shared_ptr<const Vocabulary> vocab;
  EvidenceIndex evidence;  ///< a copy: it shares its (immutable) state
  std::shared_ptr<const SlotMap> slots;
  /// By record index in `corpus`; null for records that are not live gotchas.
  std::vector<std::shared_ptr<const CompiledGotcha>> compiled;
  std::shared_ptr<const CheckTables> tables;
};

/// Prepares resolved services for evaluation (engine instances by slot, settings by key);
/// `env` points into `services`, which must outlive it.
void prepare_env(const CheckIndex::Impl& impl, const std::vector<Service>& services,
                 check::Env& env);

/// Fills a finding's symptom, workaround, tags and fix advice from its record, for the
/// engines the hit services run, one advice per engine and version (check_advice.cpp).
void advise(const Corpus& corpus, const Record& gotcha, const std::vector<const Service*>& hits,
            Finding& f);

/// The first paragraph of Markdown as plain text: code spans, emphasis and link targets
/// dropped, lines joined.
std::string first_paragraph_plain(std::string_view markdown);

}  // namespace kb
