#include "kb/diagnostic_list.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {

kb::Diagnostic diag(kb::Severity s, std::string code, std::string file, int line, int column,
                    std::string message, std::string hint, std::string record) {
  kb::Diagnostic d;
  d.severity = s;
  d.code = std::move(code);
  d.file = std::move(file);
  d.line = line;
  d.column = column;
  d.message = std::move(message);
  d.hint = std::move(hint);
  d.record = std::move(record);
  return d;
}

bool same(const kb::Diagnostic& a, const kb::Diagnostic& b) {
  return a.severity == b.severity && a.code == b.code && a.file == b.file && a.line == b.line &&
         a.column == b.column && a.message == b.message && a.hint == b.hint && a.record == b.record;
}

}  // namespace

TEST_CASE("a packed diagnostic list gives back every field, in order", "[diagnostics]") {
  const std::vector<kb::Diagnostic> in = {
      diag(kb::Severity::error, "schema.unknown-field", "gotchas/a.yaml", 3, 5, "unknown field 'x'",
           "did you mean 'y'?", "gotchas/a"),
      diag(kb::Severity::warning, "evidence.stale", "gotchas/a.yaml", 9, 0,
           "newest verification is 2026-01-01", "", ""),
      // Empty strings stay empty; text with a NUL or non-ASCII survives byte for byte.
      diag(kb::Severity::note, "", "", 0, 0, std::string("a\0b", 3), "caf\xc3\xa9", ""),
      diag(kb::Severity::warning, "evidence.stale", "gotchas/b.yaml", 9, 0,
           "newest verification is 2026-01-01", "", "gotchas/b"),
  };
  const kb::DiagnosticList list(in);
  REQUIRE(list.size() == in.size());
  CHECK_FALSE(list.empty());
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO(i);
    CHECK(same(list[i], in[i]));
  }
  std::size_t n = 0;
  for (const auto& d : list) CHECK(same(d, in[n++]));
  CHECK(n == in.size());
  const std::vector<kb::Diagnostic> back(list.begin(), list.end());
  REQUIRE(back.size() == in.size());
  CHECK(same(back[2], in[2]));
  CHECK(back[2].message.size() == 3);
  CHECK(list.count(kb::Severity::error) == 1);
  CHECK(list.count(kb::Severity::warning) == 2);
  CHECK(kb::count_severity(list, kb::Severity::note) == 1);
  CHECK_THROWS(list[in.size()]);
}

TEST_CASE("an empty diagnostic list", "[diagnostics]") {
  const kb::DiagnosticList list;
  CHECK(list.empty());
  CHECK(list.begin() == list.end());
  CHECK(list.count(kb::Severity::error) == 0);
  kb::DiagnosticList::Builder b;
  CHECK(b.finish().empty());
}

TEST_CASE("repeated text is held once", "[diagnostics][memory]") {
  // What a tree whose verifications went stale looks like: one warning per record, the
  // same code and hint, a message per verification date.
  const std::string hint = "re-check the references and update their as_of, or add a newer result";
  std::vector<kb::Diagnostic> in;
  std::size_t unpacked_text = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = "gotchas/generated-record-" + std::to_string(i);
    in.push_back(diag(kb::Severity::warning, "evidence.stale", id + ".yaml", 40, 3,
                      "newest verification is 2026-0" + std::to_string(1 + i % 9) +
                          "-01, 200 days before 2026-12-01 (limit 90 days)",
                      hint, id));
    const auto& d = in.back();
    unpacked_text +=
        d.code.size() + d.file.size() + d.message.size() + d.hint.size() + d.record.size();
  }
  kb::DiagnosticList::Builder b;
  for (const auto& d : in) b.add(d);
  const kb::DiagnosticList list = b.finish();
  REQUIRE(list.size() == 1000);
  for (std::size_t i = 0; i < in.size(); i += 97) CHECK(same(list[i], in[i]));
  // Each record's file and id once, the code, hint and nine messages once in all: well
  // under half the text, and a fraction of 1000 Diagnostics (~176 bytes each before text).
  CHECK(list.heap_bytes() < unpacked_text / 2 + 1000 * 56);
  CHECK(list.heap_bytes() < 1000 * (sizeof(kb::Diagnostic) + 80));
}

TEST_CASE("a packed list sorts as sort_diagnostics does", "[diagnostics]") {
  std::vector<kb::Diagnostic> in = {
      diag(kb::Severity::warning, "b.code", "gotchas/b.yaml", 2, 1, "first b", "", ""),
      diag(kb::Severity::error, "a.code", "gotchas/a.yaml", 10, 1, "a line 10", "", ""),
      diag(kb::Severity::error, "a.code", "gotchas/a.yaml", 9, 4, "a line 9", "", ""),
      diag(kb::Severity::note, "b.code", "gotchas/b.yaml", 2, 1, "second b, same place", "", ""),
      diag(kb::Severity::error, "a.code", "gotchas/a.yaml", 9, 4, "a line 9 again", "", ""),
      diag(kb::Severity::error, "0.code", "gotchas/a.yaml", 9, 4, "a line 9, lower code", "", ""),
      diag(kb::Severity::error, "x", "", 0, 0, "no file", "", ""),
  };
  kb::DiagnosticList list(in);
  std::vector<std::uint32_t> order(list.size());
  for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return list.before(a, b); });
  list.reorder(order);
  kb::sort_diagnostics(in);  // stable too: ties keep the order they came in
  REQUIRE(list.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO(i);
    CHECK(same(list[i], in[i]));
  }
  CHECK(list.count(kb::Severity::error) == 5);
  CHECK_THROWS(list.reorder({0, 1}));
}
