#pragma once

// The compiled form of a gotcha's applicability and its three-valued evaluation.
// `maybe` arises only from an engine whose version the deployment does not give (or a
// record range that does not parse): it cannot be ruled in or out, so it is reported.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kb/check.h"
#include "kb/model.h"
#include "kb/version.h"

namespace kb::check {

enum class Truth : std::uint8_t { no = 0, maybe = 1, yes = 2 };

/// One node of a compiled predicate; engine references are slots, ranges are parsed.
struct Node {
  Predicate::Op op = Predicate::Op::any;
  std::vector<Node> children;
  int engine = -1;          ///< slot of the engine id; -1 when the reference resolves to nothing
  std::string engine_name;  ///< for messages: "vllm"
  std::string range_text;   ///< as written; empty when any version matches
  std::optional<VersionRange> range;  ///< set when range_text parses and is not `*`
  bool bad_range = false;             ///< range_text does not parse
  std::vector<std::pair<std::string, std::string>> config;  ///< key, canonical value
  std::vector<std::string> keys;
};

/// One deployed engine as the evaluator sees it.
struct Instance {
  const DeployedEngine* engine = nullptr;
  std::optional<Version> version;
};

/// A deployment prepared for evaluation: instances by engine slot, config by key.
struct Env {
  std::vector<std::vector<Instance>> by_slot;
  std::unordered_map<std::string_view, std::pair<const Setting*, std::string>> config;
};

/// Scalars compare as text, except that `True`/`TRUE` equal `true` (and so for false),
/// as YAML and JSON both read them as the same boolean.
std::string canonical_value(std::string_view v);

/// Evaluates `n` against `env`.
Truth eval(const Node& n, const Env& env);

/// Appends to `why` a line for each part of `n` that held, and sets `pos` (when still
/// unset) to the deployment position of the first one; `n` must not evaluate to `no`.
void explain(const Node& n, const Env& env, std::vector<std::string>& why, Pos& pos);

}  // namespace kb::check
