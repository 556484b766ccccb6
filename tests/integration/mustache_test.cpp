// The pages' Mustache renderer against kainjow's mustache.hpp, which the pages used
// before: the same bytes for every template and data of a random family built from the
// tags, whitespace and values whose handling differs (standalone section lines,
// inverted sections over false and empty lists, dotted names, {{.}}, escaping).

#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <stdexcept>

#include "kainjow_data.h"
#include "markdown.h"
#include "mustache.h"

using kb::pages::Data;
using kb::pages::List;
using kb::pages::Template;

namespace {

// kainjow's page, or nullopt when it refuses the template.
std::optional<std::string> kainjow_render(const std::string& text, const Data& data) {
  kainjow::mustache::mustache tmpl(text);
  if (!tmpl.is_valid()) return std::nullopt;
  tmpl.set_custom_escape([](const std::string& s) { return kb::pages::escape_html(s); });
  return tmpl.render(kb::test::to_kainjow(data));
}

const char* const kNames[] = {"a", "b", "c", "list", "flag"};

std::string random_name(std::mt19937& rng) {
  switch (rng() % 8) {
    case 0:
      return ".";
    case 1:
      return std::string(kNames[rng() % 5]) + "." + kNames[rng() % 5];
    default:
      return kNames[rng() % 5];
  }
}

// A template of `depth` nested sections at most, always well formed.
std::string random_template(std::mt19937& rng, int depth) {
  static const char* const kText[] = {"x",   " ",  "  ", "\t",    "\n",   "\r\n", "\r",
                                      "<&>", "{ ", " }", "text ", "\n  ", "  \n"};
  std::string out;
  const int parts = 1 + static_cast<int>(rng() % 8);
  for (int i = 0; i < parts; ++i) {
    switch (rng() % 9) {
      case 0:
      case 1:
        // A bare brace next to a tag makes a triple-brace tag or an unclosed one.
        if (rng() % 16 == 0) {
          out += rng() % 2 ? "{" : "}";
          break;
        }
        [[fallthrough]];
      case 2:
        out += kText[rng() % (sizeof kText / sizeof *kText)];
        break;
      case 3:
        out += "{{" + random_name(rng) + "}}";
        break;
      case 4:
        out += (rng() % 2 ? "{{{" + random_name(rng) + "}}}" : "{{& " + random_name(rng) + "}}");
        break;
      case 5:
        out += "{{! a comment }}";
        break;
      default: {
        if (depth >= 3) break;
        const std::string name = random_name(rng);
        const char* open = rng() % 3 == 0 ? "{{^" : "{{#";
        const char* pad = rng() % 2 ? "\n" : "";
        out += std::string(open) + " " + name + " }}" + pad + random_template(rng, depth + 1) +
               "{{/" + name + "}}" + (rng() % 2 ? "\n" : "");
      }
    }
  }
  return out;
}

Data random_view_data(std::mt19937& rng, int depth) {
  switch (rng() % (depth >= 3 ? 4 : 6)) {
    case 0:
      return Data(std::string(rng() % 2 ? "v<'\"&>" : ""));
    case 1:
      return Data(std::string("value ") + std::to_string(rng() % 10));
    case 2:
      return Data(rng() % 2 == 0);
    case 3:
      return Data(List{});
    case 4: {
      List items;
      for (int i = 1 + static_cast<int>(rng() % 3); i > 0; --i)
        items.push_back(random_view_data(rng, depth + 1));
      return Data(std::move(items));
    }
    default: {
      Data d;
      for (int i = static_cast<int>(rng() % 5); i > 0; --i)
        d.set(kNames[rng() % 5], random_view_data(rng, depth + 1));
      return d;
    }
  }
}

}  // namespace

TEST_CASE("the renderer writes what kainjow writes, on random templates and data", "[pages]") {
  std::mt19937 rng(7);
  int refused = 0;
  for (int i = 0; i < 4000; ++i) {
    const std::string text = random_template(rng, 0);
    Data data;
    for (const char* name : kNames) {
      if (rng() % 4 != 0) data.set(name, random_view_data(rng, 0));
    }
    INFO("template: " << text);
    const auto expected = kainjow_render(text, data);
    if (!expected) {
      // Braces of the text next to tags make some templates unclosed; refused alike.
      CHECK_THROWS_AS(Template(text), std::invalid_argument);
      ++refused;
      continue;
    }
    REQUIRE(Template(text).render(data) == *expected);
  }
  CHECK(refused < 800);  // most templates are valid, so most cases compare pages
  CHECK(refused > 0);    // and refusals are compared too
}

TEST_CASE("the renderer's data: set replaces, objects only, values move", "[pages]") {
  Data d;
  d.set("a", "1");
  d.set("b", true);
  d.set("a", "2");
  REQUIRE(d.members().size() == 2);
  CHECK(d.get("a")->string_value() == "2");
  CHECK(d.get("b")->is_true());
  CHECK(d.get("c") == nullptr);
  Data text("x");
  text.set("a", "1");
  CHECK(text.get("a") == nullptr);
  CHECK(Data(List{}).is_empty_list());
  CHECK(Template("{{#a}}[{{.}}]{{/a}}{{^c}}none{{/c}}").render(d) == "[2]none");
}

TEST_CASE("templates kainjow refuses are refused, with its message", "[pages]") {
  for (const char* bad : {"{{x", "{{#a}}", "{{/a}}", "{{#a}}{{/b}}", "{{{x}}", "{{=<% %>=}}"}) {
    INFO(bad);
    CHECK_THROWS_AS(Template(bad), std::invalid_argument);
  }
  CHECK_THROWS_WITH(Template("ab{{x"), "Unclosed tag at 2");
  CHECK_THROWS_WITH(Template("{{/a}}"), "Unopened section \"a\" at 0");
  CHECK_THROWS_WITH(Template("x{{#a}}"), "Unclosed section \"a\" at 1");
}
