#include "route_params.h"

#include <algorithm>
#include <charconv>

#include "http_request.h"
#include "http_status.h"
#include "kb/suggest.h"
#include "kb/text.h"

namespace kb::http {

using nlohmann::json;

namespace {

std::vector<std::string> strings(const std::vector<std::string_view>& v) {
  return {v.begin(), v.end()};
}

std::string joined(const std::vector<std::string_view>& v) {
  std::string out;
  for (auto s : v) out += (out.empty() ? "" : ", ") + std::string(s);
  return out;
}

[[noreturn]] void refuse_value(const Param& p, const std::string& value, const std::string& why,
                               const std::vector<std::string_view>& allowed = {}) {
  std::string message = std::string(p.name) + ": " + why;
  json details = {{"parameter", p.name}, {"value", value}};
  if (!allowed.empty()) {
    details["allowed"] = strings(allowed);
    if (auto guess = did_you_mean(value, strings(allowed))) {
      message += "; did you mean '" + *guess + "'?";
      details["did_you_mean"] = *guess;
    }
  }
  throw ApiError(Problem::bad_request, problem_code(Problem::bad_request), message, details);
}

void check_choice(const Param& p, const std::string& value) {
  if (p.values.empty() || std::find(p.values.begin(), p.values.end(), value) != p.values.end())
    return;
  refuse_value(p, value, "'" + value + "' is not one of " + joined(p.values), p.values);
}

void check_value(const Param& p, const std::string& value) {
  switch (p.type) {
    case ParamType::string:
      check_choice(p, value);
      return;
    case ParamType::list:
      for (std::size_t at = 0; at <= value.size();) {
        std::size_t comma = std::min(value.find(',', at), value.size());
        std::string item = value.substr(at, comma - at);
        item.erase(0, item.find_first_not_of(' '));
        item.erase(item.find_last_not_of(' ') + 1);
        if (!item.empty()) check_choice(p, item);
        at = comma + 1;
      }
      return;
    case ParamType::integer: {
      std::size_t n = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (end != value.data() + value.size() ||
          (ec != std::errc() && ec != std::errc::result_out_of_range))
        refuse_value(p, value, "expected a non-negative integer");
      return;
    }
    case ParamType::boolean: {
      const std::string v = text::lower(value);
      if (v == "true" || v == "false" || v == "1" || v == "0" || v == "yes" || v == "no") return;
      refuse_value(p, value, "expected true or false", {"true", "false"});
    }
  }
}

}  // namespace

std::string_view param_type_name(ParamType t) {
  switch (t) {
    case ParamType::integer:
      return "integer";
    case ParamType::boolean:
      return "boolean";
    case ParamType::string:
    case ParamType::list:
      return "string";
  }
  return "string";
}

void check_params(const httplib::Request& req, const std::vector<Param>& params) {
  std::vector<std::string> names;
  for (const auto& p : params) names.emplace_back(p.name);
  for (const auto& [name, value] : req.params) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;
    const std::string shown = log_safe(std::string_view(name).substr(0, 100));
    std::string message = "unknown parameter '" + shown + "'";
    json details = {{"parameter", shown}, {"allowed", names}};
    if (auto guess = did_you_mean(name, names)) {
      message += "; did you mean '" + *guess + "'?";
      details["did_you_mean"] = *guess;
    } else if (names.empty()) {
      message += "; this route takes no parameters";
    } else {
      std::string all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      message += "; this route takes " + all;
    }
    throw ApiError(Problem::bad_request, "unknown-parameter", message, details);
  }
  for (const auto& p : params) {
    const std::string value = param(req, std::string(p.name).c_str());
    if (value.empty()) {
      if (p.required)
        throw ApiError(Problem::bad_request, problem_code(Problem::bad_request),
                       std::string(p.name) + ": required, " + std::string(p.doc),
                       json{{"parameter", p.name}});
      continue;
    }
    check_value(p, value);
  }
}

}  // namespace kb::http
