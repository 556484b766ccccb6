#pragma once

// What reading the inputs of one check may cost, in proportion to their size. Text a reader makes
// that the input does not hold byte for byte -- shell variables expanded, Kubernetes `$(VAR)`
// references, `envFrom` and exported variables copied into every process -- is charged
// here; past the budget the reader stops making more, and the check fails closed with a
// `limits.expansion` diagnostic that names where the budget ran out.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "kb/diagnostic.h"
#include "kb/model.h"

namespace kb::deploy {

class Budget {
 public:
  /// What a fact costs beyond its text (the strings' and vectors' own bookkeeping).
  static constexpr std::size_t kFactOverhead = 64;

  /// The budget of inputs of `input_bytes` in all, the same as a YAML document's
  /// expansion budget (yaml::expansion_budget): 16 times their size, or 1 MiB.
  explicit Budget(std::size_t input_bytes);

  /// The input that the next charges are for.
  void reading(std::string file) { file_ = std::move(file); }

  /// Charges `bytes` made at `pos` for `what` ("variable $A", "envFrom configMap x");
  /// false, and nothing charged, when that would overrun the budget. After the first
  /// refusal every charge is refused.
  bool spend(std::size_t bytes, Pos pos, std::string_view what);
  /// Whether a charge was refused.
  bool exhausted() const { return overrun_.has_value(); }
  std::size_t limit() const { return limit_; }
  std::size_t used() const { return used_; }
  /// The error that says where the budget ran out, once it has.
  std::optional<Diagnostic> diagnostic() const;

 private:
  struct Overrun {
    std::string file;
    Pos pos;
    std::string what;
  };
  std::string file_;
  std::size_t input_bytes_ = 0;
  std::size_t limit_ = 0;
  std::size_t used_ = 0;
  std::optional<Overrun> overrun_;
};

}  // namespace kb::deploy
