// A single POST /api/v1/check is budgeted like a batch (issue 33): the facts it asks for
// and the size of its answer in proportion to its body, and its time; past a budget a
// stable `limits.*` code with 413 or 503, never a 500, and /healthz answers meanwhile.

#include <atomic>

#include "check_one.h"
#include "http_status.h"
#include "metrics.h"
#include "routes.h"
#include "server_harness.h"

using namespace kbtest;

TEST_CASE("a single check is budgeted like a batch: facts and answer size", "[server][budget]") {
  {
    TestServer s;
    // 3,000 services in 9 KB: more than 1,000 facts and one per 8 bytes.
    std::string body = "{\"services\": [";
    for (int i = 0; i < 3000; ++i) body += i == 0 ? "{}" : ",{}";
    body += "]}";
    auto res = post(s, "/api/v1/check", body);
    INFO(res->body.substr(0, 300));
    CHECK(res->status == 413);
    const json e = json::parse(res->body)["error"];
    CHECK(e["code"] == "limits.check-facts");
    CHECK(e["message"] == "the deployment names more than " +
                              std::to_string(1000 + body.size() / 8) +
                              " engines, settings and services (1,000 and one per 8 bytes of the "
                              "body, at most 20000); check it in parts");
    CHECK(get(s, "/healthz")->status == 200);
    CHECK(s.errors().empty());
  }
  {
    kb::http::ServeConfig cfg;
    cfg.max_batch_facts = 2;
    cfg.max_batch_response_bytes = 100;
    TestServer s(cfg);
    auto res = post(s, "/api/v1/check",
                    R"({"engines": [{"engine": "vllm"}], "config": {"a": "1", "b": "2"}})");
    CHECK(res->status == 413);
    CHECK(json::parse(res->body)["error"]["code"] == "limits.check-facts");
    res = post(s, "/api/v1/check", R"({"engines": [{"engine": "vllm", "version": "0.26.0"}]})");
    INFO(res->body.substr(0, 300));
    CHECK(res->status == 413);
    const json e = json::parse(res->body)["error"];
    CHECK(e["code"] == "limits.check-answer");
    CHECK(e["message"] ==
          "the answer would be larger than 100 bytes (1 MiB and 16 per byte of the body, at "
          "most 100); check the deployment in parts");
  }
}

TEST_CASE("a check past its time limit answers 503 limits.check-time", "[server][budget]") {
  kb::http::ServeConfig cfg;
  cfg.check_time_limit = std::chrono::milliseconds(1);
  TestServer s(cfg);
  std::string script;
  while (script.size() < 400 * 1024) script += "sh -c 'vllm serve m --port 8000 --tp 2'\n";
  auto res = post(s, "/api/v1/check?kind=shell", script, "text/plain");
  INFO(res->body.substr(0, 300));
  CHECK(res->status == 503);
  CHECK(res->get_header_value("Retry-After") == "1");
  const json e = json::parse(res->body)["error"];
  CHECK(e["code"] == "limits.check-time");
  CHECK(e["message"] ==
        "the check took more than 0.001 s, or its client left; send a smaller deployment");
  CHECK(get(s, "/healthz")->status == 200);
  CHECK(s.errors().empty());
}

TEST_CASE("the check time limit is validated", "[server][budget]") {
  kb::http::ServeConfig cfg;
  cfg.check_time_limit = std::chrono::milliseconds(0);
  CHECK_THROWS_WITH(cfg.validate(), "the check time limit must be positive");
}

TEST_CASE("a check whose client has gone stops, answering limits.check-time", "[server][budget]") {
  TestServer s;
  kb::http::ServeConfig cfg;
  kb::http::Metrics metrics;
  const kb::http::Services svc{s.server().kb(), cfg, metrics, [](const std::string&) {}};
  const auto snap = s.server().kb().current();
  httplib::Request req;
  httplib::Response res;
  std::atomic<bool> gone{false};
  const kb::http::Ctx c{req, res, *snap, svc, nullptr, snap, nullptr, &gone};
  const std::string body = R"({"engines": [{"engine": "vllm", "version": "0.26.0"}]})";
  const json answer = json::parse(post(s, "/api/v1/check", body)->body);
  REQUIRE_FALSE(answer["findings"].empty());
  CHECK(kb::http::check_one(c, body, {})["findings"] == answer["findings"]);
  gone = true;
  try {
    kb::http::check_one(c, body, {});
    FAIL("the check ran although its client had gone");
  } catch (const kb::http::ApiError& e) {
    CHECK(e.code() == "limits.check-time");
    CHECK(e.problem() == kb::http::Problem::unavailable);
  }
}
