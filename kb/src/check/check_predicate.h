#pragma once

// The compiled form of a gotcha's applicability and its three-valued evaluation over one
// service of a deployment. `maybe` arises from an engine whose version the deployment
// does not give (or a record range that does not parse), and from an engine default that
// depends on such a version: it cannot be ruled in or out, so it is reported.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kb/check.h"
#include "kb/model.h"
#include "kb/version.h"

namespace kb {
class Vocabulary;
}

namespace kb::check {

enum class Truth : std::uint8_t { no = 0, maybe = 1, yes = 2 };

/// A test of one setting: its canonical key and settings record, values normalised.
struct Test {
  std::string key;
  const Record* setting = nullptr;  ///< null when the key names no setting (lint reports it)
  Str op = "eq";
  Vec<std::string> values;
  Vec<int> default_slots;  ///< slots of the engines that default it (trigger index)
};

/// One side of a compare.
struct Side {
  bool literal = false;
  std::string value;  ///< the literal
  std::string role;   ///< "" for this service
  std::string key;
  const Record* setting = nullptr;
};

/// The two sides of a compiled `compare`.
struct Compare {
  Side left, right;
  std::string cmp;  ///< == != < <= > >=
};

/// One node of a compiled predicate; engine references are slots, ranges are parsed.
/// Rare parts are boxed: a compiled index holds a node per predicate node of every gotcha.
struct Node {
  Predicate::Op op = Predicate::Op::any;
  Vec<Node> children;
  int engine = -1;  ///< slot of the engine id; -1 when the reference resolves to nothing
  Str engine_name;  ///< for messages: "vllm"
  Str range_text;   ///< as written; empty when any version matches
  /// Set when range_text parses and is not `*`; one object per distinct text, shared by
  /// every node of an index that names it (a corpus repeats a few hundred ranges).
  std::shared_ptr<const VersionRange> range;
  bool bad_range = false;  ///< range_text does not parse
  Vec<Test> tests;         ///< config
  Vec<Test> keys;          ///< config_set, differs (op unused)
  Vec<std::string> roles;  ///< role
  Boxed<Compare> compare;  ///< compare
};

/// One deployed engine as the evaluator sees it.
struct Instance {
  const DeployedEngine* engine = nullptr;
  std::optional<Version> version;
};

/// One service prepared for evaluation: instances by engine slot, settings by key.
struct ServiceEnv {
  const Service* service = nullptr;
  std::vector<std::vector<Instance>> by_slot;
  std::unordered_map<std::string, const Setting*> config;  ///< by canonical key
  std::vector<const Instance*> instances;                  ///< every resolved engine
};

/// A deployment prepared for evaluation.
struct Env {
  std::vector<ServiceEnv> services;
  const Vocabulary* vocab = nullptr;
};

/// A setting's value on a service: set, defaulted, uncertain, or not known at all.
struct Value {
  std::optional<std::string> value;
  bool maybe = false;                       ///< a default that depends on an unknown version
  const Setting* from = nullptr;            ///< the deployment fact, when set
  const Instance* by_default = nullptr;     ///< the engine whose default it is
  const SettingDefault* derived = nullptr;  ///< the default by_default works out at start-up
  std::string unknown;              ///< why it is not known, when neither a fact nor a default
  std::vector<std::string> one_of;  ///< when maybe: the values it may take; empty: any
};

/// The effective value of `key` on service `s`.
Value effective(const Env& env, const ServiceEnv& s, const std::string& key, const Record* setting);

/// Evaluates `n` for service `s` of `env`.
Truth eval(const Node& n, const Env& env, const ServiceEnv& s);

/// A reason a finding holds and where in the inputs it comes from.
struct Why {
  std::string text;
  std::string file;
  Pos pos;
  Pos end;  ///< just past the fact's text, when known
};

/// Appends a line for each part of `n` that held for service `s`; `n` must not evaluate
/// to `no` there.
void explain(const Node& n, const Env& env, const ServiceEnv& s, std::vector<Why>& out);

/// A compact rendering of a predicate, e.g. "config prefix_caching = true".
std::string describe(const Node& n);

}  // namespace kb::check
