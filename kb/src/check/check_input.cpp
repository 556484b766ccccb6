#include "check/check_input.h"

#include "core/similarity.h"
#include "core/text_util.h"
#include "kb/check.h"
#include "kb/diagnostic_codes.h"

namespace kb {

InputDiagnostics::InputDiagnostics(const std::string& file, std::vector<Diagnostic>& diags)
    : file_(file), diags_(diags) {}

bool InputDiagnostics::parse(std::string_view text, yaml::Node& root) {
  if (text.size() > kMaxDeploymentBytes) {
    add(Severity::error, diag_code("limits.file-size"), Pos{},
        "the file is larger than " + std::to_string(kMaxDeploymentBytes) + " bytes");
    return false;
  }
  // Checked here rather than by each caller: bytes that are not UTF-8 would reach
  // diagnostics and findings, and JSON output cannot carry them.
  if (auto bad = text::invalid_utf8_offset(text); bad != std::string_view::npos) {
    add(Severity::error, diag_code("encoding.utf8"), text::offset_to_pos(text, bad),
        "bytes that are not UTF-8", "save the file as UTF-8");
    return false;
  }
  // yaml::parse refuses deeper nesting before any parser recurses into it.
  yaml::Limits limits;
  limits.max_bytes = kMaxDeploymentBytes;
  limits.max_depth = 16;
  limits.max_nodes = 100000;
  std::size_t before = diags_.size();
  bool ok = yaml::parse(text, file_, limits, root, diags_);
  for (std::size_t i = before; i < diags_.size(); ++i) {
    if (diags_[i].severity == Severity::error) ++errors_;
  }
  return ok;
}

void InputDiagnostics::add(Severity s, std::string code, Pos pos, std::string message,
                           std::string hint) {
  if (s == Severity::error) ++errors_;
  diags_.push_back(
      {s, std::move(code), file_, pos.line, pos.column, std::move(message), std::move(hint), ""});
}

bool InputDiagnostics::expect_map(const yaml::Node& v, const std::string& what,
                                  const std::string& example) {
  if (v.is_map()) return true;
  add(Severity::error, diag_code("check.type"), v.pos,
      what + ": expected a mapping, found " + std::string(yaml::type_name(v)), example);
  return false;
}

bool InputDiagnostics::expect_scalar(const yaml::Node& v, const std::string& field) {
  if (v.is_scalar()) return true;
  add(Severity::error, diag_code("check.type"), v.pos,
      field + ": expected a single value, found " + std::string(yaml::type_name(v)));
  return false;
}

bool InputDiagnostics::expect_key(const yaml::Node& k) {
  if (k.is_scalar()) return true;
  add(Severity::error, diag_code("check.type"), k.pos,
      "expected a plain key, found " + std::string(yaml::type_name(k)));
  return false;
}

void InputDiagnostics::unknown_key(const yaml::Node& k, const std::string& prefix,
                                   const std::vector<std::string>& choices) {
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  if (auto guess = did_you_mean(k.value, choices)) {
    add(Severity::error, diag_code("check.unknown-field"), k.pos,
        prefix + k.value + ": unknown key", "did you mean '" + *guess + "'?");
  } else {
    add(Severity::warning, diag_code("check.unknown-field"), k.pos,
        prefix + k.value + ": unknown key, ignored", "known keys: " + list);
  }
}

}  // namespace kb
