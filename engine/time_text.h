// engine/time_text.h: ISO 8601 UTC timestamps <-> Unix milliseconds (LANGUAGE.md §12).
//
// Accepted: "YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z", "YYYY-MM-DD" (midnight UTC), and SQLite's text for a
// UTC time, "YYYY-MM-DD HH:MM:SS[.f{1,9}]" (what datetime('now') gives). Offsets are refused
// with Minigraf's message. Formatting always gives "YYYY-MM-DDTHH:MM:SS.sssZ" (24 characters for
// years 0000..9999), which sorts in time order as text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace datalog {

struct TimeParse {
  std::optional<std::int64_t> ms;  // set on success
  std::string error;               // Minigraf's wording on failure
};

TimeParse parse_instant(std::string_view text);
std::string format_instant(std::int64_t ms);
std::int64_t now_ms();

}  // namespace datalog
