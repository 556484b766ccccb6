#include "deploy/budget.h"

#include "kb/diagnostic_codes.h"
#include "yaml/yaml_tree.h"

namespace kb::deploy {

Budget::Budget(std::size_t input_bytes)
    : input_bytes_(input_bytes), limit_(yaml::expansion_budget(yaml::Limits{}, input_bytes)) {}

bool Budget::spend(std::size_t bytes, Pos pos, std::string_view what) {
  if (overrun_) return false;
  if (bytes > limit_ - used_) {
    overrun_ = Overrun{file_, pos, std::string(what)};
    return false;
  }
  used_ += bytes;
  return true;
}

std::optional<Diagnostic> Budget::diagnostic() const {
  if (!overrun_) return std::nullopt;
  const yaml::Limits limits;
  return Diagnostic{Severity::error,
                    diag_code("limits.expansion"),
                    overrun_->file,
                    overrun_->pos.line,
                    overrun_->pos.column,
                    "reading the inputs would make more than " + std::to_string(limit_) +
                        " bytes of text it does not hold (" + overrun_->what + "); the budget is " +
                        std::to_string(limits.expansion_factor) + "x the inputs' " +
                        std::to_string(input_bytes_) + " bytes, at least " +
                        std::to_string(limits.min_expansion_bytes),
                    "a real deployment expands far less: look for a variable that doubles "
                    "itself, or one exported into thousands of commands",
                    ""};
}

}  // namespace kb::deploy
