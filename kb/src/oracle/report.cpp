// A run's outcomes as a result record (counts, failures, notes) and as a JUnit report.

#include <pugixml.hpp>

#include <sstream>

#include "kb/oracle.h"
#include "kb/text.h"

namespace kb::oracle {
namespace {

// Errors listed one by one in the notes; the rest are counted.
constexpr std::size_t kMaxNotedErrors = 20;

std::string subject_text(const Subject& s) {
  std::string out;
  for (const auto& e : s.engines) {
    if (!out.empty()) out += " + ";
    out += e.raw;
    if (!e.versions.empty()) out += " " + e.versions;
  }
  return out.empty() ? "an unidentified server" : out;
}

std::string count_of(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string notes(const RunnerSpec& spec, const RunReport& report, const ResultContext& ctx) {
  std::string n = "Measured by `kb oracle run` (" + spec.describe() + ") on " +
                  count_of(ctx.prompt_count, "prompt", "prompts") + " from " + ctx.prompts_from +
                  ".\n";
  for (const auto& line : ctx.observations) n += line + "\n";
  std::size_t failed = 0;
  std::vector<const Outcome*> errors;
  for (const auto& o : report.outcomes) {
    if (o.verdict == Verdict::failed) ++failed;
    if (o.verdict == Verdict::error) errors.push_back(&o);
  }
  if (failed > kMaxRecordedFailures) {
    n += "Failures: the first " + std::to_string(kMaxRecordedFailures) + " are listed, " +
         std::to_string(failed - kMaxRecordedFailures) + " more were counted.\n";
  }
  if (!errors.empty()) {
    n += "Errors (neither passed nor failed):\n";
    for (std::size_t i = 0; i < errors.size() && i < kMaxNotedErrors; ++i) {
      n += "- " + case_name(*errors[i], spec.trials) + ": " + errors[i]->message + "\n";
    }
    if (errors.size() > kMaxNotedErrors) {
      n += "- and " + std::to_string(errors.size() - kMaxNotedErrors) + " more\n";
    }
  }
  if (report.incomplete) {
    n += "Interrupted: " +
         count_of(static_cast<std::size_t>(report.tally.skipped), "comparison", "comparisons") +
         " of " + std::to_string(report.outcomes.size()) + " not run (counted as skipped).\n";
  }
  // Control characters other than line breaks would force the notes out of a block scalar.
  for (char& c : n) {
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n') c = ' ';
  }
  return n;
}

}  // namespace

std::string case_name(const Outcome& o, int trials) {
  std::string name = "prompt " + std::to_string(o.prompt);
  if (trials > 1) name += ", trial " + std::to_string(o.trial);
  return name;
}

ResultSpec result_spec(const RunnerSpec& spec, const RunReport& report, const ResultContext& ctx) {
  ResultSpec r;
  r.oracle = ctx.oracle;
  r.date = ctx.date;
  r.subject = ctx.subject;
  r.evidence_for = ctx.evidence_for;
  r.title = (ctx.oracle_title.empty() ? ctx.oracle : ctx.oracle_title) + " on " +
            subject_text(ctx.subject) +
            (ctx.subject.model.empty() ? std::string() : ", model " + ctx.subject.model);
  r.counts.passed = report.tally.passed;
  r.counts.failed = report.tally.failed;
  r.counts.errors = report.tally.errors;
  r.counts.skipped = report.tally.skipped;
  for (const auto& o : report.outcomes) {
    if (o.verdict == Verdict::failed && r.failures.size() < kMaxRecordedFailures) {
      r.failures.push_back(o.failure);
    }
  }
  r.incomplete = report.incomplete;
  r.notes = notes(spec, report, ctx);
  if (!ctx.id.empty()) {
    r.id = ctx.id;
  } else {
    r.id = default_result_id(r);
    if (!ctx.time.empty()) r.id += "-" + ctx.time;
  }
  return r;
}

namespace {

void junit_suite(pugi::xml_node suites, const SuiteRun& run) {
  const RunnerSpec& spec = *run.spec;
  const RunReport& report = *run.report;
  const ResultSpec& result = *run.result;
  auto suite = suites.append_child("testsuite");
  suite.append_attribute("name") = result.oracle.c_str();
  suite.append_attribute("tests") = static_cast<long long>(report.outcomes.size());
  suite.append_attribute("failures") = static_cast<long long>(report.tally.failed);
  suite.append_attribute("errors") = static_cast<long long>(report.tally.errors);
  suite.append_attribute("skipped") = static_cast<long long>(report.tally.skipped);
  suite.append_attribute("timestamp") = result.date.c_str();
  auto props = suite.append_child("properties");
  auto prop = [&](const char* name, const std::string& value) {
    if (value.empty()) return;
    auto p = props.append_child("property");
    p.append_attribute("name") = name;
    p.append_attribute("value") = value.c_str();
  };
  prop("result", result.id);
  prop("subject", subject_text(result.subject));
  prop("model", result.subject.model);
  prop("runner", spec.describe());
  const std::string classname(text::id_slug(result.oracle));
  for (const auto& o : report.outcomes) {
    auto tc = suite.append_child("testcase");
    tc.append_attribute("classname") = classname.c_str();
    tc.append_attribute("name") = case_name(o, spec.trials).c_str();
    switch (o.verdict) {
      case Verdict::passed:
        break;
      case Verdict::failed: {
        auto f = tc.append_child("failure");
        f.append_attribute("type") = "divergence";
        f.append_attribute("message") = o.message.c_str();
        const std::string body = "expected: " + o.failure.expected + "\ngot:      " + o.failure.got;
        f.append_child(pugi::node_pcdata).set_value(body.c_str());
        break;
      }
      case Verdict::error:
        tc.append_child("error").append_attribute("message") = o.message.c_str();
        break;
      case Verdict::skipped:
        tc.append_child("skipped").append_attribute("message") = o.message.c_str();
        break;
    }
  }
}

}  // namespace

std::string junit_report(const std::vector<SuiteRun>& runs) {
  pugi::xml_document doc;
  auto decl = doc.append_child(pugi::node_declaration);
  decl.append_attribute("version") = "1.0";
  decl.append_attribute("encoding") = "UTF-8";
  auto suites = doc.append_child("testsuites");
  suites.append_attribute("name") = "kb oracle run";
  Tally sum;
  std::size_t tests = 0;
  for (const auto& run : runs) {
    tests += run.report->outcomes.size();
    sum.failed += run.report->tally.failed;
    sum.errors += run.report->tally.errors;
    sum.skipped += run.report->tally.skipped;
  }
  suites.append_attribute("tests") = static_cast<long long>(tests);
  suites.append_attribute("failures") = static_cast<long long>(sum.failed);
  suites.append_attribute("errors") = static_cast<long long>(sum.errors);
  suites.append_attribute("skipped") = static_cast<long long>(sum.skipped);
  for (const auto& run : runs) junit_suite(suites, run);
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_default, pugi::encoding_utf8);
  return out.str();
}

}  // namespace kb::oracle
