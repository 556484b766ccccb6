// kb_client against the toy OpenAI-compatible server in-process: URLs, the probe driven
// by engine records, generations, and a whole oracle run through real HTTP.

#include <catch2/catch.hpp>

#include <set>

#include "http.h"
#include "kb/corpus.h"
#include "kb/error.h"
#include "kb/oracle.h"
#include "openai.h"
#include "probe.h"
#include "toy_server.h"

using kb::client::Http;

namespace {

std::shared_ptr<const kb::Corpus> fixture_corpus() {
  return kb::Corpus::load(std::string(KB_TEST_DATA) + "/oracle/records");
}

Http http_to(int port, double timeout = 10) {
  const auto endpoint = kb::client::parse_endpoint("http://127.0.0.1:" + std::to_string(port));
  kb::client::ClientOptions options;
  options.timeout_seconds = timeout;
  return Http(endpoint, options);
}

kb::oracle::Prompt prompt(const std::string& text) {
  kb::oracle::Prompt p;
  p.text = text;
  return p;
}

}  // namespace

TEST_CASE("base URLs and header lines are parsed strictly", "[client]") {
  const auto e = kb::client::parse_endpoint("https://gateway.example:8443/llm/v1/");
  CHECK(e.origin == "https://gateway.example:8443");
  CHECK(e.prefix == "/llm");
  CHECK(kb::client::parse_endpoint("http://127.0.0.1:8000").prefix.empty());
  auto error_of = [](const std::string& url) {
    try {
      kb::client::parse_endpoint(url);
    } catch (const kb::Error& err) {
      CHECK(err.code() == kb::Errc::invalid_argument);
      return std::string(err.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("127.0.0.1:8000") == "'127.0.0.1:8000': expected http://HOST[:PORT][/PATH]");
  CHECK(error_of("http://user:pw@host/") ==
        "'http://user:pw@host/': expected a host (credentials go in --header or --api-key)");
  CHECK(error_of("http://host:99999") == "'http://host:99999': bad port");
  CHECK(error_of("ftp://host") == "'ftp://host': only http and https are supported");

  auto h = kb::client::parse_header("X-Tenant:  blue ");
  REQUIRE(h);
  CHECK(h->first == "X-Tenant");
  CHECK(h->second == "blue");
  CHECK_FALSE(kb::client::parse_header("no colon"));
  CHECK_FALSE(kb::client::parse_header(": empty name"));
  CHECK_FALSE(kb::client::parse_header("Bad Name: x"));
}

TEST_CASE("the probe finds the engine through the records' routes", "[client]") {
  auto corpus = fixture_corpus();
  const auto specs = kb::client::probe_specs(*corpus);
  REQUIRE(specs.size() == 2);
  CHECK(specs[0].engine == "sglang");
  CHECK(specs[1].engine == "vllm");

  kb_toy::ToyServer vllm_like({});
  auto http = http_to(vllm_like.start());
  auto p = kb::client::probe(http, specs);
  CHECK(p.problems.empty());
  CHECK(p.reachable);
  CHECK(p.models == std::vector<std::string>{"toy-model"});
  REQUIRE(p.engines.size() == 1);
  CHECK(p.engines[0].engine == "vllm");
  CHECK(p.engines[0].version == "0.26.0");
  CHECK(p.engines[0].source == "GET /version: version");
  bool max_len = false;
  for (const auto& s : p.settings) {
    if (s.key == "max_model_len") {
      max_len = s.value == "4096" && s.source == "GET /v1/models: data[0].max_model_len";
    }
  }
  CHECK(max_len);

  kb_toy::ToyOptions sg;
  sg.sglang = true;
  sg.version = "0.5.2";
  kb_toy::ToyServer sglang_like(sg);
  auto http2 = http_to(sglang_like.start());
  auto q = kb::client::probe(http2, specs);
  REQUIRE(q.engines.size() == 1);
  CHECK(q.engines[0].engine == "sglang");
  CHECK(q.engines[0].version == "0.5.2");
  bool tp = false;
  for (const auto& s : q.settings) {
    if (s.key == "tp_size") tp = s.value == "1" && s.source == "GET /get_server_info: tp_size";
  }
  CHECK(tp);

  kb_toy::ToyOptions odd;
  odd.version = "banana";
  kb_toy::ToyServer odd_version(odd);
  auto http3 = http_to(odd_version.start());
  auto o = kb::client::probe(http3, specs);
  REQUIRE(o.engines.size() == 1);
  CHECK(o.engines[0].version.empty());
  REQUIRE(o.problems.size() == 1);
  CHECK(o.problems[0].rfind("GET /version: version: 'banana' is not a version kb reads", 0) == 0);

  kb_toy::ToyOptions anon;
  anon.version_route = false;
  kb_toy::ToyServer unknown(anon);
  auto http4 = http_to(unknown.start());
  CHECK(kb::client::probe(http4, specs).engines.empty());
}

TEST_CASE("generations: text, token ids, chat, and failures as errors", "[client]") {
  kb_toy::ToyOptions options;
  options.faults = {kb_toy::parse_fault("http500:boom"), kb_toy::parse_fault("slow:sleepy:2000")};
  kb_toy::ToyServer server(options);
  const int port = server.start();
  auto http = http_to(port);
  const auto p = prompt("The ferry leaves at");
  kb::oracle::Request r;
  r.prompt = &p;
  r.max_tokens = 6;
  auto plain = kb::client::generate(http, r, "toy-model");
  CHECK(plain.error.empty());
  CHECK_FALSE(plain.has_token_ids);
  CHECK(plain.completion_tokens == 6);
  CHECK(plain.finish_reason == "length");
  CHECK_FALSE(plain.text.empty());

  r.token_ids_field = "return_token_ids";
  r.salt_field = "cache_salt";
  r.salt = "s1";
  auto ids = kb::client::generate(http, r, "toy-model");
  CHECK(ids.has_token_ids);
  CHECK(ids.token_ids.size() == 6);
  CHECK(ids.text == plain.text);  // the salt changes the cache key, not the output
  CHECK(server.seen().back().salt == "s1");

  kb::oracle::Prompt chat;
  chat.messages = {{"system", "Be brief."}, {"user", "When?"}};
  kb::oracle::Request c = r;
  c.prompt = &chat;
  c.nonce = "kb-nonce n1\n";
  CHECK(kb::client::request_path(c) == "/v1/chat/completions");
  auto answer = kb::client::generate(http, c, "toy-model");
  CHECK(answer.error.empty());
  CHECK(answer.token_ids.size() == 6);
  CHECK(server.seen().back().prompt == "system: kb-nonce n1\nBe brief.\nuser: When?\n");

  const auto boom = prompt("boom");
  r.prompt = &boom;
  CHECK(kb::client::generate(http, r, "toy-model").error == "HTTP 500: toy fault: internal error");
  CHECK(kb::client::generate(http, r, "other").error == "HTTP 404: no such model");

  auto impatient = http_to(port, 0.2);
  const auto sleepy = prompt("sleepy");
  r.prompt = &sleepy;
  CHECK(kb::client::generate(impatient, r, "toy-model").error ==
        "http://127.0.0.1:" + std::to_string(port) +
            "/v1/completions gave no complete answer within 0.2 s, kb's deadline for a request");

  auto closed = http_to(1, 1);
  CHECK(kb::client::generate(closed, r, "toy-model").error == "cannot connect");
  try {
    kb::client::list_models(closed);
    FAIL("list_models did not throw");
  } catch (const kb::Error& err) {
    CHECK(err.code() == kb::Errc::io);
    CHECK(std::string(err.what()) == "GET /v1/models: cannot connect");
  }
  auto nothing = kb::client::probe(closed, {});
  CHECK_FALSE(nothing.reachable);
  CHECK(nothing.problems == std::vector<std::string>{"GET /v1/models: cannot connect"});
}

TEST_CASE("answers that are not completions are errors", "[client]") {
  kb::client::HttpResult res;
  res.status = 200;
  res.body = "not json";
  CHECK(kb::client::parse_answer(res, false).error == "the answer is not a JSON object");
  res.body = R"({"choices": []})";
  CHECK(kb::client::parse_answer(res, false).error == "the answer has no choices");
  res.body = R"({"choices": [{"text": 5}]})";
  CHECK(kb::client::parse_answer(res, false).error == "the answer has no choices[0].text");
  res.body = R"({"choices": [{"text": "a", "token_ids": [1, "x"]}]})";
  CHECK(kb::client::parse_answer(res, false).error ==
        "choices[0].token_ids holds something other than integers");
  res.body = R"({"choices": [{"message": {"content": null}, "finish_reason": "stop"}],
                 "usage": {"completion_tokens": 0, "prompt_tokens_details": {"cached_tokens": 32}}})";
  auto g = kb::client::parse_answer(res, true);
  CHECK(g.error.empty());
  CHECK(g.text.empty());
  CHECK(g.cached_tokens == 32);
  res.status = 400;
  res.body = R"({"error": {"message": "bad\nrequest"}})";
  CHECK(kb::client::parse_answer(res, false).error == "HTTP 400: bad request");
}

TEST_CASE("a cold-vs-warm run through HTTP: the cold run comes first, a cache hit diverges",
          "[client]") {
  kb_toy::ToyOptions options;
  options.faults = {kb_toy::parse_fault("cache-diverge:bravo:3")};
  kb_toy::ToyServer server(options);
  const int port = server.start();
  std::vector<kb::oracle::Prompt> prompts = {prompt("shared prefix alpha"),
                                             prompt("shared prefix bravo")};
  kb::oracle::RunnerSpec spec;
  spec.kind = kb::oracle::RunnerKind::cold_vs_warm;
  spec.max_tokens = 10;
  spec.warm_runs = 2;
  spec.isolation = kb::oracle::Isolation::cache_salt;
  spec.salt_field = "cache_salt";
  spec.token_ids_field = "return_token_ids";
  kb::oracle::RunOptions run_options;
  run_options.concurrency = 2;
  auto report = kb::oracle::run(
      spec, prompts,
      [&]() -> kb::oracle::Sender {
        auto http = std::make_shared<Http>(http_to(port));
        return [http](const kb::oracle::Request& r) {
          return kb::client::generate(*http, r, "toy-model");
        };
      },
      run_options);
  CHECK(report.tally.passed == 1);
  CHECK(report.tally.failed == 1);
  CHECK(report.outcomes[1].failure.position == 3);
  CHECK(report.outcomes[1].failure.run == 1);
  // No warm-up: each prompt's first request is a miss with a salt never seen before.
  std::set<std::string> first_seen;
  for (const auto& s : server.seen()) {
    if (first_seen.insert(s.prompt).second) CHECK_FALSE(s.hit);
  }
  CHECK(server.seen().size() == 8);
}
