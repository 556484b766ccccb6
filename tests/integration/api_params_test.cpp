// Strict query parameters: every parameter a route declares (server/routes.cpp) refuses
// a bad value with a 400 naming it, and a parameter no route declares is refused too.

#include <set>

#include "routes.h"
#include "server_harness.h"

using namespace kbtest;

namespace {

struct BadValue {
  const char* method;
  const char* route;       ///< the route's documented name
  const char* param;       ///< the parameter under test
  const char* target;      ///< the request
  const char* message;     ///< the error message begins with this
  const char* suggestion;  ///< the did-you-mean, or null
};

// One line per strict parameter; the test below fails when a route declares one more.
const BadValue kBadValues[] = {
    {"GET", "/api/v1/gotchas", "engine", "/api/v1/gotchas?engine=vlm",
     "engine: no engine 'vlm'; did you mean 'vllm'?", nullptr},
    {"GET", "/api/v1/gotchas", "severity", "/api/v1/gotchas?severity=blocker,majr",
     "severity: 'majr' is not one of blocker, major, minor, info; did you mean 'major'?", "major"},
    {"GET", "/api/v1/gotchas", "status", "/api/v1/gotchas?status=opn",
     "status: 'opn' is not one of open, mitigated, fixed, withdrawn, unknown, stale; did you mean "
     "'open'?",
     "open"},
    {"GET", "/api/v1/gotchas", "family",
     "/api/v1/gotchas?family=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,aa,bb,cc,dd,ee,"
     "ff,gg",
     "family: at most 32 values", nullptr},
    {"GET", "/api/v1/gotchas", "reproduced", "/api/v1/gotchas?reproduced=reprodused",
     "reproduced: 'reprodused' is not one of reproduced, not-reproduced, no-evidence; did you "
     "mean 'reproduced'?",
     "reproduced"},
    {"GET", "/api/v1/gotchas", "q", "/api/v1/gotchas?q=%FF", "q: not valid UTF-8", nullptr},
    {"GET", "/api/v1/gotchas", "sort", "/api/v1/gotchas?sort=sevrity",
     "sort: 'sevrity' is not one of severity, id, updated; did you mean 'severity'?", "severity"},
    {"GET", "/api/v1/gotchas", "limit", "/api/v1/gotchas?limit=ten",
     "limit: expected a non-negative integer", nullptr},
    {"GET", "/api/v1/gotchas", "page_token", "/api/v1/gotchas?page_token=xyz",
     "page_token is not a token this listing handed out", nullptr},
    {"GET", "/api/v1/gotchas", "include_withdrawn", "/api/v1/gotchas?include_withdrawn=maybe",
     "include_withdrawn: expected true or false", nullptr},
    {"GET", "/api/v1/gotchas", "format", "/api/v1/gotchas?format=cvs",
     "format: 'cvs' is not one of json, csv, ndjson; did you mean 'csv'?", "csv"},
    {"GET", "/api/v1/{type}", "format", "/api/v1/engines?format=ndjsn",
     "format: 'ndjsn' is not one of json, csv, ndjson; did you mean 'ndjson'?", "ndjson"},
    {"GET", "/api/v1/search", "format", "/api/v1/search?q=cache&format=xml",
     "format: 'xml' is not one of json, csv, ndjson", nullptr},
    {"GET", "/api/v1/export", "format", "/api/v1/export?format=jsn",
     "format: 'jsn' is not one of json, csv, ndjson; did you mean 'json'?", "json"},
    {"GET", "/api/v1/{type}", "limit", "/api/v1/engines?limit=-1",
     "limit: expected a non-negative integer", nullptr},
    {"GET", "/api/v1/{type}", "page_token", "/api/v1/results?page_token=xyz",
     "page_token is not a token this listing handed out", nullptr},
    {"GET", "/api/v1/search", "q", "/api/v1/search?limit=3", "q: required, the text to search for",
     nullptr},
    {"GET", "/api/v1/search", "limit", "/api/v1/search?q=cache&limit=1e3",
     "limit: expected a non-negative integer", nullptr},
    {"GET", "/api/v1/resolve", "type", "/api/v1/resolve?type=engin&q=vllm",
     "type: 'engin' is not one of ", "engine"},
    {"GET", "/api/v1/resolve", "q", "/api/v1/resolve?type=engine",
     "q: required, the name to resolve", nullptr},
    {"GET", "/api/v1/changes", "since", "/api/v1/changes?since=yesterday",
     "since: expected unix milliseconds", nullptr},
    {"POST", "/api/v1/check", "kind", "/api/v1/check?kind=kubernets",
     "kind: 'kubernets' is not one of ", "kubernetes"},
    {"POST", "/api/v1/check", "ignore", "/api/v1/check?ignore=%C0", "ignore: not valid UTF-8",
     nullptr},
    {"POST", "/api/v1/check", "allow_unknown", "/api/v1/check?allow_unknown=maybe",
     "allow_unknown: expected true or false", nullptr},
    {"POST", "/api/v1/check", "allow_invalid_records", "/api/v1/check?allow_invalid_records=2",
     "allow_invalid_records: expected true or false", nullptr},
    {"POST", "/api/v1/check", "fail_on", "/api/v1/check?fail_on=majr",
     "fail_on: 'majr' is not one of blocker, major, minor, info; did you mean 'major'?", "major"},
    {"POST", "/api/v1/check/batch", "allow_unknown", "/api/v1/check/batch?allow_unknown=maybe",
     "allow_unknown: expected true or false", nullptr},
    {"POST", "/api/v1/check/batch", "allow_invalid_records",
     "/api/v1/check/batch?allow_invalid_records=nope",
     "allow_invalid_records: expected true or false", nullptr},
    {"POST", "/api/v1/check/batch", "fail_on", "/api/v1/check/batch?fail_on=blockr",
     "fail_on: 'blockr' is not one of blocker, major, minor, info; did you mean 'blocker'?",
     "blocker"},
};

httplib::Result send(const TestServer& s, const std::string& method, const std::string& target) {
  if (method == "GET") return get(s, target);
  return post(s, target,
              method == "POST" && target.find("batch") != std::string::npos
                  ? R"({"deployments": []})"
                  : R"({"engines": [{"engine": "vllm", "version": "0.26.0"}]})");
}

}  // namespace

TEST_CASE("every strict parameter of every route has a bad-value case here", "[server][params]") {
  std::set<std::pair<std::string, std::string>> covered;
  for (const auto& b : kBadValues) covered.insert({b.route, b.param});
  for (const auto& r : kb::http::route_table()) {
    if (!r.strict) continue;
    for (const auto& p : r.params) {
      INFO(r.name << " ?" << p.name);
      CHECK(covered.count({std::string(r.name), std::string(p.name)}) == 1);
    }
  }
}

TEST_CASE("a bad value of each parameter is a 400 naming it", "[server][params]") {
  TestServer s;
  for (const auto& b : kBadValues) {
    auto res = send(s, b.method, b.target);
    INFO(b.method << " " << b.target << " -> " << res->status << " " << res->body);
    CHECK(res->status == 400);
    auto err = json::parse(res->body)["error"];
    CHECK(err["code"] == "invalid-argument");
    const std::string message = err["message"].get<std::string>();
    CHECK(message.rfind(b.message, 0) == 0);
    if (b.suggestion) {
      CHECK(err["parameter"] == b.param);
      CHECK(err["did_you_mean"] == b.suggestion);
    }
  }
}

TEST_CASE("an unknown parameter is a 400 with a did-you-mean", "[server][params]") {
  TestServer s;
  auto err = get_json(s, "/api/v1/gotchas?severty=major", 400)["error"];
  CHECK(err["code"] == "unknown-parameter");
  CHECK(err["message"] == "unknown parameter 'severty'; did you mean 'severity'?");
  CHECK(err["parameter"] == "severty");
  CHECK(err["did_you_mean"] == "severity");
  CHECK(err["allowed"][0] == "engine");

  err = get_json(s, "/api/v1/gotchas?_shape=array", 400)["error"];
  CHECK(err["code"] == "unknown-parameter");
  CHECK(err["message"].get<std::string>().rfind("unknown parameter '_shape'; this route takes ",
                                                0) == 0);
  CHECK_FALSE(err.contains("did_you_mean"));

  err = get_json(s, "/api/v1/diagnostics?verbose=1", 400)["error"];
  CHECK(err["message"] == "unknown parameter 'verbose'; this route takes no parameters");
  err = get_json(s, "/api/v1/search?q=cache&limt=2", 400)["error"];
  CHECK(err["did_you_mean"] == "limit");
  err = get_json(s, "/api/v1/engines/vllm?x=1", 400)["error"];
  CHECK(err["code"] == "unknown-parameter");
  CHECK(get_json(s, "/healthz?probe=1", 400)["error"]["code"] == "unknown-parameter");

  auto res = post(s, "/api/v1/check?alow_unknown=true", R"({"engines": []})");
  CHECK(res->status == 400);
  CHECK(json::parse(res->body)["error"]["did_you_mean"] == "allow_unknown");

  // Declared parameters still answer, and an empty value means the default.
  CHECK(
      get_json(s, "/api/v1/gotchas?severity=major&sort=id&limit=&include_withdrawn=yes")["sort"] ==
      "id");
  // HTML pages ignore what they do not know: links pick up tracking parameters.
  CHECK(get(s, "/?utm_source=x")->status == 200);
}
