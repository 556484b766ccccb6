#pragma once

// Pretty-printed JSON, faster than nlohmann's dump(2) and byte for byte the same.

#include <nlohmann/json.hpp>

#include <string>

namespace kb::json {

/// `j.dump(2)`: the same bytes, or the same exception (type_error 316 on a string that
/// is not UTF-8). nlohmann's serializer runs every byte of every string through a UTF-8
/// decoder and a switch; this copies runs of plain text whole. `kb site` writes a JSON
/// file per record, most of it Markdown bodies.
std::string dump_pretty(const nlohmann::json& j);

}  // namespace kb::json
