#include <catch2/catch.hpp>

#include "cli_support.h"

using namespace kb_test;

TEST_CASE("kb site keeps what it did not write and refuses to overwrite it", "[cli][site]") {
  auto dir = scratch("site");
  const fs::path out = dir / "site";
  spit(out / "CNAME", "kb.example.org\n");
  spit(out / "index.html", "my page");
  const std::string args = "site --today 2026-10-05 --records '" +
                           (fs::path(KB_TEST_DATA) / "serve/records").string() + "' --out '" +
                           out.string() + "'";
  auto refused = kb(dir, args);
  CHECK(refused.code == 2);
  CHECK(refused.err == "kb: error: kb site did not write " + (out / "index.html").string() +
                           "; refusing to overwrite (pass --force to replace it)\n");
  CHECK(slurp(out / "index.html") == "my page");
  CHECK_FALSE(fs::exists(out / ".kb-site"));

  auto forced = kb(dir, args + " --force");
  CHECK(forced.code == 0);
  CHECK(slurp(out / "index.html") != "my page");
  CHECK(slurp(out / "CNAME") == "kb.example.org\n");
  auto again = kb(dir, args);
  CHECK(again.code == 0);
  CHECK(slurp(out / "CNAME") == "kb.example.org\n");
  fs::remove_all(dir);
}
