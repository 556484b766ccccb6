// kb_client against servers that answer past every budget (tests/oracle/hostile_server.h):
// each refusal names the URL and the limit, arrives within the deadline, and keeps
// nothing of the answer.

#include <catch2/catch.hpp>

#include <chrono>

#include "answer_json.h"
#include "http.h"
#include "kb/oracle.h"
#include "openai.h"
#include "oracle/hostile_server.h"
#include "probe.h"

using kb::client::Http;
using kb_test::HostileServer;

namespace {

Http http_to(const HostileServer& server, double timeout, std::string api_key = "") {
  kb::client::ClientOptions options;
  options.timeout_seconds = timeout;
  options.api_key = std::move(api_key);
  return Http(kb::client::parse_endpoint(server.url()), options);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']');
}

}  // namespace

TEST_CASE("JSON answers are parsed 64 levels deep at most", "[client][budget]") {
  std::string why;
  CHECK(kb::client::parse_answer_json(nested(64), "http://h/x", &why).is_array());
  CHECK(why.empty());
  CHECK(kb::client::parse_answer_json(nested(65), "http://h/x", &why).is_discarded());
  CHECK(why ==
        "the answer of http://h/x nests deeper than 64 levels, kb's limit for a JSON answer");
  // Not JSON is not a refusal: callers say what they expected instead.
  CHECK(kb::client::parse_answer_json("[1,", "http://h/x", &why).is_discarded());
  CHECK(why.empty());
}

TEST_CASE("a server answering JSON nested 100,000 deep is refused, not copied",
          "[client][budget]") {
  HostileServer server(HostileServer::Mode::deep);
  Http http = http_to(server, 10);
  const auto p = kb::client::probe(http, {});
  CHECK(p.reachable);
  CHECK(p.refused == "the answer of " + server.url() +
                         "/v1/models nests deeper than 64 levels, kb's limit for a JSON answer");
  CHECK(p.models.empty());
  CHECK(server.heads().size() == 1);  // the probe asked nothing more
}

TEST_CASE("a generation answered 100,000 deep is an error, and the API key is still sent",
          "[client][budget]") {
  HostileServer server(HostileServer::Mode::deep, "/v1/completions");
  Http http = http_to(server, 10, "sekrit");
  kb::oracle::Prompt prompt;
  prompt.text = "hello";
  kb::oracle::Request r;
  r.prompt = &prompt;
  r.max_tokens = 4;
  const auto g = kb::client::generate(http, r, "toy");
  CHECK(g.error == "the answer of " + server.url() +
                       "/v1/completions nests deeper than 64 levels, kb's limit for a JSON answer");
  REQUIRE(server.heads().size() == 1);
  CHECK(server.heads()[0].rfind("POST /v1/completions HTTP/1.1\r\n", 0) == 0);
  CHECK(server.heads()[0].find("\r\nAuthorization: Bearer sekrit\r\n") != std::string::npos);
  CHECK(server.heads()[0].find("\r\nContent-Type: application/json\r\n") != std::string::npos);
}

TEST_CASE("an endless chunked answer is cut at 4 MiB and not kept", "[client][budget]") {
  HostileServer server(HostileServer::Mode::endless);
  Http http = http_to(server, 20);
  const auto start = std::chrono::steady_clock::now();
  const auto res = http.get("/v1/models");
  CHECK(seconds_since(start) < 10);
  CHECK(res.refused);
  CHECK(res.status == 0);
  CHECK(res.body.empty());
  CHECK(res.error == "the answer of " + server.url() +
                         "/v1/models is larger than 4194304 bytes, kb's limit for an answer");
}

TEST_CASE("a server sending a byte at a time cannot stretch the deadline", "[client][budget]") {
  HostileServer server(HostileServer::Mode::trickle);
  Http http = http_to(server, 1);
  const auto start = std::chrono::steady_clock::now();
  const auto res = http.get("/v1/models");
  const double took = seconds_since(start);
  CHECK(took >= 0.9);
  CHECK(took < 2.5);
  CHECK(res.refused);
  CHECK(res.error == server.url() +
                         "/v1/models gave no complete answer within 1 s, kb's deadline "
                         "for a request");
  // The probe stops at the first refusal: one deadline, not one per route.
  const auto probe_start = std::chrono::steady_clock::now();
  const auto p = kb::client::probe(http, {{"vllm", {}}});
  CHECK(seconds_since(probe_start) < 2.5);
  CHECK(p.refused == res.error);
}

TEST_CASE("headers without end are cut at 9 MiB on the wire", "[client][budget]") {
  HostileServer server(HostileServer::Mode::headers);
  Http http = http_to(server, 20);
  const auto start = std::chrono::steady_clock::now();
  const auto res = http.get("/v1/models");
  CHECK(seconds_since(start) < 10);
  CHECK(res.refused);
  CHECK(res.error == "the answer of " + server.url() +
                         "/v1/models took more than 9437184 bytes on the wire (headers and "
                         "framing included), kb's limit for an answer");
}
