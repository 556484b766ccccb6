#pragma once

// How the value of a setting is read for its type (bool spellings, integers, enum
// synonyms) and compared: what lint, repair and `kb check` share. Everything comes from the
// setting's own record (its SettingDef).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kb/model.h"
#include "kb/version.h"

namespace kb {

/// How a bool value may be written (lower-case): each spelling with what it means,
/// `yes` -> `true`, `off` -> `false`.
const std::vector<std::pair<std::string_view, std::string_view>>& bool_spellings();

/// Normalises `raw` for a setting of `def`'s type: `yes` -> `true` for bool, `04` -> `4`
/// for integer, a synonym -> its value for enum. When it does not fit, `value` is empty and
/// `error` says why ("'maybe' is not a boolean ...") and where in `raw` the bad part starts.
Parsed<std::string> normalize_value(const SettingDef& def, std::string_view raw);

/// Whether `a` OP `b` holds for two normalised values of `def`'s type; OP is one of
/// eq, ne, gt, gte, lt, lte (in / not_in are eq / ne over a list).
bool compare_values(const SettingDef& def, std::string_view a, std::string_view op,
                    std::string_view b);

/// Whether the setting's type orders its values (integer, number, version).
bool ordered_type(const SettingDef& def);

/// Whether `text` matches `glob` (`*` any run of characters), ASCII case-insensitively.
bool glob_match(std::string_view glob, std::string_view text);

}  // namespace kb
