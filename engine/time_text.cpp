#include "engine/time_text.h"

#include <cctype>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

namespace datalog {

namespace {

bool read_digits(std::string_view text, std::size_t pos, std::size_t count, int& out) {
  if (pos + count > text.size()) return false;
  int value = 0;
  for (std::size_t i = pos; i < pos + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    value = value * 10 + (text[i] - '0');
  }
  out = value;
  return true;
}

std::int64_t days_since_epoch(int y, int m, int d) {
  using namespace std::chrono;
  const sys_days days{year{y} / month{static_cast<unsigned>(m)} / day{static_cast<unsigned>(d)}};
  return days.time_since_epoch().count();
}

bool valid_date(int y, int m, int d) {
  using namespace std::chrono;
  return year_month_day{year{y} / month{static_cast<unsigned>(m)} / day{static_cast<unsigned>(d)}}
      .ok();
}

}  // namespace

TimeParse parse_instant(std::string_view text) {
  TimeParse result;
  const bool has_offset = text.find('+') != std::string_view::npos ||
                          (text.size() > 10 && text.substr(10).find('-') != std::string_view::npos);
  if (has_offset) {
    result.error = fmt::format(
        "timezone offsets are not supported; use UTC (Z) timestamps only, got '{}'", text);
    return result;
  }
  int y = 0, mo = 0, d = 0;
  const bool date_ok = read_digits(text, 0, 4, y) && text.size() >= 10 && text[4] == '-' &&
                       read_digits(text, 5, 2, mo) && text[7] == '-' && read_digits(text, 8, 2, d) &&
                       valid_date(y, mo, d);
  if (text.size() == 10) {
    if (!date_ok) {
      result.error = fmt::format("invalid date '{}'", text);
      return result;
    }
    result.ms = days_since_epoch(y, mo, d) * 86'400'000;
    return result;
  }
  int h = 0, mi = 0, s = 0;
  // ISO 8601 in UTC ("2020-06-01T12:00:00Z"), or SQLite's own text for a UTC time, as
  // datetime('now') gives it ("2020-06-01 12:00:00", with no Z).
  const bool sqlite_form = text.size() > 10 && text[10] == ' ';
  const std::size_t zone = sqlite_form ? 0 : 1;  // the length of the trailing Z
  bool ok = date_ok && text.size() >= 19 + zone && (text[10] == 'T' || sqlite_form) &&
            read_digits(text, 11, 2, h) && text[13] == ':' && read_digits(text, 14, 2, mi) &&
            text[16] == ':' && read_digits(text, 17, 2, s) && h < 24 && mi < 60 && s < 60 &&
            (sqlite_form ? std::isdigit(static_cast<unsigned char>(text.back())) : text.back() == 'Z');
  std::int64_t millis = 0;
  if (ok && text.size() > 19 + zone) {
    // Optional fraction: '.' then 1..9 digits, kept to millisecond precision.
    const std::string_view frac = text.substr(19, text.size() - 19 - zone);
    ok = frac.size() >= 2 && frac.size() <= 10 && frac[0] == '.';
    for (std::size_t i = 1; ok && i < frac.size(); ++i) {
      if (frac[i] < '0' || frac[i] > '9') ok = false;
      if (ok && i <= 3) millis += (frac[i] - '0') * (i == 1 ? 100 : i == 2 ? 10 : 1);
    }
  }
  if (!ok) {
    result.error = fmt::format("invalid UTC timestamp '{}'", text);
    return result;
  }
  result.ms = days_since_epoch(y, mo, d) * 86'400'000 + (h * 3600 + mi * 60 + s) * 1000LL + millis;
  return result;
}

std::string format_instant(std::int64_t ms) {
  using namespace std::chrono;
  // Split into days and time of day with integer arithmetic: floor<days> on the time point would
  // overflow converting the day back to milliseconds for instants within a day of INT64_MIN.
  constexpr std::int64_t kDayMs = 86'400'000;
  std::int64_t day = ms / kDayMs;
  std::int64_t in_day = ms % kDayMs;
  if (in_day < 0) {
    in_day += kDayMs;
    --day;
  }
  const year_month_day ymd{sys_days{days{day}}};
  const auto h = in_day / 3'600'000;
  const auto mi = in_day / 60'000 % 60;
  const auto s = in_day / 1'000 % 60;
  const auto milli = in_day % 1000;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), h, mi, s,
                     milli);
}

std::int64_t now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace datalog
