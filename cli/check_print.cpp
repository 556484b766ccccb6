#include "check_print.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "check_json.h"

namespace kb::cli {
namespace {

std::string place(const std::string& file, Pos p) {
  if (p.line <= 0) return file;
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

// Every service a finding hits, with its role: "p (prefill), d (decode)"; "" for a
// deployment of one service.
std::string hit_services(const Finding& f) {
  if (f.service.empty()) return {};
  std::string out;
  for (const HitService& s : f.services) {
    if (!out.empty()) out += ", ";
    out += s.name + (s.role.empty() ? "" : " (" + s.role + ")");
  }
  return out.empty() ? f.service : out;
}

// ANSI SGR codes of a severity: blocker bold red, major red, minor yellow, info cyan.
std::string_view sgr(const std::string& severity) {
  if (severity == "blocker") return "\033[1;31m";
  if (severity == "major") return "\033[31m";
  if (severity == "minor") return "\033[33m";
  if (severity == "info") return "\033[36m";
  return "\033[2m";
}

void print_finding(std::ostream& out, const Finding& f, const std::string& label,
                   const std::string& base_url, bool colour) {
  const std::string pad(label.size() < 9 ? 9 - label.size() : 1, ' ');
  if (colour) {
    out << sgr(label) << label << "\033[0m" << pad << "\033[1m" << f.id << "\033[0m"
        << (f.possible ? "  \033[2m(possible)\033[0m" : "") << "\n";
  } else {
    out << label << pad << f.id << (f.possible ? "  (possible)" : "") << "\n";
  }
  out << "         " << f.title << "\n";
  out << "         status " << f.status << ", evidence " << f.evidence << "\n";
  if (!f.service.empty()) {
    out << "         " << (f.services.size() > 1 ? "services: " : "service: ") << hit_services(f)
        << "\n";
  }
  for (std::size_t i = 0; i < f.why.size(); ++i) {
    out << (i == 0 ? "         why: " : "              ") << f.why[i] << "\n";
  }
  for (std::size_t i = 0; i < f.locations.size(); ++i) {
    out << (i == 0 ? "         at:  " : "              ")
        << place(f.locations[i].file, f.locations[i].pos) << "\n";
  }
  if (!f.workaround.empty()) out << "         do:  " << f.workaround << "\n";
  for (const auto& a : f.fixes) out << "         fix: " << a.advice << "\n";
  if (!base_url.empty()) out << "         see: " << json::gotcha_url(base_url, f.id, false) << "\n";
  if (!f.ignore_reason.empty()) {
    out << "         ignored: " << f.ignore_reason
        << (f.ignore_expires.empty() ? "" : " (until " + f.ignore_expires + ")") << "\n";
  }
}

std::string summary(const CheckReport& report) {
  std::size_t counts[4] = {0, 0, 0, 0};
  for (const auto& f : report.findings) {
    if (auto s = parse_gotcha_severity(f.severity)) ++counts[static_cast<int>(*s)];
  }
  std::ostringstream out;
  for (GotchaSeverity s : kAllGotchaSeverities) {
    std::size_t n = counts[static_cast<int>(s)];
    if (n) out << (out.tellp() > 0 ? ", " : "") << n << " " << to_string(s);
  }
  return out.str();
}

// A table cell: no line breaks, pipes escaped.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '\n')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

void print_clause(std::ostream& out, const Clause& c, int depth) {
  const std::string indent(static_cast<std::size_t>(depth) * 2 + 4, ' ');
  const std::string mark = c.truth == "true"      ? "[true]   "
                           : c.truth == "unknown" ? "[unknown]"
                                                  : "[false]  ";
  out << indent << mark << " " << c.text << "\n";
  for (const auto& fact : c.facts) out << indent << "            " << fact << "\n";
  for (const auto& child : c.children) print_clause(out, child, depth + 1);
}

}  // namespace

bool colour_wanted(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_colour = std::getenv("NO_COLOR");
  if (no_colour && *no_colour) return false;
  const char* term = std::getenv("TERM");
  if (term && std::string_view(term) == "dumb") return false;
  return ::isatty(fd) == 1;
}

void print_findings_text(std::ostream& out, std::ostream& err, const CheckReport& report,
                         const std::string& base_url, bool colour) {
  for (const auto& d : report.diagnostics) err << format_diagnostic(d) << "\n";
  const std::string s = summary(report);
  out << report.deployment.file << ": " << report.findings.size()
      << (report.findings.size() == 1 ? " finding" : " findings")
      << (s.empty() ? "" : " (" + s + ")");
  if (!report.ignored.empty()) out << ", " << report.ignored.size() << " ignored";
  out << "\n";
  for (const auto& f : report.findings) {
    out << "\n";
    print_finding(out, f, f.severity, base_url, colour);
  }
  for (const auto& f : report.ignored) {
    out << "\n";
    print_finding(out, f, "ignored", base_url, colour);
  }
}

void print_findings_markdown(std::ostream& out, const CheckReport& report,
                             const std::string& base_url) {
  const std::string s = summary(report);
  out << "### kb check: " << report.findings.size()
      << (report.findings.size() == 1 ? " gotcha" : " gotchas") << (s.empty() ? "" : " (" + s + ")")
      << " in `" << report.deployment.file << "`\n\n";
  if (report.findings.empty()) {
    out << "No known gotcha applies to this deployment.\n";
  } else {
    out << "| Severity | Gotcha | Service | Where |\n|---|---|---|---|\n";
    for (const auto& f : report.findings) {
      const std::string title =
          base_url.empty()
              ? cell(f.title)
              : "[" + cell(f.title) + "](" + json::gotcha_url(base_url, f.id, false) + ")";
      out << "| **" << f.severity << "**" << (f.possible ? " (possible)" : "") << " | " << title
          << "<br>`" << f.id << "` | " << cell(f.service.empty() ? "-" : hit_services(f)) << " | "
          << (f.locations.empty()
                  ? "-"
                  : "`" + cell(place(f.locations.front().file, f.locations.front().pos)) + "`")
          << " |\n";
    }
    for (const auto& f : report.findings) {
      out << "\n<details><summary><code>" << f.id << "</code>: " << cell(f.title)
          << "</summary>\n\n";
      for (const auto& w : f.why) out << "- " << w << "\n";
      if (!f.workaround_markdown.empty())
        out << "\n**What to do:** " << f.workaround_markdown << "\n";
      for (const auto& a : f.fixes) out << "\n**Fix:** " << a.advice << "\n";
      out << "\n</details>\n";
    }
  }
  if (!report.ignored.empty()) {
    out << "\n" << report.ignored.size() << " ignored:";
    for (const auto& f : report.ignored)
      out << " `" << f.id << "` (" << cell(f.ignore_reason) << ")";
    out << "\n";
  }
  const std::size_t errors = count_severity(report.diagnostics, Severity::error);
  if (errors > 0)
    out << "\n**" << errors << " error(s) reading the deployment**: the check is not whole.\n";
}

void print_deployment_text(std::ostream& out, const CheckReport& report) {
  const Deployment& d = report.deployment;
  out << d.file << ": " << d.services.size() << (d.services.size() == 1 ? " service" : " services");
  std::vector<std::string> graphs;
  for (const Service& s : d.services) {
    if (!s.group.empty() && std::find(graphs.begin(), graphs.end(), s.group) == graphs.end())
      graphs.push_back(s.group);
  }
  if (!graphs.empty()) {
    out << " in " << graphs.size()
        << " serving graphs (one per file; a prefill-only and a decode-only file serving one "
           "model are one graph; prefill and decode pair only within a graph)";
  }
  out << "\n";
  for (const Service& s : d.services) {
    out << "\nservice " << (s.name.empty() ? "(unnamed)" : s.name) << "  role " << s.role;
    if (!s.group.empty()) out << "  graph " << s.group;
    if (s.pos.line > 0) out << "  (" << place(s.file, s.pos) << ")";
    out << "\n";
    for (const DeployedEngine& e : s.engines) {
      out << "  engine   " << (e.id.empty() ? e.name + " (unknown)" : e.id)
          << (e.version.empty() ? " (version not known)" : " " + e.version);
      if (!e.via.empty()) out << "  via " << e.via;
      if (e.pos.line > 0) out << "  at " << place(e.file.empty() ? s.file : e.file, e.pos);
      out << "\n";
    }
    if (!s.model.empty()) {
      out << "  model    " << s.model;
      out << (s.model_record.empty() ? "  (no model record: its traits are unknown)"
                                     : "  (" + s.model_record + ")");
      if (s.model_pos.line > 0) out << "  at " << place(s.file, s.model_pos);
      out << "\n";
    }
    for (const Setting& st : s.config) {
      std::string shown = st.value;
      if (st.runtime) {
        // A value the input bounds but does not decide: its candidates.
        std::string values;
        for (const std::string& v : st.one_of) values += (values.empty() ? "" : " or ") + v;
        shown = values.empty() ? "(set at run time)" : "(" + values + ": not decided by the input)";
      }
      if (!st.parts.empty()) {
        std::string parts;
        for (const std::string& v : st.parts) parts += (parts.empty() ? "" : ", ") + v;
        shown += " (parts: " + parts + ")";
      }
      out << "  setting  " << st.key << " = " << shown;
      const bool normalised = !st.runtime && !st.raw_value.empty() && st.raw_value != st.value;
      if (normalised) out << "  (written " << st.raw_value << ")";
      if (!st.via.empty()) out << "  via " << st.via;
      if (st.derived) out << "  (derived)";
      if (st.pos.line > 0) out << "  at " << place(st.file.empty() ? s.file : st.file, st.pos);
      out << "\n";
    }
  }
  if (!d.not_understood.empty()) {
    out << "\nnot understood (" << d.not_understood.size() << "):\n";
    for (const Unread& u : d.not_understood) {
      out << "  " << place(u.file, u.pos) << ": " << u.text << "  -- " << u.why << "\n";
    }
  }
}

void print_explanation_text(std::ostream& out, const Explanation& e) {
  out << e.id << ": " << e.result << "\n  " << e.title << "\n";
  for (const auto& s : e.services) {
    out << "\n  service " << (s.service.empty() ? "(the deployment)" : s.service) << " (role "
        << s.role << ")\n";
    print_clause(out, s.root, 0);
  }
}

}  // namespace kb::cli
