#pragma once

// A server's JSON answer as kb parses it: never deeper than kMaxAnswerDepth, so copying,
// printing or destroying what was parsed cannot exhaust the stack.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "http.h"

namespace kb::client {

/// `body` parsed as JSON; discarded (is_discarded()) when it is not JSON or nests deeper
/// than `max_depth`. `refusal`, when given, is set to why in the second case (naming
/// `url` and the limit) and cleared otherwise.
nlohmann::json parse_answer_json(std::string_view body, const std::string& url,
                                 std::string* refusal = nullptr, int max_depth = kMaxAnswerDepth);

}  // namespace kb::client
