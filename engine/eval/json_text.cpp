#include "engine/eval/json_text.h"

#include <cmath>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "engine/uuid_text.h"

namespace datalog::eval {

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

void append_json_float(std::string& out, double d) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  // The shortest text that reads back as d, kept a float: JSON's "1" would come back INTEGER.
  std::string text = fmt::format("{}", d);
  const std::size_t exp = text.find_first_of("eE");
  if (text.find('.') == std::string::npos) {
    text.insert(exp == std::string::npos ? text.size() : exp, ".0");
  }
  out += text;
}

void append_json_scalar(std::string& out, const Value& v) {
  switch (v.kind()) {
    case ValueKind::String: append_json_string(out, v.as_string()); return;
    case ValueKind::Integer: out += fmt::format("{}", v.as_integer()); return;
    case ValueKind::Float: append_json_float(out, v.as_float()); return;
    case ValueKind::Boolean: out += v.as_boolean() ? "true" : "false"; return;
    case ValueKind::Keyword: append_json_string(out, v.as_keyword()); return;
    case ValueKind::Instant: append_json_string(out, format_instant(v.as_instant())); return;
    case ValueKind::Uuid: append_json_string(out, format_uuid(v.as_uuid())); return;
    case ValueKind::Bytes: {
      std::string hex;
      hex.reserve(v.as_bytes().size() * 2);
      for (unsigned char c : v.as_bytes()) hex += fmt::format("{:02x}", c);
      append_json_string(out, hex);
      return;
    }
    case ValueKind::Ref: out += fmt::format("{}", v.as_ref()); return;  // callers name entities
    case ValueKind::Nil: out += "null"; return;
  }
}

}  // namespace datalog::eval
