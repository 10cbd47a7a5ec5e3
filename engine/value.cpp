#include "engine/value.h"

#include <cmath>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "engine/uuid_text.h"

namespace datalog {

std::string_view kind_name(ValueKind kind) {
  switch (kind) {
    case ValueKind::String: return "string";
    case ValueKind::Integer: return "integer";
    case ValueKind::Float: return "float";
    case ValueKind::Boolean: return "boolean";
    case ValueKind::Instant: return "instant";
    case ValueKind::Ref: return "ref";
    case ValueKind::Uuid: return "uuid";
    case ValueKind::Keyword: return "keyword";
    case ValueKind::Bytes: return "bytes";
    case ValueKind::Nil: return "nil";
  }
  return "unknown";
}

namespace {

// Floats order numerically with -0.0 == 0.0; NaN (never stored) sorts after everything.
std::strong_ordering compare_floats(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) {
    return std::isnan(a) == std::isnan(b) ? std::strong_ordering::equal
           : std::isnan(a)                ? std::strong_ordering::greater
                                          : std::strong_ordering::less;
  }
  if (a < b) return std::strong_ordering::less;
  if (a > b) return std::strong_ordering::greater;
  return std::strong_ordering::equal;
}

std::string escaped(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string format_float(double d) {
  if (std::isnan(d)) return "##NaN";
  if (std::isinf(d)) return d > 0 ? "##Inf" : "##-Inf";
  // The shortest text that reads back as d; always with a '.', as the dialect writes floats.
  std::string text = fmt::format("{}", d);
  if (text.find_first_of("e") != std::string::npos) text = fmt::format("{:.17f}", d);
  if (text.find('.') == std::string::npos) text += ".0";
  if (text.find('.') != std::string::npos && text.size() > 2) {
    while (text.back() == '0' && text[text.size() - 2] != '.') text.pop_back();
  }
  return text;
}

std::strong_ordering Value::operator<=>(const Value& other) const {
  if (v_.index() != other.v_.index()) return v_.index() <=> other.v_.index();
  if (kind() == ValueKind::Float) return compare_floats(as_float(), other.as_float());
  return std::visit(
      [&](const auto& a) -> std::strong_ordering {
        using T = std::decay_t<decltype(a)>;
        const T& b = std::get<T>(other.v_);
        if constexpr (std::is_same_v<T, double>) {
          return compare_floats(a, b);
        } else {
          return a <=> b;
        }
      },
      v_);
}

std::string Value::to_edn() const {
  switch (kind()) {
    case ValueKind::String: return escaped(as_string());
    case ValueKind::Integer: return fmt::format("{}", as_integer());
    case ValueKind::Float: return format_float(as_float());
    case ValueKind::Boolean: return as_boolean() ? "true" : "false";
    case ValueKind::Instant: return fmt::format("#inst \"{}\"", format_instant(as_instant()));
    case ValueKind::Ref: return fmt::format("#ref {}", as_ref());
    case ValueKind::Uuid: return fmt::format("#uuid \"{}\"", format_uuid(as_uuid()));
    case ValueKind::Keyword: return as_keyword();
    case ValueKind::Bytes: {
      std::string hex;
      for (unsigned char c : as_bytes()) hex += fmt::format("{:02x}", c);
      return fmt::format("#bytes \"{}\"", hex);
    }
    case ValueKind::Nil: return "nil";
  }
  return "?";
}

}  // namespace datalog
