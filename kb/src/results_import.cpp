#include "kb/results_import.h"

#include <pugixml.hpp>

#include <cctype>
#include <charconv>
#include <initializer_list>
#include <string>

#include "evidence_internal.h"
#include "yaml_tree.h"

namespace kb {
namespace {

using evidence_detail::offset_to_pos;

constexpr std::size_t kMaxFailingNames = 1000;

Diagnostic report_diag(Severity sev, std::string code, const std::string& file, Pos pos,
                       std::string message, std::string hint = {}) {
  Diagnostic d;
  d.severity = sev;
  d.code = std::move(code);
  d.file = file;
  d.line = pos.line;
  d.column = pos.column;
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

void note_failing(TestCounts& c, std::string name) {
  if (c.failing.size() < kMaxFailingNames) c.failing.push_back(std::move(name));
}

void finish(ReportParse& out, const std::string& file) {
  const TestCounts& c = *out.counts;
  if (c.total() == 0) {
    out.diagnostics.push_back(report_diag(Severity::error, "results.empty", file, Pos{},
                                          "the report holds no test results",
                                          "was the test run collected at all?"));
    out.counts.reset();
  } else if (c.passed + c.failed == 0) {
    out.diagnostics.push_back(report_diag(
        Severity::warning, "results.inconclusive", file, Pos{},
        "no test case passed or failed (" + std::to_string(c.errors) + " errors, " +
            std::to_string(c.skipped) + " skipped): the result is neither evidence nor control"));
  }
  sort_diagnostics(out.diagnostics);
}

// ---- JUnit XML ---------------------------------------------------------------------

class JunitReader {
 public:
  JunitReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  ReportParse read() {
    ReportParse out;
    out.format = ReportFormat::junit;
    pugi::xml_document doc;
    auto parsed =
        doc.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed) {
      out.diagnostics.push_back(
          report_diag(Severity::error, "results.malformed", file_,
                      offset_to_pos(text_, static_cast<std::size_t>(parsed.offset)),
                      std::string("malformed XML: ") + parsed.description()));
      return out;
    }
    pugi::xml_node root = doc.document_element();
    const std::string name = root.name();
    if (name != "testsuites" && name != "testsuite") {
      out.diagnostics.push_back(
          report_diag(Severity::error, "results.bad-shape", file_, pos(root),
                      "root element is <" + name + ">, not <testsuites> or <testsuite>",
                      "is this a JUnit XML report?"));
      return out;
    }
    TestCounts counts;
    count(root, counts, out.diagnostics);
    out.counts = std::move(counts);
    finish(out, file_);
    return out;
  }

 private:
  Pos pos(const pugi::xml_node& node) const {
    // pugixml points at an element's name; the element starts at its '<'.
    auto at = node.offset_debug();
    if (at < 0) return Pos{};
    if (at > 0 && static_cast<std::size_t>(at) <= text_.size() && text_[at - 1] == '<') --at;
    return offset_to_pos(text_, static_cast<std::size_t>(at));
  }

  // Counts the cases under `node` into `total`, then holds the node's attributes to them.
  void count(const pugi::xml_node& node, TestCounts& total, std::vector<Diagnostic>& diags) {
    TestCounts mine;
    for (pugi::xml_node child : node.children()) {
      const std::string_view kind = child.name();
      if (kind == "testsuite") {
        count(child, mine, diags);
      } else if (kind == "testcase") {
        add_case(child, mine);
      }
    }
    cross_check(node, mine, diags);
    total.passed += mine.passed;
    total.failed += mine.failed;
    total.errors += mine.errors;
    total.skipped += mine.skipped;
    for (auto& n : mine.failing) note_failing(total, std::move(n));
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
        Severity::warning, "results.count-mismatch", file_, pos(node),
        label + " says " + said + " but its test cases give " + found + "; using the test cases"));
  }

  std::string_view text_;
  const std::string& file_;
};

// ---- JSON summary (read with the YAML tree: JSON is YAML) ---------------------------

class JsonReader {
 public:
  explicit JsonReader(const std::string& file) : file_(file) {}

  ReportParse read(std::string_view text) {
    ReportParse out;
    out.format = ReportFormat::json;
    yaml::Node root;
    if (!yaml::parse(text, file_, yaml::Limits{}, root, out.diagnostics)) return out;
    TestCounts counts;
    bool ok = false;
    if (root.is_seq()) {
      ok = read_cases(root, counts, out.diagnostics);
    } else if (root.is_map()) {
      ok = read_map(root, counts, out.diagnostics);
    } else {
      out.diagnostics.push_back(
          shape(root, "expected an object or a list, found " + std::string(yaml::type_name(root))));
    }
    if (ok) {
      out.counts = std::move(counts);
      finish(out, file_);
    }
    sort_diagnostics(out.diagnostics);
    return out;
  }

 private:
  Diagnostic shape(const yaml::Node& n, std::string message) const {
    return report_diag(Severity::error, "results.bad-shape", file_, n.pos, std::move(message),
                       "expected {\"passed\": N, \"failed\": M, \"errors\": E, \"skipped\": S} "
                       "or [{\"name\": ..., \"outcome\": \"passed\"}, ...]");
  }

  // The count a map gives for one outcome under any of its spellings; -1 when absent.
  std::int64_t number(const yaml::Node& map, std::initializer_list<const char*> keys,
                      std::vector<Diagnostic>& diags, bool& ok) const {
    for (const char* key : keys) {
      const yaml::Node* n = map.find(key);
      if (n == nullptr) continue;
      std::int64_t value = -1;
      if (n->is_scalar()) {
        auto [end, ec] = std::from_chars(n->value.data(), n->value.data() + n->value.size(), value);
        if (ec != std::errc() || end != n->value.data() + n->value.size()) value = -1;
      }
      if (value < 0) {
        diags.push_back(report_diag(Severity::error, "results.bad-count", file_, n->pos,
                                    std::string("'") + key + "' must be a whole number >= 0"));
        ok = false;
      }
      return value;
    }
    return -1;
  }

  bool read_map(const yaml::Node& root, TestCounts& c, std::vector<Diagnostic>& diags) {
    const yaml::Node* summary = root.find("summary");
    const yaml::Node& counts = summary != nullptr && summary->is_map() ? *summary : root;
    bool ok = true;
    const std::int64_t passed = number(counts, {"passed", "pass"}, diags, ok);
    const std::int64_t failed = number(counts, {"failed", "failures", "fail"}, diags, ok);
    const std::int64_t errors = number(counts, {"errors", "error"}, diags, ok);
    const std::int64_t skipped = number(counts, {"skipped", "skip"}, diags, ok);
    std::int64_t total = number(counts, {"total"}, diags, ok);
    const yaml::Node* tests = root.find("tests");
    if (total < 0 && tests != nullptr && tests->is_scalar())
      total = number(root, {"tests"}, diags, ok);
    if (!ok) return false;
    const bool has_counts = passed >= 0 || failed >= 0;
    if (tests != nullptr && tests->is_seq()) {
      if (!read_cases(*tests, c, diags)) return false;
      if (has_counts) compare(counts, passed, failed, errors, skipped, c, diags);
      return true;
    }
    if (!has_counts) {
      diags.push_back(shape(root, "no 'passed' or 'failed' count and no 'tests' list"));
      return false;
    }
    c.passed = std::max<std::int64_t>(passed, 0);
    c.failed = std::max<std::int64_t>(failed, 0);
    c.errors = std::max<std::int64_t>(errors, 0);
    c.skipped = std::max<std::int64_t>(skipped, 0);
    if (total >= 0 && total != c.total()) {
      diags.push_back(report_diag(Severity::warning, "results.count-mismatch", file_, counts.pos,
                                  "total is " + std::to_string(total) +
                                      " but the counts add up to " + std::to_string(c.total()) +
                                      "; using the counts"));
    }
    return true;
  }

  void compare(const yaml::Node& at, std::int64_t passed, std::int64_t failed, std::int64_t errors,
               std::int64_t skipped, const TestCounts& c, std::vector<Diagnostic>& diags) const {
    auto differs = [](std::int64_t said, std::int64_t counted) {
      return said >= 0 && said != counted;
    };
    if (differs(passed, c.passed) || differs(failed, c.failed) || differs(errors, c.errors) ||
        differs(skipped, c.skipped)) {
      diags.push_back(report_diag(
          Severity::warning, "results.count-mismatch", file_, at.pos,
          "the counts disagree with the 'tests' list (" + std::to_string(c.passed) + " passed, " +
              std::to_string(c.failed) + " failed, " + std::to_string(c.errors) + " errors, " +
              std::to_string(c.skipped) + " skipped); using the list"));
    }
  }

  bool read_cases(const yaml::Node& list, TestCounts& c, std::vector<Diagnostic>& diags) {
    bool ok = true;
    for (const auto& item : list.items) {
      const yaml::Node* outcome = item.is_map() ? item.find("outcome") : nullptr;
      if (outcome == nullptr && item.is_map()) outcome = item.find("status");
      if (outcome == nullptr || !outcome->is_scalar()) {
        diags.push_back(shape(item, "a test case needs an 'outcome'"));
        ok = false;
        continue;
      }
      std::string name;
      for (const char* key : {"name", "nodeid", "id"}) {
        const yaml::Node* n = item.find(key);
        if (n != nullptr && n->is_scalar()) {
          name = n->value;
          break;
        }
      }
      std::string o = outcome->value;
      for (char& ch : o) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (o == "passed" || o == "pass" || o == "ok" || o == "success") {
        ++c.passed;
      } else if (o == "failed" || o == "fail" || o == "failure") {
        ++c.failed;
        note_failing(c, name);
      } else if (o == "error" || o == "errored" || o == "errors") {
        ++c.errors;
        note_failing(c, name);
      } else if (o == "skipped" || o == "skip") {
        ++c.skipped;
      } else {
        diags.push_back(report_diag(Severity::error, "results.unknown-outcome", file_, outcome->pos,
                                    "unknown outcome '" + outcome->value + "'",
                                    "use passed, failed, error or skipped"));
        ok = false;
      }
    }
    return ok;
  }

  const std::string& file_;
};

}  // namespace

std::string_view to_string(ReportFormat f) {
  switch (f) {
    case ReportFormat::junit:
      return "junit";
    case ReportFormat::json:
      return "json";
    case ReportFormat::detect:
      break;
  }
  return "detect";
}

std::optional<ReportFormat> parse_report_format(std::string_view s) {
  if (s == "junit" || s == "xml") return ReportFormat::junit;
  if (s == "json") return ReportFormat::json;
  if (s == "detect" || s == "auto") return ReportFormat::detect;
  return std::nullopt;
}

ReportParse parse_junit(std::string_view text, const std::string& file) {
  return JunitReader(text, file).read();
}

ReportParse parse_json_summary(std::string_view text, const std::string& file) {
  return JsonReader(file).read(text);
}

ReportParse parse_report(std::string_view text, const std::string& file, ReportFormat format) {
  if (format == ReportFormat::detect) {
    std::string_view rest = text;
    if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.front()))) {
      rest.remove_prefix(1);
    }
    format = !rest.empty() && rest.front() == '<' ? ReportFormat::junit : ReportFormat::json;
  }
  return format == ReportFormat::junit ? parse_junit(text, file) : parse_json_summary(text, file);
}

}  // namespace kb
