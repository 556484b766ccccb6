#pragma once

// The OpenAPI 3.1 document of the JSON API, generated from the route table (paths,
// methods, query parameters with their types, enums and defaults) and the response
// shapes in openapi.cpp, so it cannot drift from what the router enforces.

#include <nlohmann/json.hpp>

namespace kb::http {

/// The document served at /api/v1/openapi.json and written by `kb site`.
const nlohmann::json& openapi_document();

}  // namespace kb::http
