// Markdown rendering and the escaping helpers pages rely on.

#include <catch2/catch.hpp>

#include "markdown.h"

using kb::pages::is_safe_link;
using kb::pages::is_web_url;
using kb::pages::render_markdown;
using kb::pages::snippet_html;

TEST_CASE("link targets: http(s), mailto and relative only, judged like a browser", "[pages]") {
  for (const char* ok : {"https://github.com/vllm-project/vllm/issues/1", "http://x", "HTTPS://X",
                         "mailto:a@b.c", "../engines/vllm", "gotchas/x.html", "#notes", "?q=a:b",
                         "/abs/path:with-colon", "javascript%3Aalert(1)"}) {
    INFO(ok);
    CHECK(is_safe_link(ok));
  }
  for (const char* bad :
       {"javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)",
        "\x01javascript:alert(1)", "java\tscript:alert(1)", "java\nscript:x", "vbscript:x",
        "data:text/html,x", "file:///etc/passwd", "ftp://x", "a:b", ":x"}) {
    INFO(bad);
    CHECK_FALSE(is_safe_link(bad));
  }
  CHECK(is_web_url("https://github.com/x"));
  CHECK_FALSE(is_web_url("https://"));
  CHECK_FALSE(is_web_url(" https://x"));
  CHECK_FALSE(is_web_url("../x"));
  CHECK_FALSE(is_web_url("mailto:a@b.c"));
}

TEST_CASE("Markdown: raw HTML is text, unsafe links keep only their text", "[pages]") {
  CHECK(render_markdown("<script>alert(1)</script>") ==
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n");
  CHECK(render_markdown("[a](javascript:alert(1)) b") == "<p>a b</p>\n");
  CHECK(render_markdown("[a](javascript&#58;alert(1))") == "<p>a</p>\n");
  CHECK(render_markdown("![i](javascript:x \"t\")") == "<p>i</p>\n");
  CHECK(render_markdown("<javascript:alert(1)>") == "<p>javascript:alert(1)</p>\n");
  CHECK(render_markdown("[a](https://x.org/a?b=1&c=2)") ==
        "<p><a href=\"https://x.org/a?b=1&amp;c=2\" rel=\"nofollow noopener "
        "noreferrer\">a</a></p>\n");
  CHECK(render_markdown("[a](../engines/vllm)") == "<p><a href=\"../engines/vllm\">a</a></p>\n");
  CHECK(render_markdown("see www.vllm.ai") ==
        "<p>see <a href=\"http://www.vllm.ai\" rel=\"nofollow noopener "
        "noreferrer\">www.vllm.ai</a></p>\n");
  CHECK(render_markdown("~~x~~").find("<del>x</del>") != std::string::npos);
  CHECK(render_markdown("| a |\n|---|\n| b |\n").find("<td>b</td>") != std::string::npos);
  CHECK(render_markdown("a\x01"
                        "b") == "<p>ab</p>\n");
  CHECK(render_markdown("line  \nbreak") == "<p>line<br />\nbreak</p>\n");
}

TEST_CASE("snippets: text escaped, markers become <mark>", "[pages]") {
  CHECK(snippet_html("a \x02<b>\x03 c") == "a <mark>&lt;b&gt;</mark> c");
  CHECK(snippet_html("\x03stray\x02open") == "stray<mark>open</mark>");
  CHECK(snippet_html("x\x02\x02y\x03\x03") == "x<mark>y</mark>");
  CHECK(snippet_html("'\"&") == "&#39;&quot;&amp;");
}
