#include "openai.h"

#include <nlohmann/json.hpp>

#include "answer_json.h"
#include "kb/error.h"

namespace kb::client {

using nlohmann::json;

namespace {

// The message a JSON error body carries ({"error": {"message"}} or {"message"}, "detail").
std::string error_message(const HttpResult& res) {
  const std::string& body = res.body;
  json j = parse_answer_json(body, res.url);
  if (j.is_object()) {
    const json* e = j.contains("error") ? &j["error"] : &j;
    if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) {
      return one_line((*e)["message"].get<std::string>());
    }
    if (e->is_string()) return one_line(e->get<std::string>());
    if (j.contains("detail") && j["detail"].is_string())
      return one_line(j["detail"].get<std::string>());
  }
  return one_line(body);
}

std::int64_t integer(const json& obj, const char* key) {
  if (!obj.is_object()) return -1;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return -1;
  return it->get<std::int64_t>();
}

}  // namespace

std::vector<std::string> list_models(Http& http) {
  std::vector<std::string> out;
  HttpResult res = http.get("/v1/models");
  if (!res.error.empty() || res.status != 200) {
    throw Error(Errc::io,
                "GET /v1/models: " + (!res.error.empty() ? res.error
                                                         : "HTTP " + std::to_string(res.status) +
                                                               ": " + error_message(res)));
  }
  std::string too_deep;
  json j = parse_answer_json(res.body, res.url, &too_deep);
  if (!too_deep.empty()) throw Error(Errc::io, "GET /v1/models: " + too_deep);
  if (!j.is_object() || !j.contains("data") || !j["data"].is_array()) {
    throw Error(Errc::io, "GET /v1/models: not a model list");
  }
  for (const auto& m : j["data"]) {
    if (m.is_object() && m.contains("id") && m["id"].is_string()) {
      out.push_back(m["id"].get<std::string>());
    }
  }
  if (out.empty()) throw Error(Errc::io, "GET /v1/models: the server lists no model");
  return out;
}

std::string request_path(const oracle::Request& r) {
  return r.prompt != nullptr && r.prompt->is_chat() ? "/v1/chat/completions" : "/v1/completions";
}

std::string request_body(const oracle::Request& r, const std::string& model) {
  json body = {{"model", model},
               {"max_tokens", r.max_tokens},
               {"temperature", 0},
               {"n", 1},
               {"stream", false}};
  if (r.prompt->is_chat()) {
    json messages = json::array();
    for (std::size_t i = 0; i < r.prompt->messages.size(); ++i) {
      const auto& m = r.prompt->messages[i];
      messages.push_back({{"role", m.role}, {"content", i == 0 ? r.nonce + m.content : m.content}});
    }
    body["messages"] = std::move(messages);
  } else {
    body["prompt"] = r.nonce + r.prompt->text;
  }
  if (!r.token_ids_field.empty()) body[r.token_ids_field] = true;
  if (!r.salt_field.empty()) body[r.salt_field] = r.salt;
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

oracle::Generation parse_answer(const HttpResult& res, bool chat) {
  oracle::Generation g;
  if (!res.error.empty()) {
    g.error = res.error;
    return g;
  }
  if (res.status != 200) {
    g.error = "HTTP " + std::to_string(res.status) + ": " + error_message(res);
    return g;
  }
  json j = parse_answer_json(res.body, res.url, &g.error);
  if (!g.error.empty()) return g;
  if (!j.is_object()) {
    g.error = "the answer is not a JSON object";
    return g;
  }
  if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty() ||
      !j["choices"][0].is_object()) {
    g.error = "the answer has no choices";
    return g;
  }
  const json& c = j["choices"][0];
  const json* text = nullptr;
  if (chat) {
    if (c.contains("message") && c["message"].is_object() && c["message"].contains("content")) {
      text = &c["message"]["content"];
    }
  } else if (c.contains("text")) {
    text = &c["text"];
  }
  if (text == nullptr || !(text->is_string() || text->is_null())) {
    g.error =
        chat ? "the answer has no choices[0].message.content" : "the answer has no choices[0].text";
    return g;
  }
  if (text->is_string()) g.text = text->get<std::string>();
  if (c.contains("token_ids") && c["token_ids"].is_array()) {
    g.has_token_ids = true;
    for (const auto& id : c["token_ids"]) {
      if (!id.is_number_integer()) {
        g.error = "choices[0].token_ids holds something other than integers";
        return g;
      }
      g.token_ids.push_back(id.get<std::int64_t>());
    }
  }
  if (c.contains("finish_reason") && c["finish_reason"].is_string()) {
    g.finish_reason = c["finish_reason"].get<std::string>();
  }
  if (j.contains("usage") && j["usage"].is_object()) {
    const json& u = j["usage"];
    g.completion_tokens = integer(u, "completion_tokens");
    if (u.contains("prompt_tokens_details")) {
      g.cached_tokens = integer(u["prompt_tokens_details"], "cached_tokens");
    }
  }
  return g;
}

oracle::Generation generate(Http& http, const oracle::Request& r, const std::string& model) {
  try {
    return parse_answer(http.post_json(request_path(r), request_body(r, model)),
                        r.prompt->is_chat());
  } catch (const std::exception& e) {
    oracle::Generation g;
    g.error = std::string("cannot read the answer: ") + e.what();
    return g;
  }
}

}  // namespace kb::client
