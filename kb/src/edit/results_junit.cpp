// JUnit XML reports: counted per test case with an explicit stack, never by recursion, so
// a hostile report's depth costs heap bounded by `ReportLimits::max_depth`, not stack.

#include <pugixml.hpp>

#include <charconv>
#include <string>
#include <vector>

#include "edit/results_internal.h"
#include "evidence/evidence_internal.h"
#include "kb/diagnostic_codes.h"

namespace kb {
namespace {

using evidence_detail::offset_to_pos;
using results_detail::note_failing;
using results_detail::report_diag;

pugi::xml_node first_element(pugi::xml_node n) {
  for (n = n.first_child(); n && n.type() != pugi::node_element;) n = n.next_sibling();
  return n;
}

pugi::xml_node next_element(pugi::xml_node n) {
  for (n = n.next_sibling(); n && n.type() != pugi::node_element;) n = n.next_sibling();
  return n;
}

// The first element (document order) nested deeper than `max_depth` elements under and
// including `root`, or an empty node. Walks parent/sibling links: no stack at all.
pugi::xml_node first_too_deep(pugi::xml_node root, int max_depth) {
  pugi::xml_node n = root;
  int depth = 1;
  for (;;) {
    if (depth > max_depth) return n;
    if (pugi::xml_node child = first_element(n)) {
      n = child;
      ++depth;
      continue;
    }
    while (n != root && !next_element(n)) {
      n = n.parent();
      --depth;
    }
    if (n == root) return {};
    n = next_element(n);
  }
}

class JunitReader {
 public:
  JunitReader(std::string_view text, const std::string& file, const ReportLimits& limits)
      : text_(text), file_(file), limits_(limits) {}

  ReportParse read() {
    ReportParse out;
    out.format = ReportFormat::junit;
    if (!results_detail::size_ok(text_, file_, limits_, out)) return out;
    // pugixml parses and frees iteratively; only our own walk over the tree could recurse.
    pugi::xml_document doc;
    auto parsed =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed) {
      out.diagnostics.push_back(
          report_diag(Severity::error, diag_code("results.malformed"), file_,
                      offset_to_pos(text_, static_cast<std::size_t>(parsed.offset)),
                      std::string("malformed XML: ") + parsed.description()));
      return out;
    }
    pugi::xml_node root = doc.document_element();
    if (pugi::xml_node deep = first_too_deep(root, limits_.max_depth)) {
      out.diagnostics.push_back(report_diag(
          Severity::error, diag_code("limits.depth"), file_, pos(deep),
          "elements nested deeper than " + std::to_string(limits_.max_depth) + " levels",
          "JUnit reports nest a few suites deep; this file is probably corrupt or hostile"));
      return out;
    }
    const std::string name = root.name();
    if (name != "testsuites" && name != "testsuite") {
      out.diagnostics.push_back(
          report_diag(Severity::error, diag_code("results.bad-shape"), file_, pos(root),
                      "root element is <" + name + ">, not <testsuites> or <testsuite>",
                      "is this a JUnit XML report?"));
      return out;
    }
    out.counts = count(root, out.diagnostics);
    results_detail::finish(out, file_);
    return out;
  }

 private:
  // One suite being counted: its next child to look at and the cases counted under it.
  struct Frame {
    pugi::xml_node suite;
    pugi::xml_node next;
    TestCounts mine;
  };

  Pos pos(const pugi::xml_node& node) const {
    // pugixml points at an element's name; the element starts at its '<'.
    auto at = node.offset_debug();
    if (at < 0) return Pos{};
    if (at > 0 && static_cast<std::size_t>(at) <= text_.size() && text_[at - 1] == '<') --at;
    return offset_to_pos(text_, static_cast<std::size_t>(at));
  }

  // Counts the cases under `root`; each suite's attributes are held to the cases under
  // it once all its children are counted (the order a recursive walk would check them).
  TestCounts count(pugi::xml_node root, std::vector<Diagnostic>& diags) const {
    TestCounts total;
    std::vector<Frame> stack;
    stack.push_back({root, root.first_child(), {}});
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (pugi::xml_node child = top.next) {
        top.next = child.next_sibling();
        const std::string_view kind = child.name();
        if (kind == "testcase") {
          add_case(child, top.mine);
        } else if (kind == "testsuite") {
          stack.push_back({child, child.first_child(), {}});  // `top` is invalid from here
        }
        continue;
      }
      cross_check(top.suite, top.mine, diags);
      TestCounts done = std::move(top.mine);
      stack.pop_back();
      TestCounts& into = stack.empty() ? total : stack.back().mine;
      into.passed += done.passed;
      into.failed += done.failed;
      into.errors += done.errors;
      into.skipped += done.skipped;
      for (auto& n : done.failing) note_failing(into, std::move(n));
    }
    return total;
  }

  static void add_case(const pugi::xml_node& tc, TestCounts& c) {
    std::string name = tc.attribute("name").as_string();
    const std::string cls = tc.attribute("classname").as_string();
    if (!cls.empty()) name = cls + "." + name;
    if (tc.child("failure")) {
      ++c.failed;
      note_failing(c, std::move(name));
    } else if (tc.child("error")) {
      ++c.errors;
      note_failing(c, std::move(name));
    } else if (tc.child("skipped")) {
      ++c.skipped;
    } else {
      ++c.passed;
    }
  }

  void cross_check(const pugi::xml_node& node, const TestCounts& c,
                   std::vector<Diagnostic>& diags) const {
    struct Check {
      const char* attr;
      std::int64_t counted;
    };
    const pugi::xml_attribute skipped_attr =
        node.attribute("skipped") ? node.attribute("skipped") : node.attribute("skip");
    const Check checks[] = {{"tests", c.total()},
                            {"failures", c.failed},
                            {"errors", c.errors},
                            {skipped_attr.name(), c.skipped}};
    std::string said, found;
    for (const auto& check : checks) {
      pugi::xml_attribute a = node.attribute(check.attr);
      if (!a || *check.attr == '\0') continue;
      std::int64_t value = 0;
      const std::string_view v = a.value();
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
      if (ec != std::errc() || end != v.data() + v.size() || value == check.counted) continue;
      said += std::string(said.empty() ? "" : ", ") + check.attr + "=" + std::string(v);
      found +=
          std::string(found.empty() ? "" : ", ") + check.attr + "=" + std::to_string(check.counted);
    }
    if (said.empty()) return;
    std::string label = node.name();
    if (node.attribute("name")) label += " '" + std::string(node.attribute("name").value()) + "'";
    diags.push_back(report_diag(
        Severity::warning, diag_code("results.count-mismatch"), file_, pos(node),
        label + " says " + said + " but its test cases give " + found + "; using the test cases"));
  }

  std::string_view text_;
  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  const ReportLimits& limits_;
};

}  // namespace

ReportParse parse_junit(std::string_view text, const std::string& file,
                        const ReportLimits& limits) {
  return JunitReader(text, file, limits).read();
}

}  // namespace kb
