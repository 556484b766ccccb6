#pragma once

// What schema_json.cpp (the record schemas) and schema_vocabulary.cpp (the vocabulary
// schema) both use.

#include <string>
#include <string_view>

namespace kb::json::schema_detail {

/// `re` with each letter matching either case ([vV]): ECMA regexes have no inline flag.
std::string nocase(std::string_view re);

/// A PEP 440 version (with a leading v and semver's `-beta.1`), any case.
const std::string& version_re();

}  // namespace kb::json::schema_detail
