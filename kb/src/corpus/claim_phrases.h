#pragma once

// The phrases an author writes when a gotcha has not been seen to happen: the loader keeps
// a body that may hold one (the claim checks read it on every snapshot), and
// `evidence.unreproduced-claim` looks for them.

#include <string_view>
#include <vector>

namespace kb {

/// Longer phrases first, so a message quotes the most specific one.
const std::vector<std::string_view>& unreproduced_phrases();

/// Whether `text` may hold one of unreproduced_phrases() (false means it holds none).
bool may_hold_phrase(std::string_view text);

}  // namespace kb
