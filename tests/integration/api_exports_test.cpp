// Lists, search and the export as CSV and NDJSON: parsed back, they say what the JSON
// answer says, column for column and line for line.

#include "server_harness.h"

using namespace kbtest;

namespace {

using Rows = std::vector<std::vector<std::string>>;

// An RFC 4180 reader: quoted fields (quotes doubled), CRLF records.
Rows parse_csv(const std::string& text) {
  Rows rows(1);
  std::string field;
  bool quoted = false, at_start = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        field += ch;
      }
      continue;
    }
    if (ch == '"' && at_start) {
      quoted = true;
      at_start = false;
    } else if (ch == ',') {
      rows.back().push_back(field);
      field.clear();
      at_start = true;
    } else if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      rows.back().push_back(field);
      field.clear();
      at_start = true;
      rows.emplace_back();
      ++i;
    } else {
      REQUIRE(ch != '\n');  // a bare LF outside quotes is not RFC 4180
      field += ch;
      at_start = false;
    }
  }
  REQUIRE(field.empty());
  REQUIRE(rows.back().empty());  // the last record ends with CRLF
  rows.pop_back();
  return rows;
}

// What the documented flattening makes of a JSON value (README, "Exports").
std::string cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ";" : "") + cell(v[i]);
    return out;
  }
  return v.dump();
}

json at(const json& item, const std::string& column) {
  auto dot = column.find('.');
  if (dot != std::string::npos) {
    auto head = column.substr(0, dot);
    return item.contains(head) ? at(item[head], column.substr(dot + 1)) : json();
  }
  return item.is_object() && item.contains(column) ? item[column] : json();
}

// Every CSV row equals the JSON item at the same place, in every column.
void same_as_json(const Rows& rows, const json& items, const std::vector<std::string>& header) {
  REQUIRE(rows.size() == items.size() + 1);
  CHECK(rows[0] == header);
  for (std::size_t i = 0; i < items.size(); ++i) {
    REQUIRE(rows[i + 1].size() == header.size());
    for (std::size_t k = 0; k < header.size(); ++k) {
      INFO(items[i]["id"] << " " << header[k]);
      CHECK(rows[i + 1][k] == cell(at(items[i], header[k])));
    }
  }
}

json parse_ndjson(const std::string& text) {
  json out = json::array();
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    REQUIRE(nl != std::string::npos);
    json line = json::parse(text.substr(start, nl - start));
    CHECK(line["schema_version"] == "1.0");
    line.erase("schema_version");
    out.push_back(std::move(line));
    start = nl + 1;
  }
  return out;
}

std::string body_of(const TestServer& s, const std::string& path, const std::string& type) {
  auto res = get(s, path);
  INFO(path << " -> " << res->status << " " << res->body.substr(0, 300));
  REQUIRE(res->status == 200);
  CHECK(res->get_header_value("Content-Type") == type);
  CHECK(res->get_header_value("Transfer-Encoding") == "chunked");
  CHECK(res->get_header_value("KB-Schema-Version") == "1.0");
  return res->body;
}

const std::string kCsv = "text/csv; charset=utf-8; header=present";
const std::string kNdjson = "application/x-ndjson";

}  // namespace

TEST_CASE("gotchas as CSV and NDJSON round-trip to the JSON answer", "[server][exports]") {
  TestServer s;
  const json items = get_json(s, "/api/v1/gotchas?limit=500&include_withdrawn=true")["items"];
  REQUIRE(items.size() == 12);
  const std::vector<std::string> header = {
      "id",      "title",          "severity",         "status",  "kind",  "family",
      "engines", "evidence.state", "evidence.summary", "updated", "stale", "url"};
  same_as_json(parse_csv(body_of(s, "/api/v1/gotchas.csv?include_withdrawn=true", kCsv)), items,
               header);
  same_as_json(parse_csv(body_of(s, "/api/v1/gotchas?format=csv&include_withdrawn=true", kCsv)),
               items, header);
  CHECK(parse_ndjson(body_of(s, "/api/v1/gotchas.ndjson?include_withdrawn=true", kNdjson)) ==
        items);
  // Filters and sort apply as in JSON; a multi-engine cell is joined with ';'.
  const json vllm = get_json(s, "/api/v1/gotchas?engine=vllm&sort=id")["items"];
  const Rows rows = parse_csv(body_of(s, "/api/v1/gotchas.csv?engine=vllm&sort=id", kCsv));
  same_as_json(rows, vllm, header);
  bool joined = false;
  for (const auto& r : rows) joined |= r[6].find(';') != std::string::npos;
  CHECK(joined);
  // .json is the JSON answer.
  CHECK(get_json(s, "/api/v1/gotchas.json?limit=500&include_withdrawn=true")["items"] == items);
}

TEST_CASE("record lists, search and the export as CSV and NDJSON", "[server][exports]") {
  TestServer s;
  for (std::string type : {"engines", "oracles", "results"}) {
    const json items = get_json(s, "/api/v1/" + type)["items"];
    std::vector<std::string> header = {"id", "type", "title", "url"};
    if (type == "engines") header.push_back("gotchas");
    if (type == "results") header.insert(header.end(), {"date", "passed", "failed"});
    same_as_json(parse_csv(body_of(s, "/api/v1/" + type + ".csv", kCsv)), items, header);
    CHECK(parse_ndjson(body_of(s, "/api/v1/" + type + "?format=ndjson", kNdjson)) == items);
  }
  const json hits = get_json(s, "/api/v1/search?q=cache")["hits"];
  REQUIRE(hits.size() > 0);
  same_as_json(parse_csv(body_of(s, "/api/v1/search.csv?q=cache", kCsv)), hits,
               {"id", "type", "title", "snippet", "rank", "url"});
  CHECK(parse_ndjson(body_of(s, "/api/v1/search.ndjson?q=cache", kNdjson)) == hits);

  const json records = get_json(s, "/api/v1/export")["records"];
  same_as_json(parse_csv(body_of(s, "/api/v1/export.csv", kCsv)), records,
               {"id", "type", "title", "name", "severity", "status", "family", "date", "published",
                "modified", "content_hash", "stale", "file"});
  CHECK(parse_ndjson(body_of(s, "/api/v1/export.ndjson", kNdjson)) == records);
}

TEST_CASE("a stream spans many pieces, and HTTP/1.0 gets it unframed", "[server][exports]") {
  TreeCopy tree;
  for (int i = 0; i < 450; ++i) {
    const std::string n = std::to_string(1000 + i);
    tree.write("engines/e" + n + ".yaml",
               "id: engines/e" + n + "\nname: \"Engine, \\\"" + n + "\\\"\"\nrepo: x/e" + n + "\n");
  }
  kb::http::ServeConfig cfg;
  cfg.records = tree.root();
  TestServer s(cfg);
  const json records = get_json(s, "/api/v1/export")["records"];
  REQUIRE(records.size() == 472);
  CHECK(parse_ndjson(body_of(s, "/api/v1/export.ndjson", kNdjson)) == records);
  const json engines = get_json(s, "/api/v1/engines?limit=1000")["items"];
  REQUIRE(engines.size() == 455);
  const Rows rows = parse_csv(body_of(s, "/api/v1/engines.csv", kCsv));
  same_as_json(rows, engines, {"id", "type", "title", "url", "gotchas"});
  CHECK(rows[1][2] == "Engine, \"1000\"");

  const std::string raw = raw_request(s.port(), "GET /api/v1/engines.csv HTTP/1.0\r\n\r\n");
  CHECK(raw_status(raw) == 200);
  const auto end = raw.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  CHECK(raw.substr(0, end).find("Transfer-Encoding") == std::string::npos);
  CHECK(raw.substr(0, end).find("Connection: close") != std::string::npos);
  CHECK(parse_csv(raw.substr(end + 4)) == rows);
}

TEST_CASE("format and suffix are checked like every parameter", "[server][exports]") {
  TestServer s;
  auto err = get_json(s, "/api/v1/gotchas?format=xml", 400)["error"];
  CHECK(err["parameter"] == "format");
  err = get_json(s, "/api/v1/gotchas.csv?format=ndjson", 400)["error"];
  CHECK(err["message"] == "format: 'ndjson' disagrees with the path's .csv suffix");
  CHECK(get_json(s, "/api/v1/gotchas.xml", 404)["error"]["code"] == "not-found");
  // A bad filter fails before the first byte, as JSON.
  CHECK(get_json(s, "/api/v1/gotchas.csv?severity=majr", 400)["error"]["did_you_mean"] == "major");
  // HEAD has the head only.
  auto c = s.client();
  auto head = c.Head("/api/v1/gotchas.csv");
  REQUIRE(head);
  CHECK(head->status == 200);
  CHECK(head->body.empty());
}
