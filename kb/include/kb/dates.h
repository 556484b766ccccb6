#pragma once

// Calendar dates as records write them (YYYY-MM-DD): what every layer that reads a date
// shares.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kb/model.h"

namespace kb {

/// Today's date in UTC, YYYY-MM-DD.
std::string today_date();

/// Days since 1970-01-01 of a YYYY-MM-DD date; nullopt when it is not a valid date.
std::optional<std::int64_t> date_to_days(std::string_view date);

/// The dates of `r`'s references: from `references`, or those a slim record kept.
CitationDates reference_dates(const Record& r);

}  // namespace kb
