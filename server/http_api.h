#pragma once

// The JSON API's handlers, one file per resource (api_*.cpp), and the small JSON shapes
// several of them share.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "kb/model.h"
#include "kb/snapshot.h"
#include "kb/store.h"
#include "routes.h"

namespace kb::http {

// api_gotchas.cpp
/// GET /api/v1/gotchas: filters, facets, sort, keyset pages.
void list_gotchas(const Ctx& c);

// api_records.cpp
/// GET /api/v1/{engines,oracles,results}: every record of the type, keyset pages by id.
void list_records(const Ctx& c);
/// GET /api/v1/{type}/{slug}: one record, resolved, with what references it.
void get_record(const Ctx& c);
/// The same answer when its body is already in the snapshot's response cache (a Peek).
bool peek_record(const Ctx& c);

// api_search.cpp
/// GET /api/v1/search?q=: ranked full-text hits with snippets.
void search(const Ctx& c);
/// GET /api/v1/search's JSON answer: what send_json() writes for {"hits": [{"id", "type",
/// "title", "snippet", "snippet_html", "rank", "url"}...], "query", "snapshot" (and
/// "suggestion", "corrected" when suggested)}, byte for byte, written without the tree.
/// `records`: each hit's record, as Snapshot::search gave them (else looked up).
std::string search_answer_json(const Snapshot& snap, std::string_view q,
                               const std::vector<SearchHit>& results, std::string_view suggestion,
                               bool corrected, const std::vector<const Record*>* records = nullptr);
/// GET /api/v1/resolve?type=&q=: the resolver as a reconciliation service.
void resolve_name(const Ctx& c);

// api_check.cpp
/// POST /api/v1/check: one deployment in, findings out (as `kb check --format json`).
void check(const Ctx& c);
/// POST /api/v1/check/batch: up to ServeConfig::max_batch deployments in one request.
void check_batch(const Ctx& c);

// api_triage.cpp
/// POST /api/v1/triage: a log in, the gotchas whose signatures match its lines out.
void triage(const Ctx& c);

// api_misc.cpp
/// GET /api/v1: what this API offers, for discovery.
void api_index(const Ctx& c);
/// GET /api/v1/openapi.json: the OpenAPI 3.1 document (openapi.h).
void openapi(const Ctx& c);
/// GET /api/v1/diagnostics: what `kb lint --format json` would say of the files now.
void diagnostics(const Ctx& c);
/// GET /api/v1/changes?since=: records added, changed or deleted since a time.
void changes(const Ctx& c);
/// GET /api/v1/export: the whole knowledge base as one JSON document.
void export_all(const Ctx& c);
/// GET /healthz: liveness and the snapshot being served.
void healthz(const Ctx& c);
/// GET /metrics: Prometheus text.
void metrics(const Ctx& c);

// api_schemas.cpp
/// GET /api/v1/schemas: the JSON Schema of every record namespace, by name and URL.
void list_schemas(const Ctx& c);
/// GET /api/v1/schemas/{namespace}.schema.json: one namespace's JSON Schema.
void get_schema(const Ctx& c);

// api_json.cpp
/// "/api/v1/gotchas/x" for record "gotchas/x".
std::string api_url(std::string_view id);
/// {"id", "type", "title", "url"} of a record, for lists and links.
nlohmann::json record_link(const Record& r);
/// A gotcha in a list: id, title, severity, status, kind, family, engines, evidence
/// state and summary line, updated, stale, url.
nlohmann::json gotcha_summary(const Snapshot& snap, const Record& r);
/// A record in full: kb::json::record plus `url`, `referenced_by` (with the fields that
/// reference it) and, per type, `related_by`, `gotchas`, `results`.
nlohmann::json record_detail(const Snapshot& snap, const Record& r);
/// Adds a record's "published" and "modified" (kb/record_dates.h) to `j`.
void put_dates(const Snapshot& snap, const Record& r, nlohmann::json& j);
/// The resolver's best candidates for a missing id in namespace `kind`, as JSON.
nlohmann::json candidates_json(const Snapshot& snap, Kind kind, std::string_view raw);

}  // namespace kb::http
