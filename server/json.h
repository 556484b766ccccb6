#pragma once

// The one place kb types become JSON, shared by the CLI and the HTTP API.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "kb/corpus.h"
#include "kb/diagnostic.h"
#include "kb/diagnostic_list.h"
#include "kb/evidence.h"
#include "kb/model.h"

namespace kb::json {

/// The version of the shape of every JSON document kb emits (API answers, CLI
/// `--format json`, SARIF run properties, NDJSON lines): MAJOR.MINOR. A minor bump adds
/// fields or values; a major bump removes, renames or retypes one (README, "Versioned
/// shapes").
inline constexpr const char* kSchemaVersion = "1.0";

/// `doc` (an object) with "schema_version" and, when `snapshot` is given, "snapshot" (the
/// knowledge base's content hash, as the API's ETag) added.
nlohmann::json versioned(nlohmann::json doc, std::string_view snapshot = {});

/// {"file","line","column","severity","code","message","hint","record"}.
nlohmann::json diagnostic(const Diagnostic& d);

/// The lint document: {"records","errors","warnings","diagnostics":[...]}.
nlohmann::json lint_report(std::size_t records, const std::vector<Diagnostic>& diags);
nlohmann::json lint_report(std::size_t records, const DiagnosticList& diags);

/// A reference as written and as resolved: {"raw","id","versions","field"}.
nlohmann::json reference(const Corpus& corpus, const RefValue& ref, Kind ns);

/// An upstream citation, with `url` filled in for GitHub issues, PRs and commits.
nlohmann::json citation(const Citation& c);

/// The GitHub URL of a citation when one can be derived, else its `url`.
std::string citation_url(const Citation& c);

/// Where the record encoder and the schema table disagree, one line each: a record field
/// of the table without an encoding (it would never reach the API), an encoding for a
/// name no record of the table has. Empty when they agree (tested).
std::vector<std::string> encode_drift();

/// One record, resolved: every field of its namespace, references with their targets,
/// the repair log, and for gotchas the evidence summary.
nlohmann::json record(const Corpus& corpus, const Record& r, const EvidenceIndex& evidence);

}  // namespace kb::json
