// The schema table (schema_table.cpp) is the one declaration of every record field; the
// loader's setters (schema_extract.cpp) and the API's record encoder (server/json.cpp) are
// held to it here, both ways. A field added to the table only would pass lint and then be
// dropped on load and never encoded: these tests fail instead, naming it.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "json.h"
#include "schema/schema_extract.h"

TEST_CASE("schema table and loader setters agree, every field both ways", "[schema]") {
  const auto drift = kb::schema::extract_drift();
  for (const auto& line : drift) UNSCOPED_INFO(line);
  CHECK(drift.empty());
}

TEST_CASE("schema table and JSON record encoder agree, every record field both ways", "[schema]") {
  const auto drift = kb::json::encode_drift();
  for (const auto& line : drift) UNSCOPED_INFO(line);
  CHECK(drift.empty());
}
