// extension/io/json_line.h: one JSON value from one line of a JSON Lines file, and JSON text out.
//
// A small reader of RFC 8259 JSON (objects, arrays, strings with every escape, numbers, true,
// false, null), nested at most kMaxDepth deep. Numbers keep their text, so an integer reads as
// a 64-bit integer exactly and a number with '.', 'e' or 'E' as a float.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace datalog::ext::io {

struct JsonMember;

struct Json {
  enum class Kind { Null, Boolean, Number, String, Array, Object } kind = Kind::Null;
  bool boolean = false;
  std::string text;  // String: decoded; Number: as written
  std::vector<Json> items;                              // Array
  // A struct, not std::pair: a vector of an incomplete class is allowed, a pair of one is not
  // (clang with libstdc++ refuses it).
  std::vector<JsonMember> members;  // Object, in order

  const Json* member(std::string_view key) const;
};

struct JsonMember {
  std::string key;
  Json value;
};

inline const Json* Json::member(std::string_view key) const {
  for (const auto& [k, v] : members) {
    if (k == key) return &v;
  }
  return nullptr;
}

inline constexpr int kMaxJsonDepth = 64;

// Parses text as one JSON value; false with *error (naming the column) when it is not.
bool parse_json(std::string_view text, Json* out, std::string* error);

// A JSON string literal for s (escaping quotes, backslashes and control characters).
std::string json_string(std::string_view s);

}  // namespace datalog::ext::io
