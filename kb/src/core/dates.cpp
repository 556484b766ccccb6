#include "kb/dates.h"

#include <cctype>

#include "core/text_util.h"

namespace kb {

namespace {

bool leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

}  // namespace

std::string today_date() {
  return text::today_utc();
}

std::optional<std::int64_t> date_to_days(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  auto number = [&](std::size_t from, std::size_t len) -> std::int64_t {
    std::int64_t n = 0;
    for (std::size_t i = from; i < from + len; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(date[i]))) return -1;
      n = n * 10 + (date[i] - '0');
    }
    return n;
  };
  const std::int64_t y = number(0, 4), m = number(5, 2), d = number(8, 2);
  if (y < 0 || m < 1 || m > 12 || d < 1) return std::nullopt;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const std::int64_t month_days = kDays[m - 1] + (m == 2 && leap(y) ? 1 : 0);
  if (d > month_days) return std::nullopt;
  // Howard Hinnant's days_from_civil.
  const std::int64_t yy = m <= 2 ? y - 1 : y;
  const std::int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
  const std::int64_t yoe = yy - era * 400;
  const std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CitationDates reference_dates(const Record& r) {
  if (r.kept_reference_dates) return *r.kept_reference_dates;
  CitationDates out;
  for (const auto& c : r.references) {
    if (date_to_days(c.as_of) && c.as_of > out.newest_as_of) {
      out.newest_as_of = c.as_of;
      out.newest_as_of_pos = c.pos;
    }
    for (const Str* d : {&c.date, &c.as_of}) {
      if (!date_to_days(*d)) continue;
      if (out.earliest.empty() || *d < out.earliest) out.earliest = *d;
      if (*d > out.latest) out.latest = *d;
    }
  }
  return out;
}

}  // namespace kb
