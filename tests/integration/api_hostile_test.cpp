// Hostile requests: traversal paths, odd query strings, unknown methods, oversized and
// truncated bodies. Every one must get a 4xx (never a 5xx) and never a file's content.

#include "server_harness.h"

using namespace kbtest;

namespace {

// Text from files outside the records tree that a traversal could try to reach.
bool leaks_a_file(const std::string& body) {
  return body.find("root:x:0:0") != std::string::npos ||              // /etc/passwd
         body.find("cmake_minimum_required") != std::string::npos ||  // the repository
         body.find("id: engines/vllm\nname") != std::string::npos;    // raw record YAML
}

}  // namespace

TEST_CASE("traversal paths answer 4xx and never a file", "[server][hostile]") {
  TestServer s;
  // Each answered with its exact status: 404 for a path no route or record has, 400 for a
  // slug that cannot be one (dot segments, NUL, bad escapes), 414 for a line too long.
  const std::vector<std::pair<std::string, int>> paths = {
      {"/../../../../etc/passwd", 404},
      {"/api/v1/gotchas/../../../../etc/passwd", 404},
      {"/api/v1/gotchas/..%2f..%2f..%2fetc%2fpasswd", 404},
      {"/api/v1/gotchas/%2e%2e%2f%2e%2e%2fetc%2fpasswd", 404},
      {"/api/v1/gotchas/%2e%2e", 400},
      {"/api/v1/gotchas/..", 400},
      {"/api/v1/engines/vllm%2f..%2f..%2fCMakeLists.txt", 404},
      {"/api/v1/engines/vllm.yaml", 404},
      {"/api/v1/engines/..%5c..%5cetc%5cpasswd", 400},
      {"/api/v1/engines/%00vllm", 400},
      {"/api/v1/engines/vllm%00.yaml", 400},
      {"/api/v1/records/engines/vllm.yaml", 404},
      {"/api/v1/engines/%ff%fe", 400},
      {"/static/../../../../etc/passwd", 404},
      {"/static/%2e%2e/%2e%2e/CMakeLists.txt", 404},
      {"/engines/..%2f..%2fCMakeLists.txt", 404},
      {"//etc/passwd", 404},
      {"/api/v1/gotchas/" + std::string(3000, 'a'), 414},
      {"/api/v1/gotchas/%", 400},
      {"/api/v1/gotchas/%zz", 400},
  };
  for (const auto& [path, expected] : paths) {
    const std::string raw =
        raw_request(s.port(), "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    INFO(path << " -> " << raw.substr(0, 300));
    CHECK(raw_status(raw) == expected);
    CHECK_FALSE(leaks_a_file(raw));
  }
  CHECK(get(s, "/api/v1/engines/vllm.yaml")->status == 404);
  CHECK(s.errors().empty());
}

TEST_CASE("hostile query strings get 200 or 4xx", "[server][hostile]") {
  TestServer s;
  const std::vector<std::string> queries = {
      "/api/v1/search?q=%22",
      "/api/v1/search?q=NEAR(a%20b",
      "/api/v1/search?q=%00",
      "/api/v1/search?q=%ff%fe%fd",
      "/api/v1/search?q=" + std::string(5000, 'x'),
      "/api/v1/search?q=a&q=b&q=%22",
      "/api/v1/search?q=*&limit=-1",
      "/api/v1/search?q=x&limit=99999999999999999999999",
      "/api/v1/gotchas?limit=-5",
      "/api/v1/gotchas?limit=1e3",
      "/api/v1/gotchas?page_token=AAAA",
      "/api/v1/gotchas?page_token=" + std::string(4000, 'A'),
      "/api/v1/gotchas?page_token=%ff",
      "/api/v1/gotchas?engine=%27%20OR%201%3D1--",
      "/api/v1/gotchas?severity=,,,",
      "/api/v1/gotchas?engine=" + std::string(40, ','),
      "/api/v1/gotchas?q=%22%20OR%20%22",
      "/api/v1/gotchas?sort=",
      "/api/v1/gotchas?&&&=&=",
      "/api/v1/gotchas?include_withdrawn",
      "/api/v1/resolve?type=engine&q=%ff",
      "/api/v1/resolve?type=engine&q=" + std::string(300, 'm'),
      "/api/v1/changes?since=-1",
      "/api/v1/changes?since=2026-13-45",
      "/api/v1/changes?since=2026-01-01T99:00:00Z",
      "/api/v1/changes?since=99999999999999999999999",
      "/api/v1/engines?page_token=x",
      "/api/v1/diagnostics?x=%00",
  };
  for (const auto& q : queries) {
    auto res = get(s, q);
    INFO(q.substr(0, 120) << " -> " << res->status << " " << res->body.substr(0, 200));
    CHECK((res->status == 200 || (res->status >= 400 && res->status < 500)));
    CHECK(res->get_header_value("Content-Type") == "application/json");
    auto body = json::parse(res->body, nullptr, false);
    CHECK_FALSE(body.is_discarded());
    if (res->status >= 400) CHECK(body["error"]["code"].is_string());
  }
  CHECK(s.errors().empty());
}

TEST_CASE("unknown methods get 405 with Allow, and OPTIONS lists them", "[server][hostile]") {
  TestServer s;
  for (std::string method : {"PUT", "DELETE", "PATCH", "TRACE", "CONNECT", "POST"}) {
    std::string raw =
        raw_request(s.port(), method +
                                  " /api/v1/gotchas HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n"
                                  "Connection: close\r\n\r\n");
    INFO(method << " -> " << raw.substr(0, 200));
    CHECK(raw_status(raw) == 405);
    CHECK(raw.find("Allow: GET, HEAD, OPTIONS") != std::string::npos);
  }
  std::string raw =
      raw_request(s.port(), "GET /api/v1/check HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(raw_status(raw) == 405);
  CHECK(raw.find("Allow: POST, OPTIONS") != std::string::npos);
  raw = raw_request(s.port(),
                    "OPTIONS /api/v1/gotchas/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(raw_status(raw) == 204);
  CHECK(raw.find("Allow: GET, HEAD, OPTIONS") != std::string::npos);
  for (std::string line :
       {"PROPFIND /api/v1/gotchas HTTP/1.1", "GARBAGE", "GET  HTTP/1.1", "get /healthz HTTP/1.1"}) {
    raw = raw_request(s.port(), line + "\r\nHost: x\r\nConnection: close\r\n\r\n");
    INFO(line << " -> " << raw.substr(0, 200));
    CHECK(raw_status(raw) >= 400);
    CHECK(raw_status(raw) < 500);
  }
  raw = raw_request(s.port(), "GET /api/v1/gotchas HTTP/9.9\r\nHost: x\r\n\r\n");
  CHECK(raw_status(raw) == 505);
  raw = raw_request(s.port(),
                    "HEAD /api/v1/gotchas HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  CHECK(raw_status(raw) == 200);
  CHECK(raw.find("\r\n\r\n") == raw.size() - 4);
}

TEST_CASE("bodies: wrong type 415, too large 413, truncated or malformed 4xx, bad shape 422",
          "[server][hostile]") {
  kb::http::ServeConfig cfg;
  cfg.max_body_bytes = 64 * 1024;
  cfg.max_batch = 3;
  cfg.request_timeout = std::chrono::seconds(1);
  TestServer s(cfg);
  CHECK(post(s, "/api/v1/check", "engines=vllm", "application/x-www-form-urlencoded")->status ==
        415);
  CHECK(post(s, "/api/v1/check", "{}", "text/html")->status == 415);
  auto res = post(s, "/api/v1/check", std::string(2 << 20, ' '));
  CHECK(res->status == 413);
  CHECK(json::parse(res->body)["error"]["code"] == "too-large");
  res = post(s, "/api/v1/check", "{\"engines\": [");
  CHECK(res->status == 400);
  CHECK(json::parse(res->body)["error"]["code"] == "malformed-body");
  res = post(s, "/api/v1/check", R"({"engines": "vllm", "config": {"a": {"b": 1}}})");
  CHECK(res->status == 422);
  CHECK(json::parse(res->body)["error"]["diagnostics"].size() >= 2);
  CHECK(post(s, "/api/v1/check", "")->status == 400);
  CHECK(post(s, "/api/v1/check", std::string(100000, '['))->status == 413);
  CHECK(post(s, "/api/v1/check", std::string(1000, '[') + std::string(1000, ']'))->status == 400);
  CHECK(post(s, "/api/v1/check", "[1, 2]")->status == 422);
  CHECK(post(s, "/api/v1/check", "\xff\xfe{}")->status == 400);
  CHECK(post(s, "/api/v1/check/batch", "[{}, {}, {}, {}]")->status == 413);
  CHECK(post(s, "/api/v1/check/batch", "{\"deployments\": 1}")->status == 422);
  CHECK(post(s, "/api/v1/check/batch", "nope")->status == 400);

  // Content-Length says more than arrives: the server times out the read, never a 5xx.
  std::string raw =
      raw_request(s.port(),
                  "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  "Content-Length: 500\r\nConnection: close\r\n\r\n{\"engines\": [");
  CHECK(raw_status(raw) != 500);
  CHECK((raw.empty() || raw_status(raw) >= 400));
  raw = raw_request(s.port(),
                    "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999999\r\n"
                    "Connection: close\r\n\r\n{}");
  CHECK(raw_status(raw) == 413);
  raw = raw_request(s.port(),
                    "POST /api/v1/check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                    "Connection: close\r\n\r\nzz\r\n");
  CHECK(raw_status(raw) != 500);
  CHECK(s.errors().empty());
}

TEST_CASE("CORS headers only when enabled", "[server]") {
  {
    TestServer s;
    CHECK(get(s, "/api/v1/gotchas")->get_header_value("Access-Control-Allow-Origin").empty());
  }
  kb::http::ServeConfig cfg;
  cfg.cors = true;
  TestServer s(cfg);
  auto res = get(s, "/api/v1/gotchas");
  CHECK(res->get_header_value("Access-Control-Allow-Origin") == "*");
  CHECK(res->get_header_value("Access-Control-Expose-Headers").find("ETag") != std::string::npos);
  std::string raw = raw_request(s.port(),
                                "OPTIONS /api/v1/check HTTP/1.1\r\nHost: x\r\nOrigin: http://a\r\n"
                                "Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n");
  CHECK(raw_status(raw) == 204);
  CHECK(raw.find("Access-Control-Allow-Methods: POST, OPTIONS") != std::string::npos);
}

TEST_CASE("batch: the work and the answer of one batch are bounded", "[server][hostile]") {
  kb::http::ServeConfig cfg;
  cfg.max_batch_facts = 50;
  cfg.max_check_diagnostics = 5;
  TestServer s(cfg);
  // 200 misspelt engines in one deployment: more facts than the batch may ask for.
  std::string many = "[{\"engines\": [";
  for (int i = 0; i < 200; ++i)
    many += std::string(i ? "," : "") + "\"vlm" + std::to_string(i) + "\"";
  many += "]}]";
  auto res = post(s, "/api/v1/check/batch", many);
  CHECK(res->status == 413);
  CHECK(json::parse(res->body)["error"]["message"].get<std::string>().find("split it") !=
        std::string::npos);

  // 40 misspelt engines fit the budget; the item's diagnostics are cut at 5 plus a note.
  std::string forty = "[{\"engines\": [";
  for (int i = 0; i < 40; ++i)
    forty += std::string(i ? "," : "") + "\"vlm" + std::to_string(i) + "\"";
  forty += "]}]";
  res = post(s, "/api/v1/check/batch", forty);
  REQUIRE(res->status == 200);
  const json item = json::parse(res->body)["results"][0];
  REQUIRE(item.contains("error"));
  const json& diags = item["error"]["diagnostics"];
  REQUIRE(diags.size() == 6);
  CHECK(diags[0]["severity"] == "error");
  CHECK(diags[5]["code"] == "check.diagnostics-truncated");
  CHECK(diags[5]["message"] == "35 more diagnostics are not listed");
}

TEST_CASE("batch: deployments past the answer budget say so, each", "[server][hostile]") {
  kb::http::ServeConfig cfg;
  cfg.max_batch_response_bytes = 200;
  TestServer s(cfg);
  auto res = post(s, "/api/v1/check/batch",
                  R"([{"engines": ["vllm"]}, {"engines": ["vllm"]}, {"engines": ["vllm"]}])");
  REQUIRE(res->status == 200);
  const json results = json::parse(res->body)["results"];
  REQUIRE(results.size() == 3);
  CHECK_FALSE(results[0].contains("error"));
  CHECK(results[1]["error"]["code"] == "batch-budget-exceeded");
  CHECK(results[2]["error"]["code"] == "batch-budget-exceeded");
  CHECK(results[2]["index"] == 2);
}
