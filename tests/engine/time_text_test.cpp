// ISO 8601 UTC timestamps <-> Unix milliseconds (engine/time_text.h, LANGUAGE.md §12).
#include "engine/time_text.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

namespace datalog {
namespace {

constexpr std::int64_t kDayMs = 86'400'000;
constexpr std::int64_t kYear0Ms = -62'167'219'200'000;        // 0000-01-01T00:00:00.000Z
constexpr std::int64_t kYear9999EndMs = 253'402'300'799'999;  // 9999-12-31T23:59:59.999Z
constexpr char kOffsetError[] = "timezone offsets are not supported; use UTC (Z) timestamps only";

std::int64_t parsed(const std::string& text) {
  const TimeParse p = parse_instant(text);
  INFO("parsing '" << text << "': " << p.error);
  REQUIRE(p.ms.has_value());
  CHECK(p.error.empty());
  return *p.ms;
}

std::string parse_error(const std::string& text) {
  const TimeParse p = parse_instant(text);
  INFO("parsing '" << text << "'");
  CHECK_FALSE(p.ms.has_value());
  return p.error;
}

TEST_CASE("parse_instant: known instants, with and without fractions", "[time_text]") {
  CHECK(parsed("1970-01-01T00:00:00Z") == 0);
  CHECK(parsed("2024-01-01T00:00:00Z") == 1'704'067'200'000);
  CHECK(parsed("2000-02-29T12:34:56.789Z") == 951'827'696'789);
  CHECK(parsed("9999-12-31T23:59:59.999Z") == kYear9999EndMs);
  CHECK(parsed("0000-01-01T00:00:00Z") == kYear0Ms);

  // Date-only form: midnight UTC.
  CHECK(parsed("2024-01-01") == 1'704'067'200'000);
  CHECK(parsed("2000-02-29") == 951'782'400'000);
  CHECK(parsed("1970-01-01") == 0);

  // Fractions: one to nine digits, kept to the millisecond (truncated, not rounded).
  CHECK(parsed("1970-01-01T00:00:01.5Z") == 1'500);
  CHECK(parsed("1970-01-01T00:00:01.12Z") == 1'120);
  CHECK(parsed("1970-01-01T00:00:01.123Z") == 1'123);
  CHECK(parsed("1970-01-01T00:00:01.1239Z") == 1'123);
  CHECK(parsed("1970-01-01T00:00:01.999999999Z") == 1'999);
  CHECK(parsed("1970-01-01T00:00:01.000000001Z") == 1'000);
}

TEST_CASE("parse_instant and format_instant before 1970", "[time_text]") {
  CHECK(parsed("1969-12-31T23:59:59.999Z") == -1);
  CHECK(parsed("1969-12-31T23:59:59.5Z") == -500);
  CHECK(parsed("1969-12-31") == -kDayMs);
  CHECK(parsed("1969-07-20T20:17:40Z") == -14'182'940'000);
  CHECK(parsed("1900-01-01") == -2'208'988'800'000);
  CHECK(format_instant(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(format_instant(-500) == "1969-12-31T23:59:59.500Z");
  CHECK(format_instant(-kDayMs) == "1969-12-31T00:00:00.000Z");
  CHECK(format_instant(-kDayMs - 1) == "1969-12-30T23:59:59.999Z");
  CHECK(format_instant(-2'208'988'800'000) == "1900-01-01T00:00:00.000Z");
  CHECK(format_instant(kYear0Ms) == "0000-01-01T00:00:00.000Z");
}

TEST_CASE("format_instant: fixed 24-character form", "[time_text]") {
  CHECK(format_instant(0) == "1970-01-01T00:00:00.000Z");
  CHECK(format_instant(1) == "1970-01-01T00:00:00.001Z");
  CHECK(format_instant(951'827'696'789) == "2000-02-29T12:34:56.789Z");
  CHECK(format_instant(kYear9999EndMs) == "9999-12-31T23:59:59.999Z");
}

TEST_CASE("format_instant: the extreme instants keep their time of day (no overflow)",
          "[time_text]") {
  // Any i64 can be stored as an instant; years out of 0000..9999 have no ISO form, but
  // formatting them (for messages) must not overflow. The time of day is still exact.
  const std::string min = format_instant(std::numeric_limits<std::int64_t>::min());
  const std::string max = format_instant(std::numeric_limits<std::int64_t>::max());
  REQUIRE(min.size() >= 13);
  REQUIRE(max.size() >= 13);
  CHECK(min.substr(min.size() - 13) == "16:47:04.192Z");
  CHECK(max.substr(max.size() - 13) == "07:12:55.807Z");
}

TEST_CASE("format then parse is the identity over years 0000..9999, text sorts as time",
          "[time_text]") {
  std::mt19937_64 rng(0x7137);
  std::uniform_int_distribution<std::int64_t> any_ms(kYear0Ms, kYear9999EndMs);
  std::uniform_int_distribution<std::int64_t> near_epoch(-3 * kDayMs, 3 * kDayMs);
  std::int64_t previous = 0;
  std::string previous_text = format_instant(0);
  for (int i = 0; i < 3000; ++i) {
    const std::int64_t ms = i % 3 == 0 ? near_epoch(rng) : any_ms(rng);
    const std::string text = format_instant(ms);
    INFO(ms << " -> " << text);
    CHECK(text.size() == 24);
    CHECK(parsed(text) == ms);
    // The date-only form of the same day is that day's midnight.
    const std::int64_t midnight = ms - ((ms % kDayMs) + kDayMs) % kDayMs;
    CHECK(parsed(text.substr(0, 10)) == midnight);
    CHECK((previous < ms) == (previous_text < text));
    previous = ms;
    previous_text = text;
  }
}

TEST_CASE("parse_instant reads SQLite's own UTC text as datetime() gives it", "[time_text]") {
  CHECK(parsed("2026-12-04 18:18:20") == parsed("2026-12-04T18:18:20Z"));
  CHECK(parsed("2026-12-04 18:18:20.123") == parsed("2026-12-04T18:18:20.123Z"));
  CHECK(parsed("1970-01-01 00:00:00") == 0);
  for (const char* bad : {"2026-12-04 18:18:20Z", "2026-12-04 18:18", "2026-12-04 24:00:00",
                          "2026-12-04 18:18:20.", "2026-12-04  18:18:20"}) {
    INFO("input '" << bad << "'");
    CHECK(parse_error(bad) == std::string("invalid UTC timestamp '") + bad + "'");
  }
}

TEST_CASE("parse_instant refuses invalid dates and times", "[time_text]") {
  CHECK(parse_error("2023-02-29") == "invalid date '2023-02-29'");  // not a leap year
  CHECK(parse_error("2023-04-31") == "invalid date '2023-04-31'");
  CHECK(parse_error("2023-13-01") == "invalid date '2023-13-01'");
  CHECK(parse_error("2023-00-10") == "invalid date '2023-00-10'");
  CHECK(parse_error("2023-01-00") == "invalid date '2023-01-00'");
  CHECK(parse_error("2023/01/01") == "invalid date '2023/01/01'");
  CHECK(parse_error("2023-02-29T00:00:00Z") == "invalid UTC timestamp '2023-02-29T00:00:00Z'");
  CHECK(parse_error("1900-02-29") == "invalid date '1900-02-29'");
  CHECK(parsed("2000-02-29") == 951'782'400'000);  // divisible by 400: a leap year

  for (const char* bad :
       {"2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z",
        "2024-01-01T00:00:00", "2024-01-01 00:00:00Z", "2024-01-01T00:00Z", "2024-01-01T00:00:00.Z",
        "2024-01-01T00:00:00.1234567890Z", "2024-01-01T00:00:00.12aZ", "2024-01-01T00:00:00z",
        "2024-01-01T00:00:00ZZ", "2024-1-01T00:00:00Z", "", "2024", "x"}) {
    INFO("input '" << bad << "'");
    CHECK(parse_error(bad) == std::string("invalid UTC timestamp '") + bad + "'");
  }
}

TEST_CASE("parse_instant refuses timezone offsets with Minigraf's message", "[time_text]") {
  for (const char* offset :
       {"2024-01-01T00:00:00+01:00", "2024-01-01T00:00:00-05:00", "2024-01-01T00:00:00.123+00:00",
        "2024-01-01T00:00:00-00:00", "+2024-01-01"}) {
    INFO("input '" << offset << "'");
    const std::string error = parse_error(offset);
    CHECK(error.rfind(kOffsetError, 0) == 0);
    CHECK(error == std::string(kOffsetError) + ", got '" + offset + "'");
  }
  // A '-' inside the date part is not an offset.
  CHECK(parsed("2024-06-15T12:00:00Z") == 1'718'452'800'000);
}

}  // namespace
}  // namespace datalog
