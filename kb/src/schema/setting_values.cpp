#include "schema/setting_values.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "core/text_util.h"

namespace kb {
namespace {

// Enum values compare case-insensitively and with '-' and '_' as the same character.
std::string fold(std::string_view s) {
  std::string out = text::lower(text::trim(s));
  for (char& c : out) {
    if (c == '_') c = '-';
  }
  return out;
}

Parsed<std::string> fail(std::string message, std::size_t offset) {
  return {std::nullopt, {std::move(message), offset}};
}

Parsed<std::string> ok(std::string value) {
  return {std::move(value), {}};
}

std::optional<double> to_number(std::string_view s) {
  std::string t(text::trim(s));
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  double d = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  return d;
}

}  // namespace

const std::vector<std::pair<std::string_view, std::string_view>>& bool_spellings() {
  static const std::vector<std::pair<std::string_view, std::string_view>> kSpellings{
      {"true", "true"},     {"yes", "true"},    {"on", "true"}, {"1", "true"},
      {"enabled", "true"},  {"enable", "true"}, {"y", "true"},  {"false", "false"},
      {"no", "false"},      {"off", "false"},   {"0", "false"}, {"disabled", "false"},
      {"disable", "false"}, {"n", "false"}};
  return kSpellings;
}

Parsed<std::string> normalize_value(const SettingDef& def, std::string_view raw) {
  const std::string_view t = text::trim(raw);
  const std::size_t at = t.empty() ? 0 : static_cast<std::size_t>(t.data() - raw.data());
  if (def.type == setting_type::kBool) {
    const std::string v = text::lower(t);
    for (const auto& [spelling, meaning] : bool_spellings()) {
      if (v == spelling) return ok(std::string(meaning));
    }
    return fail("'" + std::string(t) + "' is not a boolean (true/false, yes/no, on/off, 1/0)", at);
  }
  if (def.type == setting_type::kInteger) {
    std::string_view s = t;
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
      negative = s[0] == '-';
      s.remove_prefix(1);
    }
    long long n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
      return fail("'" + std::string(t) + "' is not a whole number", at);
    }
    return ok(std::to_string(negative ? -n : n));
  }
  if (def.type == setting_type::kNumber) {
    auto d = to_number(t);
    if (!d) return fail("'" + std::string(t) + "' is not a number", at);
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, *d);
    return ok(ec == std::errc() ? std::string(buf, p) : std::string(t));
  }
  if (def.type == setting_type::kEnum) {
    const std::string key = fold(t);
    for (const auto& v : def.values) {
      if (fold(v.value) == key) return ok(v.value);
      for (const auto& s : v.synonyms) {
        if (fold(s) == key) return ok(v.value);
      }
    }
    // A synonym with `*` is a pattern (`NVIDIA-H100*`), tried after every exact spelling.
    for (const auto& v : def.values) {
      for (const auto& s : v.synonyms) {
        if (s.find('*') != std::string::npos && glob_match(fold(s), key)) return ok(v.value);
      }
    }
    std::string list;
    for (const auto& v : def.values) list += (list.empty() ? "" : ", ") + v.value;
    return fail("'" + std::string(t) + "' is not one of " + list, at);
  }
  if (def.type == setting_type::kVersion) {
    if (auto v = Version::parse_or_error(t); !v.value) {
      return fail(v.error.message, at + v.error.offset);
    }
    std::string s(t);
    if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.erase(0, 1);
    return ok(std::move(s));
  }
  if (t.empty()) return fail("empty value", at);
  return ok(std::string(t));
}

bool ordered_type(const SettingDef& def) {
  return def.type == setting_type::kInteger || def.type == setting_type::kNumber ||
         def.type == setting_type::kVersion;
}

bool compare_values(const SettingDef& def, std::string_view a, std::string_view op,
                    std::string_view b) {
  int c = 0;
  if (def.type == setting_type::kInteger || def.type == setting_type::kNumber) {
    auto x = to_number(a), y = to_number(b);
    if (!x || !y) return false;
    c = *x < *y ? -1 : *x > *y ? 1 : 0;
  } else if (def.type == setting_type::kVersion) {
    auto x = Version::parse(a), y = Version::parse(b);
    if (!x || !y) return false;
    c = x->compare(*y);
  } else {
    if (op == "eq") return a == b;
    if (op == "ne") return a != b;
    return false;  // strings, enums and booleans are not ordered
  }
  if (op == "eq") return c == 0;
  if (op == "ne") return c != 0;
  if (op == "gt") return c > 0;
  if (op == "gte") return c >= 0;
  if (op == "lt") return c < 0;
  if (op == "lte") return c <= 0;
  return false;
}

bool glob_match(std::string_view glob, std::string_view text) {
  // Iterative matcher with one backtrack point: linear in practice, no recursion.
  std::size_t g = 0, t = 0, star = std::string_view::npos, mark = 0;
  auto eq = [](char a, char b) {
    auto low = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return low(a) == low(b);
  };
  while (t < text.size()) {
    if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = t;
    } else if (g < glob.size() && eq(glob[g], text[t])) {
      ++g;
      ++t;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

}  // namespace kb
