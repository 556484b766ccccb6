#pragma once

// "Did you mean" for names a user typed: flags, fields, query parameters, enum values.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb {

/// The one entry of `choices` that `word` is plausibly a misspelling of (at most one edit
/// per four characters, clearly closer than any other choice), for "did you mean" hints.
std::optional<std::string> did_you_mean(std::string_view word,
                                        const std::vector<std::string>& choices);

}  // namespace kb
