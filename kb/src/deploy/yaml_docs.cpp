#include "deploy/yaml_docs.h"

#include "core/text_util.h"
#include "kb/deployment.h"
#include "kb/diagnostic_codes.h"

namespace kb::deploy {
namespace {

void shift(yaml::Node& n, int lines, std::size_t bytes) {
  if (n.pos.line > 0) n.pos.line += lines;
  n.offset += bytes;
  for (auto& item : n.items) shift(item, lines, bytes);
  for (auto& [k, v] : n.entries) {
    shift(k, lines, bytes);
    shift(v, lines, bytes);
  }
}

bool blank_document(std::string_view chunk) {
  std::size_t i = 0;
  while (i < chunk.size()) {
    std::size_t nl = chunk.find('\n', i);
    std::string_view line = text::trim(chunk.substr(i, nl == std::string_view::npos ? nl : nl - i));
    if (!line.empty() && line[0] != '#') return false;
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
  return true;
}

bool separator_line(std::string_view line) {
  if (!line.starts_with("---") && !line.starts_with("...")) return false;
  return line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r';
}

}  // namespace

bool parse_documents(std::string_view text, const std::string& file, std::vector<yaml::Node>& docs,
                     std::vector<Diagnostic>& diags) {
  if (text.size() > kMaxDeploymentBytes) {
    diags.push_back({Severity::error, diag_code("limits.file-size"), file, 0, 0,
                     "the file is larger than " + std::to_string(kMaxDeploymentBytes) + " bytes",
                     "", ""});
    return false;
  }
  if (auto bad = text::invalid_utf8_offset(text); bad != std::string_view::npos) {
    Pos p = text::offset_to_pos(text, bad);
    diags.push_back({Severity::error, diag_code("encoding.utf8"), file, p.line, p.column,
                     "bytes that are not UTF-8", "save the file as UTF-8", ""});
    return false;
  }
  yaml::Limits limits;
  limits.max_bytes = kMaxDeploymentBytes;
  limits.max_depth = 32;
  limits.max_nodes = 200000;
  limits.later_duplicate_wins = true;  // manifests are read as kubectl and Helm read them
  // One allowance for the whole text: many documents cannot each spend a document's.
  yaml::Allowance left = yaml::allowance(limits, text.size());
  bool ok = true;
  std::size_t start = 0;  // of the current document
  int start_line = 1;
  int line_no = 1;
  std::size_t i = 0;
  auto flush = [&](std::size_t end) {
    std::string_view chunk = text.substr(start, end - start);
    if (blank_document(chunk)) return;
    yaml::Node root;
    std::vector<Diagnostic> own;
    if (yaml::parse(chunk, file, limits, root, own, left)) {
      shift(root, start_line - 1, start);
      docs.push_back(std::move(root));
    } else {
      ok = false;
    }
    for (auto& d : own) {
      if (d.line > 0) d.line += start_line - 1;
      if (d.severity == Severity::error) ok = false;
      diags.push_back(std::move(d));
    }
  };
  while (i <= text.size()) {
    std::size_t nl = text.find('\n', i);
    std::size_t end = nl == std::string_view::npos ? text.size() : nl;
    if (separator_line(text.substr(i, end - i))) {
      flush(i);
      start = nl == std::string_view::npos ? text.size() : nl + 1;
      start_line = line_no + 1;
    }
    if (nl == std::string_view::npos) break;
    i = nl + 1;
    ++line_no;
  }
  flush(text.size());
  return ok;
}

bool has_top_level_key(std::string_view text, std::string_view key) {
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t nl = text.find('\n', i);
    std::string_view line =
        text.substr(i, nl == std::string_view::npos ? std::string_view::npos : nl - i);
    if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ':') {
      return true;
    }
    if (nl == std::string_view::npos) break;
    i = nl + 1;
  }
  return false;
}

const yaml::Node* at_path(const yaml::Node& n, std::string_view path) {
  const yaml::Node* cur = &n;
  while (cur && !path.empty()) {
    auto dot = path.find('.');
    std::string_view key = path.substr(0, dot);
    cur = cur->is_map() ? cur->find(key) : nullptr;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return cur;
}

Pos scalar_end(const yaml::Node& n, std::string_view source) {
  if (!n.is_scalar() || n.pos.line == 0 || n.value.find('\n') != std::string::npos) return {};
  if (n.offset >= source.size()) return {};
  const char q = source[n.offset];
  if (n.plain) {
    if (source.compare(n.offset, n.value.size(), n.value) != 0) return {};
    return Pos{n.pos.line, n.pos.column + static_cast<int>(n.value.size())};
  }
  if (q != '"' && q != '\'') return {};
  // The closing quote on the same line.
  for (std::size_t i = n.offset + 1; i < source.size() && source[i] != '\n'; ++i) {
    if (q == '"' && source[i] == '\\') {
      ++i;
    } else if (source[i] == q) {
      if (q == '\'' && i + 1 < source.size() && source[i + 1] == '\'') {
        ++i;
        continue;
      }
      return Pos{n.pos.line, n.pos.column + static_cast<int>(i + 1 - n.offset)};
    }
  }
  return {};
}

}  // namespace kb::deploy
