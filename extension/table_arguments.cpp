#include "extension/table_arguments.h"

#include <charconv>
#include <string_view>

#include <fmt/format.h>

#include "extension/index_path.h"

namespace datalog::ext {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\n')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

// SQL-style dequoting: 'a''b', "a", `a`, [a].
std::string dequote(std::string_view s) {
  s = trim(s);
  if (s.size() < 2) return std::string(s);
  const char open = s.front();
  const char close = open == '[' ? ']' : open;
  if ((open != '\'' && open != '"' && open != '`' && open != '[') || s.back() != close) {
    return std::string(s);
  }
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    out += s[i];
    if (s[i] == close && open != '[' && i + 2 < s.size() && s[i + 1] == close) ++i;
  }
  return out;
}

bool parse_number(std::string_view text, long long* out) {
  text = trim(text);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && ptr == text.data() + text.size() && *out >= 0;
}

}  // namespace

bool parse_store_arguments(sqlite3* db, const char* schema, const char* table, int argc,
                           const char* const* argv,
                           bool any_folder, StoreTableOptions* out, std::string* error) {
  std::string file;
  bool file_given = false;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = trim(argv[i]);
    const auto eq = arg.find('=');
    const bool quoted = !arg.empty() && (arg.front() == '\'' || arg.front() == '"');
    if (eq == std::string_view::npos || quoted) {
      if (i != 0 || file_given) {
        *error = fmt::format("unexpected argument {}: expected key=value (file, busy_timeout, "
                             "map_size_mb, max_results, max_derived_facts, max_memory_mb)", arg);
        return false;
      }
      file = dequote(arg);
      file_given = true;
      continue;
    }
    const std::string key(trim(arg.substr(0, eq)));
    const std::string value = dequote(arg.substr(eq + 1));
    long long number = 0;
    if (key == "file") {
      if (file_given) {
        *error = "the graph file is given twice";
        return false;
      }
      file = value;
      file_given = true;
    } else if (key == "busy_timeout") {
      // SQLite's own busy timeout is an int of milliseconds; so is ours (a larger one would
      // overflow the deadline and time out at once).
      constexpr long long kMaxBusyMs = 2147483647;
      if (!parse_number(value, &number) || number > kMaxBusyMs) {
        *error = fmt::format("busy_timeout must be a number of milliseconds from 0 to {}, got '{}'",
                             kMaxBusyMs, value);
        return false;
      }
      out->busy_timeout = std::chrono::milliseconds(number);
    } else if (key == "map_size_mb") {
      constexpr long long kMaxMapMiB = 1LL << 24;  // 16 TiB of address space
      if (!parse_number(value, &number) || number == 0 || number > kMaxMapMiB) {
        *error = fmt::format("map_size_mb must be a number from 1 to {}, got '{}'", kMaxMapMiB, value);
        return false;
      }
      out->map_bytes = static_cast<std::size_t>(number) << 20;
    } else if (key == "max_results" || key == "max_derived_facts") {
      if (!parse_number(value, &number)) {
        *error = fmt::format("{} must be a number of rows (0: no limit), got '{}'", key, value);
        return false;
      }
      (key == "max_results" ? out->max_results : out->max_derived_facts) = number;
    } else if (key == "max_memory_mb") {
      if (!parse_number(value, &number)) {
        *error = fmt::format("max_memory_mb must be a number of MiB (0: no limit), got '{}'", value);
        return false;
      }
      out->max_memory_mb = number;
    } else {
      *error = fmt::format("unknown argument '{}': expected file, busy_timeout, map_size_mb, "
                           "max_results, max_derived_facts or max_memory_mb",
                           key);
      return false;
    }
  }
  if (file_given && file.empty()) {
    *error = "the graph file name is empty";
    return false;
  }
  return resolve_graph_path(db, schema, table, file, any_folder, &out->path, error);
}

}  // namespace datalog::ext
