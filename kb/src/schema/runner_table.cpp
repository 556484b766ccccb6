// The runner kinds of an oracle record and the parameters each accepts.

#include "schema/runner_table.h"

#include <cctype>
#include <charconv>

#include "core/similarity.h"

namespace kb::oracle {
namespace {

ParamInfo count_param(std::string_view name, int min, int max) {
  return {name, ParamType::count, {}, min, max};
}

bool is_none(std::string_view v) {
  return v.empty() || v == "none";
}

}  // namespace

const std::vector<KindInfo>& runner_kinds() {
  static const std::vector<KindInfo> kinds = {
      {"monolithic-equivalence",
       {count_param("max_tokens", 1, 100000),
        count_param("trials", 1, 10000),
        {"token_ids_field", ParamType::name, {}, 0, 0},
        {"determinism_check", ParamType::flag, {"true", "false"}, 0, 0},
        {"isolation", ParamType::choice, {"none", "cache_salt"}, 0, 0},
        {"salt_field", ParamType::name, {}, 0, 0}}},
      {"cold-vs-warm",
       {count_param("max_tokens", 1, 100000),
        count_param("trials", 1, 10000),
        count_param("warm_runs", 1, 1000),
        {"token_ids_field", ParamType::name, {}, 0, 0},
        {"determinism_check", ParamType::flag, {"true", "false"}, 0, 0},
        {"isolation", ParamType::choice, {"cache_salt", "nonce"}, 0, 0},
        {"salt_field", ParamType::name, {}, 0, 0}}},
  };
  return kinds;
}

const KindInfo* find_kind(std::string_view name) {
  for (const auto& k : runner_kinds()) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

const ParamInfo* find_param(const KindInfo& kind, std::string_view name) {
  for (const auto& p : kind.params) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

std::vector<std::string> kind_names() {
  std::vector<std::string> out;
  for (const auto& k : runner_kinds()) out.emplace_back(k.name);
  return out;
}

std::vector<std::string> param_names(const KindInfo& kind) {
  std::vector<std::string> out;
  for (const auto& p : kind.params) out.emplace_back(p.name);
  return out;
}

std::string check_value(const ParamInfo& p, std::string_view v) {
  switch (p.type) {
    case ParamType::count: {
      long long n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size() || n < p.min || n > p.max) {
        return "expected a whole number from " + std::to_string(p.min) + " to " +
               std::to_string(p.max) + ", found '" + std::string(v) + "'";
      }
      return {};
    }
    case ParamType::flag:
    case ParamType::choice: {
      for (const auto& c : p.choices) {
        if (c == v) return {};
      }
      std::string list;
      for (const auto& c : p.choices) list += (list.empty() ? "" : " | ") + c;
      auto guess = did_you_mean(v, p.choices);
      return "unknown value '" + std::string(v) + "' (" +
             (guess ? "did you mean '" + *guess + "'? " : std::string()) + "one of " + list + ")";
    }
    case ParamType::name: {
      bool ok = !v.empty() && (std::isalpha(static_cast<unsigned char>(v.front())) || v[0] == '_');
      for (char c : v) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') ok = false;
      }
      if (ok || is_none(v)) return {};
      return "expected a request field name (letters, digits, '_') or none, found '" +
             std::string(v) + "'";
    }
  }
  return {};
}

std::string check_params(const std::function<const std::string*(std::string_view)>& param) {
  const std::string* isolation = param("isolation");
  const std::string* salt_field = param("salt_field");
  if (isolation && *isolation == "cache_salt" && (!salt_field || is_none(*salt_field))) {
    return "isolation cache_salt sends the salt in a request field: name it with salt_field "
           "(vLLM's is cache_salt)";
  }
  return {};
}

}  // namespace kb::oracle
