// The Markdown inputs fuzz_markdown once crashed on (tests/data/fuzz/markdown/), replayed
// through the fuzzer's own checks and parsed as XHTML, plus the md4c 0.4.8 over-read made
// deterministic: the byte after the input is `)`, which md4c used to read as part of it.

#include <catch2/catch.hpp>

#include "../test_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../../fuzz/targets/markdown_target.h"
#include "markdown.h"

namespace fs = std::filesystem;
using kb::pages::render_markdown;

namespace {

using kb::test::read_file;

std::vector<fs::path> saved_inputs() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(KB_TEST_DATA) / "fuzz" / "markdown")) {
    if (e.is_regular_file()) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Empty when `html` parses as one XHTML fragment; otherwise the parser's complaint.
std::string xhtml_error(const std::string& html) {
  pugi::xml_document doc;
  const std::string wrapped = "<div>" + html + "</div>";
  const pugi::xml_parse_result r = doc.load_buffer(wrapped.data(), wrapped.size());
  return r ? std::string() : std::string(r.description()) + " at " + std::to_string(r.offset);
}

}  // namespace

TEST_CASE("markdown fuzz: saved inputs keep the fuzzer's invariants and parse as XHTML",
          "[pages]") {
  const auto inputs = saved_inputs();
  REQUIRE(inputs.size() >= 1);
  for (const auto& p : inputs) {
    INFO(p.filename().string());
    const std::string text = read_file(p);
    CHECK(kb::fuzz::markdown(text) == "");
    CHECK(xhtml_error(render_markdown(text)) == "");
  }
}

TEST_CASE("markdown fuzz: md4c never sees the bytes after the input", "[pages]") {
  const std::string text =
      read_file(fs::path(KB_TEST_DATA) / "fuzz" / "markdown" / "md4c-span-past-end-of-input");
  REQUIRE(text.size() == 2642);
  REQUIRE(text.substr(text.size() - 25) == "![pixel](data:image/svg+e");
  const std::string alone = render_markdown(text);
  // The same bytes as a view into a larger buffer whose next bytes close the link.
  const std::string followed = text + ")) and more text";
  const std::string in_buffer = render_markdown(std::string_view(followed).substr(0, text.size()));
  CHECK(in_buffer == alone);
  CHECK(xhtml_error(in_buffer) == "");
  CHECK(alone.find('\0') == std::string::npos);
  static constexpr std::string_view kEnd = "![pixel](data:image/svg+e</li>\n</ul>\n</li>\n</ul>\n";
  REQUIRE(alone.size() > kEnd.size());
  CHECK(alone.substr(alone.size() - kEnd.size()) == kEnd);
}

TEST_CASE("markdown fuzz: an unclosed link destination at the end of a view stays text",
          "[pages]") {
  // md4c 0.4.8 crashed on each of these when the byte after the view was the `)`.
  const std::string link = "[a](b)";
  CHECK(render_markdown(std::string_view(link).substr(0, link.size() - 1)) == "<p>[a](b</p>\n");
  CHECK(render_markdown(link) == "<p><a href=\"b\">a</a></p>\n");
  const std::string image = "![pixel](data:x)";
  CHECK(render_markdown(std::string_view(image).substr(0, image.size() - 1)) ==
        "<p>![pixel](data:x</p>\n");
  CHECK(render_markdown(image) == "<p>pixel</p>\n");
}
