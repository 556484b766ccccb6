#pragma once

// The runner kinds and the parameters each accepts: the one table both `kb lint` (the
// oracle schema) and `kb oracle run` (defaults, --param) read.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::oracle {

/// How a parameter's value is written.
enum class ParamType {
  count,   ///< a whole number in [min, max]
  flag,    ///< true | false
  choice,  ///< one of `choices`
  name,    ///< a request field name (letters, digits, '_'), or empty / none for "do not"
};

struct ParamInfo {
  std::string_view name;
  ParamType type;
  std::vector<std::string> choices;  ///< choice
  int min = 0;                       ///< count
  int max = 0;                       ///< count
};

struct KindInfo {
  std::string_view name;  ///< as `to_string(RunnerKind)` spells it
  std::vector<ParamInfo> params;
};

/// Every runner kind, in documentation order.
const std::vector<KindInfo>& runner_kinds();
/// The kind named `name`, or nullptr.
const KindInfo* find_kind(std::string_view name);
/// The parameter `name` of `kind`, or nullptr.
const ParamInfo* find_param(const KindInfo& kind, std::string_view name);
/// The names of every kind.
std::vector<std::string> kind_names();
/// The names of `kind`'s parameters.
std::vector<std::string> param_names(const KindInfo& kind);
/// Empty when `value` is a valid value of `p`, else what is wrong with it.
std::string check_value(const ParamInfo& p, std::string_view value);
/// Empty when parameters that depend on each other agree, else what is wrong: isolation
/// cache_salt puts the salt in the request field `salt_field` names, which the record (or
/// --param) must name, as servers spell it differently (vLLM: cache_salt). `param(NAME)`
/// is a parameter's value, nullptr when it is not given.
std::string check_params(const std::function<const std::string*(std::string_view)>& param);

}  // namespace kb::oracle
