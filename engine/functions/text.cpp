// String built-ins: Minigraf's starts-with? ends-with? contains?, and our Clojure-style str,
// subs, count, upper-case, lower-case. Strings are UTF-8; positions and lengths count Unicode
// code points (a byte that is not a UTF-8 continuation byte starts a code point), so a user
// never splits a character.
#include <fmt/format.h>

#include <cassert>
#include <string>
#include <string_view>
#include <vector>

#include "engine/functions/builtin_calls.h"
#include "engine/time_text.h"
#include "engine/uuid_text.h"

namespace datalog::functions::calls {

namespace {

bool starts_code_point(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

std::size_t code_point_count(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) n += starts_code_point(c) ? 1 : 0;
  return n;
}

// Byte offset of every code point, plus s.size() at the end: offsets[i] starts code point i.
std::vector<std::size_t> code_point_offsets(std::string_view s) {
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (starts_code_point(s[i])) offsets.push_back(i);
  }
  offsets.push_back(s.size());
  return offsets;
}

// A float always shows it is one ("1.0", not "1"), as Clojure prints it.
std::string print_float(double d) {
  std::string text = fmt::format("{}", d);
  if (text.find_first_not_of("-0123456789") == std::string::npos) text += ".0";
  return text;
}

// What `str` appends for one value.
std::string print_for_str(const Value& v) {
  switch (v.kind()) {
    case ValueKind::String:
      return v.as_string();
    case ValueKind::Nil:
      return "";
    case ValueKind::Float:
      return print_float(v.as_float());
    case ValueKind::Instant:
      return format_instant(v.as_instant());
    case ValueKind::Uuid:
      return format_uuid(v.as_uuid());
    case ValueKind::Ref:
      return fmt::format("{}", v.as_ref());
    default:
      return v.to_edn();  // integers, booleans, keywords, bytes
  }
}

template <typename Test>
CallResult string_pair(Args args, Test test) {
  assert(args.size() == 2);
  if (!args[0].is(ValueKind::String) || !args[1].is(ValueKind::String)) {
    return CallResult::row_error();
  }
  return CallResult::of(Value::boolean(
      test(std::string_view(args[0].as_string()), std::string_view(args[1].as_string()))));
}

// ASCII-only case mapping: multi-byte UTF-8 sequences pass through untouched.
template <typename MapChar>
CallResult map_ascii(Args args, MapChar map_char) {
  assert(args.size() == 1);
  if (!args[0].is(ValueKind::String)) return CallResult::row_error();
  std::string out = args[0].as_string();
  for (char& c : out) c = map_char(c);
  return CallResult::of(Value::string(std::move(out)));
}

}  // namespace

CallResult starts_with(Args args) {
  return string_pair(args, [](std::string_view s, std::string_view p) { return s.starts_with(p); });
}
CallResult ends_with(Args args) {
  return string_pair(args, [](std::string_view s, std::string_view p) { return s.ends_with(p); });
}
CallResult contains(Args args) {
  return string_pair(args, [](std::string_view s, std::string_view p) {
    return s.find(p) != std::string_view::npos;
  });
}

CallResult str(Args args) {
  std::string out;
  for (const Value& v : args) out += print_for_str(v);
  return CallResult::of(Value::string(std::move(out)));
}

// (subs s start) or (subs s start end): 0 <= start <= end <= length, else a row error.
CallResult subs(Args args) {
  assert(args.size() == 2 || args.size() == 3);
  if (!args[0].is(ValueKind::String) || !args[1].is(ValueKind::Integer)) {
    return CallResult::row_error();
  }
  if (args.size() == 3 && !args[2].is(ValueKind::Integer)) return CallResult::row_error();
  const std::string& s = args[0].as_string();
  const std::vector<std::size_t> offsets = code_point_offsets(s);
  const auto length = static_cast<std::int64_t>(offsets.size() - 1);
  const std::int64_t start = args[1].as_integer();
  const std::int64_t end = args.size() == 3 ? args[2].as_integer() : length;
  if (start < 0 || end < start || end > length) return CallResult::row_error();
  const std::size_t from = offsets[static_cast<std::size_t>(start)];
  const std::size_t to = offsets[static_cast<std::size_t>(end)];
  return CallResult::of(Value::string(s.substr(from, to - from)));
}

// Clojure's count, for the scalar kinds we have: nil counts 0.
CallResult count(Args args) {
  assert(args.size() == 1);
  const Value& v = args[0];
  switch (v.kind()) {
    case ValueKind::String:
      return CallResult::of(
          Value::integer(static_cast<std::int64_t>(code_point_count(v.as_string()))));
    case ValueKind::Bytes:
      return CallResult::of(Value::integer(static_cast<std::int64_t>(v.as_bytes().size())));
    case ValueKind::Nil:
      return CallResult::of(Value::integer(0));
    default:
      return CallResult::row_error();
  }
}

CallResult upper_case(Args args) {
  return map_ascii(args, [](char c) { return (c >= 'a' && c <= 'z') ? char(c - 'a' + 'A') : c; });
}
CallResult lower_case(Args args) {
  return map_ascii(args, [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; });
}

}  // namespace datalog::functions::calls
