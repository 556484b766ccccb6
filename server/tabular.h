#pragma once

// Lists as CSV and NDJSON besides JSON: the format a request asks for (`?format=` or a
// `.csv` / `.ndjson` / `.json` suffix on the path), and the rows streamed from batches of
// the same JSON items the JSON answer holds, so the three always agree.

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "routes.h"

namespace kb::http {

/// How a list is answered.
enum class Format { json, csv, ndjson };

/// The values `?format=` takes, for the route table.
inline const std::vector<std::string_view> kFormats = {"json", "csv", "ndjson"};

/// The format `c` asks for: the path's suffix (the route's last capture) or `?format=`;
/// both, disagreeing, is a 400.
Format output_format(const Ctx& c);

/// A CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a
/// quote, CR or LF, or starts or ends with a space.
std::string csv_field(std::string_view s);

/// A JSON value as one CSV cell: text as is, numbers and booleans as JSON writes them,
/// null as empty, a list as its items' cells joined with `;`, an object as JSON.
std::string csv_cell(const nlohmann::json& v);

/// The value of `column` in `item`: a key, or `a.b` for key b of object a; null if absent.
const nlohmann::json& column_value(const nlohmann::json& item, std::string_view column);

/// Fills `batch` with the next items; returns false when there are none left (a last,
/// possibly non-empty, batch is still written).
using NextBatch = std::function<bool(std::vector<nlohmann::json>& batch)>;

/// Streams items as CSV (a header of `columns`, then one row per item, CRLF line ends) or
/// NDJSON (each item with "schema_version", one a line). `first` holds the items read
/// before answering (so a bad request fails before the first byte); `next` the rest.
void send_rows(const Ctx& c, Format format, const std::vector<std::string_view>& columns,
               std::vector<nlohmann::json> first, NextBatch next);

}  // namespace kb::http
