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

void put_u(std::string& out, unsigned codepoint) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u%04x", codepoint);
  out += buf;
}

// The code point of the well-formed sequence of `len` bytes at `p`.
unsigned decode(const unsigned char* p, std::size_t len) {
  unsigned cp = len == 2 ? p[0] & 0x1Fu : len == 3 ? p[0] & 0x0Fu : p[0] & 0x07u;
  for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (p[k] & 0x3Fu);
  return cp;
}

// nlohmann's escaping: the two-character escapes it knows, \u00xx (lower-case hex) for
// the other control characters; with `ascii`, DEL and every code point past it as \uxxxx
// (a surrogate pair past U+FFFF), else everything else as it is.
void put_string(std::string_view s, std::string& out, bool ascii = false) {
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
      if (ascii) {
        out.append(s.data() + run, i - run);
        const unsigned cp = decode(p + i, len);
        if (cp <= 0xFFFF) {
          put_u(out, cp);
        } else {
          put_u(out, 0xD7C0 + (cp >> 10));
          put_u(out, 0xDC00 + (cp & 0x3FF));
        }
        run = i + len;
      }
      i += len;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\' && !(ascii && c == 0x7F)) {
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
      default:
        put_u(out, c);
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

void append_ascii_string(std::string& out, std::string_view s) {
  const std::size_t size = out.size();
  try {
    put_string(s, out, true);
  } catch (const NotUtf8&) {
    out.resize(size);
    out += json(std::string(s)).dump(-1, ' ', true, json::error_handler_t::replace);
  }
}

void append_string(std::string& out, std::string_view s) {
  const std::size_t size = out.size();
  try {
    put_string(s, out);
  } catch (const NotUtf8&) {
    out.resize(size);
    out += json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
  }
}

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
