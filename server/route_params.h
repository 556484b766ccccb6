#pragma once

// Query parameters as the route table declares them: the router refuses a request whose
// parameters the route does not declare or whose values do not fit (400, naming the
// parameter, with a did-you-mean), the handlers read them back with their declared
// defaults and limits, and the OpenAPI document is generated from the same rows.

#include <httplib.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kb::http {

/// What a query parameter's value is.
enum class ParamType {
  string,   ///< any text (up to kMaxParamBytes); `values`, when given, lists the choices
  list,     ///< comma-separated items (the parameter may repeat); `values` constrains each
  integer,  ///< a non-negative integer; larger than `max` is capped
  boolean,  ///< true, false, 1, 0, yes, no
};

/// One query parameter of a route.
struct Param {
  std::string_view name;
  ParamType type = ParamType::string;
  std::string_view doc;
  std::vector<std::string_view> values = {};  ///< the allowed values; empty: any
  std::string_view fallback = {};             ///< the default, as text; empty: none
  std::size_t max = 0;                        ///< integer: the largest value served
  bool required = false;                      ///< absent or empty is a 400
};

/// The JSON type name of a parameter type in OpenAPI ("string", "integer", "boolean").
std::string_view param_type_name(ParamType t);

/// Refuses (ApiError, 400) a request with a parameter not in `params` (code
/// `unknown-parameter`) or a value that does not fit its declaration (code
/// `invalid-argument`); both name the parameter and suggest what was probably meant.
void check_params(const httplib::Request& req, const std::vector<Param>& params);

}  // namespace kb::http
