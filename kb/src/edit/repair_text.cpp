// In-place editing of a record file for `kb repair --write`: replace exactly the bytes of
// each repaired scalar and append to the `repairs:` log in the style the file already
// uses. Re-emitting the YAML would drop comments and reorder keys, so nothing else moves.

#include <algorithm>
#include <cstdio>

#include "kb/diagnostic_codes.h"
#include "kb/repair.h"
#include "kb/text.h"
#include "yaml/yaml_scalar.h"
#include "yaml/yaml_tree.h"

namespace kb {
namespace {

struct Edit {
  std::size_t offset;
  std::size_t length;
  std::string text;
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::vector<std::size_t> line_starts(std::string_view text) {
  std::vector<std::size_t> starts{0};
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') starts.push_back(i + 1);
  }
  return starts;
}

std::string confidence_text(double c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", c);
  return buf;
}

// The replacement of one scalar: its byte range and new text, keeping its quoting style.
bool scalar_edit(std::string_view body, const std::vector<std::size_t>& starts,
                 const PlannedRepair& r, Edit& out, Diagnostic& problem) {
  auto fail = [&](const std::string& why) {
    problem.line = r.line;
    problem.column = r.column;
    problem.message = r.field + " at line " + std::to_string(r.line) + ": " + why;
    return false;
  };
  if (r.line < 1 || static_cast<std::size_t>(r.line) > starts.size() || r.column < 1) {
    return fail("position is outside the file");
  }
  const std::size_t at =
      starts[static_cast<std::size_t>(r.line) - 1] + static_cast<std::size_t>(r.column) - 1;
  if (at >= body.size()) return fail("position is outside the file");
  const char quote = body[at];
  if (quote == '"' || quote == '\'') {
    std::size_t end = at + 1;
    std::string inner;
    while (end < body.size()) {
      if (body[end] == quote) {
        if (quote == '\'' && end + 1 < body.size() && body[end + 1] == '\'') {
          inner += '\'';
          end += 2;
          continue;
        }
        break;
      }
      if (body[end] == '\\' && quote == '"') return fail("escaped scalar; edit it by hand");
      if (body[end] == '\n') return fail("multi-line scalar; edit it by hand");
      inner += body[end++];
    }
    if (end >= body.size() || inner != r.from) return fail("'" + r.from + "' is not there");
    out = Edit{
        at, end + 1 - at,
        yaml_out::scalar(r.to, quote == '"' ? yaml_out::Quote::double_ : yaml_out::Quote::single)};
    return true;
  }
  if (body.compare(at, r.from.size(), r.from) != 0) return fail("'" + r.from + "' is not there");
  const std::size_t after = at + r.from.size();
  // A mapping key (a setting in a predicate's config) ends at a ':' followed by a blank.
  const bool key_end = after < body.size() && body[after] == ':' &&
                       (after + 1 == body.size() || is_blank(body[after + 1]) ||
                        std::string_view(",]}\n").find(body[after + 1]) != std::string_view::npos);
  if (after < body.size() && !is_blank(body[after]) && !key_end &&
      std::string_view(",]}#\n").find(body[after]) == std::string_view::npos) {
    return fail("'" + r.from + "' continues past the recorded value");
  }
  // A setting's value keeps its YAML type: `ture` becomes `true`, not "true".
  out = Edit{at, r.from.size(),
             r.kind == RepairKind::value ? yaml_out::typed_scalar(r.to) : yaml_out::scalar(r.to)};
  return true;
}

// How the file writes list items: the indent of `- ` under a key, and its line ending.
struct Layout {
  std::size_t indent = 2;
  std::string eol = "\n";
};

std::size_t column_of(std::string_view body, std::size_t offset) {
  if (offset == 0) return 0;
  const std::size_t nl = body.rfind('\n', offset - 1);
  return nl == std::string_view::npos ? offset : offset - nl - 1;
}

Layout file_layout(std::string_view body, const yaml::Node& root) {
  Layout layout;
  if (body.find("\r\n") != std::string_view::npos) layout.eol = "\r\n";
  for (const auto& [key, value] : root.entries) {
    if (value.is_seq() && value.offset < body.size() && body[value.offset] == '-') {
      layout.indent = column_of(body, value.offset);
      break;
    }
  }
  return layout;
}

// `- {date: ..., field: ..., from: ..., to: ...,` / `   reason: ..., confidence: ...}`:
// the contract's style, wrapped after `to` so lines stay readable.
std::string flow_entry(const PlannedRepair& r, std::string_view today, std::size_t indent,
                       const std::string& eol) {
  const std::string pad(indent, ' ');
  return pad + "- {date: " + std::string(today) + ", field: " + yaml_out::double_quoted(r.field) +
         ", from: " + yaml_out::scalar(r.from) + ", to: " + yaml_out::scalar(r.to) + "," + eol +
         pad + "   reason: " + yaml_out::double_quoted(r.reason) +
         ", confidence: " + confidence_text(r.confidence) + "}" + eol;
}

std::string block_entry(const PlannedRepair& r, std::string_view today, std::size_t indent,
                        const std::string& eol) {
  const std::string pad(indent, ' ');
  const std::string key_pad(indent + 2, ' ');
  return pad + "- date: " + std::string(today) + eol + key_pad +
         "field: " + yaml_out::double_quoted(r.field) + eol + key_pad +
         "from: " + yaml_out::scalar(r.from) + eol + key_pad + "to: " + yaml_out::scalar(r.to) +
         eol + key_pad + "reason: " + yaml_out::double_quoted(r.reason) + eol + key_pad +
         "confidence: " + confidence_text(r.confidence) + eol;
}

// Where the block content of root entry `i` ends: after its last line that is neither
// blank nor only a comment, before the next root key.
std::size_t block_end(std::string_view body, const std::vector<std::size_t>& starts,
                      const yaml::Node& root, std::size_t i) {
  auto line_of = [&](std::size_t offset) {
    return static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), offset) -
                                    starts.begin()) -
           1;
  };
  auto line_end = [&](std::size_t line) {
    return line + 1 < starts.size() ? starts[line + 1] : body.size();
  };
  const std::size_t first = line_of(root.entries[i].first.offset);
  std::size_t line =
      i + 1 < root.entries.size() ? line_of(root.entries[i + 1].first.offset) : starts.size();
  while (line > first + 1) {
    --line;
    std::string_view text = body.substr(starts[line], line_end(line) - starts[line]);
    std::size_t k = 0;
    while (k < text.size() && is_blank(text[k])) ++k;
    if (k < text.size() && text[k] != '#' && text[k] != '\n') return line_end(line);
  }
  return line_end(first);
}

// Matching `]` of the flow sequence opening at `open`, skipping quoted text.
std::size_t flow_close(std::string_view body, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < body.size(); ++i) {
    const char c = body[i];
    if (c == '"' || c == '\'') {
      for (++i; i < body.size() && body[i] != c; ++i) {
        if (c == '"' && body[i] == '\\') ++i;
      }
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth == 0) return i;
    }
  }
  return std::string_view::npos;
}

// The edits that append `repairs` to the record's log.
bool log_edits(std::string_view body, const std::vector<std::size_t>& starts,
               const yaml::Node& root, const std::vector<PlannedRepair>& repairs,
               std::string_view today, std::vector<Edit>& out, Diagnostic& problem) {
  const Layout layout = file_layout(body, root);
  auto entries = [&](std::size_t indent, bool block) {
    std::string text;
    for (const auto& r : repairs) {
      text += block ? block_entry(r, today, indent, layout.eol)
                    : flow_entry(r, today, indent, layout.eol);
    }
    return text;
  };
  // Inserting whole lines at `at`: a last line without its newline gets one first.
  auto lines_at = [&](std::size_t at, std::string text) {
    const std::string lead = at > 0 && body[at - 1] != '\n' ? layout.eol : "";
    out.push_back(Edit{at, 0, lead + std::move(text)});
  };
  std::size_t index = root.entries.size();
  for (std::size_t i = 0; i < root.entries.size(); ++i) {
    if (root.entries[i].first.is_scalar() && root.entries[i].first.value == "repairs") index = i;
  }
  if (index == root.entries.size()) {
    lines_at(body.size(), "repairs:" + layout.eol + entries(layout.indent, false));
    return true;
  }
  const yaml::Node& key = root.entries[index].first;
  const yaml::Node& value = root.entries[index].second;
  if (value.is_null()) {
    // `repairs:` or `repairs: ~`: drop a written null and put the list under the key.
    const std::size_t nl = body.find('\n', key.offset);
    const std::size_t line_end = nl == std::string_view::npos ? body.size() : nl;
    if (value.offset < line_end) {
      std::size_t n = 0;
      while (value.offset + n < line_end && !is_blank(body[value.offset + n]) &&
             body[value.offset + n] != '#') {
        ++n;
      }
      out.push_back(Edit{value.offset, n, ""});
    }
    lines_at(nl == std::string_view::npos ? body.size() : nl + 1, entries(layout.indent, false));
    return true;
  }
  if (!value.is_seq()) {
    problem.line = value.pos.line;
    problem.column = value.pos.column;
    problem.message = "repairs: is " + std::string(yaml::type_name(value)) + ", not a list";
    return false;
  }
  if (value.offset < body.size() && body[value.offset] == '[') {
    const std::size_t close = flow_close(body, value.offset);
    if (close == std::string_view::npos) {
      problem.line = value.pos.line;
      problem.column = value.pos.column;
      problem.message = "repairs: unterminated flow list";
      return false;
    }
    std::size_t at = close;
    while (at > value.offset + 1 && (is_blank(body[at - 1]) || body[at - 1] == '\n')) --at;
    std::string text;
    for (const auto& r : repairs) {
      text += (at == value.offset + 1 && text.empty() ? "" : ", ") + std::string("{date: ") +
              std::string(today) + ", field: " + yaml_out::double_quoted(r.field) +
              ", from: " + yaml_out::scalar(r.from) + ", to: " + yaml_out::scalar(r.to) +
              ", reason: " + yaml_out::double_quoted(r.reason) +
              ", confidence: " + confidence_text(r.confidence) + "}";
    }
    out.push_back(Edit{at, 0, std::move(text)});
    return true;
  }
  const yaml::Node* last = value.items.empty() ? nullptr : &value.items.back();
  const bool block =
      last != nullptr && last->is_map() && last->offset < body.size() && body[last->offset] != '{';
  lines_at(block_end(body, starts, root, index), entries(column_of(body, value.offset), block));
  return true;
}

}  // namespace

std::optional<std::string> repaired_text(const Record& record,
                                         const std::vector<PlannedRepair>& repairs,
                                         std::string_view today,
                                         std::vector<Diagnostic>& problems) {
  Diagnostic problem{Severity::error,
                     diag_code("repair.not-in-place"),
                     record.file,
                     0,
                     0,
                     "",
                     "edit the file by hand",
                     record.id};
  auto fail = [&](std::string message = {}) -> std::optional<std::string> {
    if (!message.empty()) problem.message = std::move(message);
    problems.push_back(std::move(problem));
    return std::nullopt;
  };
  std::string_view text = record.source_text;
  const bool bom = text.starts_with(text::kUtf8Bom);
  const std::string_view body = bom ? text.substr(text::kUtf8Bom.size()) : text;

  yaml::Node root;
  std::vector<Diagnostic> diags;
  if (!yaml::parse(body, record.file, yaml::Limits{}, root, diags) || !root.is_map()) {
    return fail("the file no longer parses");
  }
  const auto starts = line_starts(body);
  std::vector<Edit> edits;
  for (const auto& r : repairs) {
    Edit e;
    if (!scalar_edit(body, starts, r, e, problem)) return fail();
    edits.push_back(std::move(e));
  }
  if (!log_edits(body, starts, root, repairs, today, edits, problem)) return fail();
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.offset > b.offset; });
  std::string out(body);
  for (const auto& e : edits) out.replace(e.offset, e.length, e.text);
  return bom ? std::string(text::kUtf8Bom) + out : out;
}

}  // namespace kb
