// Prompt files: JSON lines, each `{"prompt": "..."}` or `{"messages": [...]}`. Each line
// is read with the YAML tree (JSON is YAML), so kb needs no JSON parser of its own.

#include <string>

#include "core/text_util.h"
#include "kb/diagnostic_codes.h"
#include "kb/oracle.h"
#include "kb/text.h"
#include "yaml/yaml_tree.h"

namespace kb::oracle {

// Defined in the file CMake generates from builtin_prompts.jsonl.
std::string_view builtin_prompt_text();

namespace {

constexpr std::size_t kMaxPrompts = 100000;

Diagnostic diag(Severity sev, const std::string& code, const std::string& file, Pos pos,
                std::string message, std::string hint = {}) {
  Diagnostic d;
  d.severity = sev;
  d.code = code;
  d.file = file;
  d.line = pos.line;
  d.column = pos.column;
  d.message = std::move(message);
  d.hint = std::move(hint);
  return d;
}

const char* kShapeHint =
    R"(write {"prompt": "..."} or {"messages": [{"role": "user", "content": "..."}]})";

class LineReader {
 public:
  LineReader(const std::string& file, int line, PromptSet& out)
      : file_(file), line_(line), out_(out) {}

  // Pos of a node in the whole file: the node's column on this line.
  Pos at(const yaml::Node& n) const { return Pos{line_, n.pos.column}; }

  void error(const yaml::Node& n, std::string message) {
    out_.diagnostics.push_back(diag(Severity::error, diag_code("prompts.bad-shape"), file_, at(n),
                                    std::move(message), kShapeHint));
    ok_ = false;
  }

  bool string(const yaml::Node& n, const std::string& what, std::string& out) {
    if (!n.is_scalar()) {
      error(n, what + ": expected a string, found " + std::string(yaml::type_name(n)));
      return false;
    }
    out = n.value;
    return true;
  }

  void read(const yaml::Node& root) {
    if (!root.is_map()) {
      error(root, "expected an object, found " + std::string(yaml::type_name(root)));
      return;
    }
    Prompt p;
    p.line = line_;
    const yaml::Node* prompt = root.find("prompt");
    const yaml::Node* messages = root.find("messages");
    for (const auto& [k, v] : root.entries) {
      if (k.value != "prompt" && k.value != "messages") {
        out_.diagnostics.push_back(diag(Severity::warning, diag_code("prompts.unknown-field"),
                                        file_, at(k), "ignoring field '" + k.value + "'",
                                        kShapeHint));
      }
    }
    if ((prompt == nullptr) == (messages == nullptr)) {
      error(root, prompt ? "both 'prompt' and 'messages'" : "neither 'prompt' nor 'messages'");
      return;
    }
    if (prompt != nullptr) {
      if (string(*prompt, "prompt", p.text) && p.text.empty()) error(*prompt, "prompt: empty");
    } else if (!messages->is_seq() || messages->items.empty()) {
      error(*messages, "messages: expected a non-empty list");
    } else {
      for (std::size_t i = 0; i < messages->items.size(); ++i) {
        const yaml::Node& m = messages->items[i];
        const std::string what = "messages[" + std::to_string(i) + "]";
        const yaml::Node* role = m.is_map() ? m.find("role") : nullptr;
        const yaml::Node* content = m.is_map() ? m.find("content") : nullptr;
        if (role == nullptr || content == nullptr) {
          error(m, what + ": expected {\"role\": ..., \"content\": \"...\"}");
          continue;
        }
        Message msg;
        if (string(*role, what + ".role", msg.role) &&
            string(*content, what + ".content", msg.content)) {
          p.messages.push_back(std::move(msg));
        }
      }
    }
    if (ok_) out_.prompts.push_back(std::move(p));
  }

 private:
  std::string file_;  // owned: a caller may pass a temporary (a record's Str converted)
  int line_;
  PromptSet& out_;
  bool ok_ = true;
};

}  // namespace

PromptSet parse_prompts(std::string_view text, const std::string& file) {
  PromptSet out;
  if (auto bad = text::invalid_utf8_offset(text); bad != std::string_view::npos) {
    out.diagnostics.push_back(diag(Severity::error, diag_code("encoding.utf8"), file,
                                   text::offset_to_pos(text, bad), "bytes that are not UTF-8"));
    return out;
  }
  if (text.starts_with(kb::text::kUtf8Bom)) text.remove_prefix(kb::text::kUtf8Bom.size());
  int line = 0;
  std::size_t start = 0;
  while (start < text.size() && out.prompts.size() <= kMaxPrompts) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view body = text.substr(start, end - start);
    start = end + 1;
    ++line;
    if (!body.empty() && body.back() == '\r') body.remove_suffix(1);
    const std::string_view trimmed = text::trim(body);
    if (trimmed.empty() || trimmed.front() == '#') continue;
    yaml::Node root;
    std::vector<Diagnostic> diags;
    if (!yaml::parse(body, file, yaml::Limits{}, root, diags)) {
      for (auto& d : diags) {
        d.line = line;
        d.code = diag_code("prompts.syntax");
        d.hint = kShapeHint;
        out.diagnostics.push_back(std::move(d));
      }
      continue;
    }
    LineReader(file, line, out).read(root);
  }
  if (out.prompts.size() > kMaxPrompts) {
    out.diagnostics.push_back(diag(Severity::error, diag_code("prompts.too-many"), file,
                                   Pos{line, 1},
                                   "more than " + std::to_string(kMaxPrompts) + " prompts"));
  } else if (out.prompts.empty() && count_severity(out.diagnostics, Severity::error) == 0) {
    out.diagnostics.push_back(diag(Severity::error, diag_code("prompts.empty"), file, Pos{1, 1},
                                   "no prompts in the file", kShapeHint));
  }
  if (count_severity(out.diagnostics, Severity::error) > 0) out.prompts.clear();
  return out;
}

PromptSet builtin_prompts() {
  return parse_prompts(builtin_prompt_text(), "(built-in prompts)");
}

}  // namespace kb::oracle
