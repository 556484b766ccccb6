#pragma once

// The OpenAI-compatible API as the oracle runner uses it: the served models, and one
// generation at temperature 0 from /v1/completions or /v1/chat/completions.

#include <string>
#include <vector>

#include "http.h"
#include "kb/oracle.h"

namespace kb::client {

/// The model ids `GET /v1/models` lists, in order; throws kb::Error(io) saying why when
/// the server does not answer with a model list.
std::vector<std::string> list_models(Http& http);

/// The JSON body of a request: `/v1/chat/completions` when the prompt holds messages,
/// else `/v1/completions`; temperature 0, one choice, not streamed.
std::string request_body(const oracle::Request& r, const std::string& model);
/// The route a request goes to: "/v1/completions" or "/v1/chat/completions".
std::string request_path(const oracle::Request& r);

/// Reads an answer: text, token ids when the server returns them, finish reason and
/// usage. Anything else (a status other than 200, no JSON, no choices) becomes `error`.
oracle::Generation parse_answer(const HttpResult& res, bool chat);

/// Sends one request to the server and reads its answer; never throws.
oracle::Generation generate(Http& http, const oracle::Request& r, const std::string& model);

}  // namespace kb::client
