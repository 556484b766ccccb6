#pragma once

// Pretty-printed JSON, faster than nlohmann's dump(2) and byte for byte the same.

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kb::json {

/// `j.dump(2)`: the same bytes, or the same exception (type_error 316 on a string that
/// is not UTF-8). nlohmann's serializer runs every byte of every string through a UTF-8
/// decoder and a switch; this copies runs of plain text whole. `kb site` writes a JSON
/// file per record, most of it Markdown bodies.
std::string dump_pretty(const nlohmann::json& j);

/// Appends `s` as a JSON string, quotes included, as nlohmann's dump(-1, ' ', true,
/// error_handler_t::replace) writes it: ASCII only (\uXXXX, surrogate pairs past U+FFFF),
/// and a string that is not UTF-8 with U+FFFD where nlohmann puts it.
void append_ascii_string(std::string& out, std::string_view s);

/// Appends `s` as a JSON string, quotes included, as nlohmann's dump(-1, ' ', false,
/// error_handler_t::replace) writes it (the API's answers): UTF-8 as it is, and a string
/// that is not UTF-8 with U+FFFD where nlohmann puts it.
void append_string(std::string& out, std::string_view s);

}  // namespace kb::json
