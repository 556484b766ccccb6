#include "json_dump.h"

#include <cstdio>
#include <string_view>

namespace kb::json {

namespace {

using nlohmann::json;

// Thrown inside, to hand the document to nlohmann, whose exception is the one to give.
struct NotUtf8 {};

// The length of the well-formed UTF-8 sequence at `p` (RFC 3629, as nlohmann's decoder
// accepts it: no overlong forms, no surrogates, nothing past U+10FFFF), or 0.
std::size_t sequence_length(const unsigned char* p, std::size_t n) {
  const unsigned char c = p[0];
  auto cont = [&](std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return i < n && p[i] >= lo && p[i] <= hi;
  };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

// nlohmann's escaping with ensure_ascii off: the two-character escapes it knows, \u00xx
// (lower-case hex) for the other control characters, everything else as it is.
void put_string(std::string_view s, std::string& out) {
  out += '"';
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t run = 0;  // start of the text not yet copied
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c >= 0x80) {
      const std::size_t len = sequence_length(p + i, n - i);
      if (len == 0) throw NotUtf8{};
      i += len;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(s.data() + run, i - run);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
        out += buf;
      }
    }
    run = ++i;
  }
  out.append(s.data() + run, n - run);
  out += '"';
}

void put(const json& j, std::string& out, std::size_t indent) {
  switch (j.type()) {
    case json::value_t::object: {
      const auto& members = j.get_ref<const json::object_t&>();
      if (members.empty()) {
        out += "{}";
        return;
      }
      out += "{\n";
      std::size_t left = members.size();
      for (const auto& [key, value] : members) {
        out.append(indent + 2, ' ');
        put_string(key, out);
        out += ": ";
        put(value, out, indent + 2);
        out += --left > 0 ? ",\n" : "\n";
      }
      out.append(indent, ' ');
      out += '}';
      return;
    }
    case json::value_t::array: {
      const auto& items = j.get_ref<const json::array_t&>();
      if (items.empty()) {
        out += "[]";
        return;
      }
      out += "[\n";
      std::size_t left = items.size();
      for (const auto& item : items) {
        out.append(indent + 2, ' ');
        put(item, out, indent + 2);
        out += --left > 0 ? ",\n" : "\n";
      }
      out.append(indent, ' ');
      out += ']';
      return;
    }
    case json::value_t::string:
      put_string(j.get_ref<const std::string&>(), out);
      return;
    case json::value_t::boolean:
      out += j.get<bool>() ? "true" : "false";
      return;
    case json::value_t::null:
      out += "null";
      return;
    case json::value_t::number_integer:
      out += std::to_string(j.get<std::int64_t>());
      return;
    case json::value_t::number_unsigned:
      out += std::to_string(j.get<std::uint64_t>());
      return;
    default:
      out += j.dump();
      return;  // floats, binary: nlohmann's own text
  }
}

}  // namespace

std::string dump_pretty(const json& j) {
  std::string out;
  try {
    put(j, out, 0);
  } catch (const NotUtf8&) {
    return j.dump(2);  // throws nlohmann's type_error, naming the byte
  }
  return out;
}

}  // namespace kb::json
