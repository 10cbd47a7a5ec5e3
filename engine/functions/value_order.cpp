#include "engine/functions/value_order.h"

#include <cmath>

namespace datalog::functions {

namespace {

// 2^63 as a double: the first double above every int64.
constexpr double kTwoPow63 = 9223372036854775808.0;

std::partial_ordering compare_doubles(double a, double b) { return a <=> b; }

// Numeric comparison of two numbers (Integer or Float), exact across kinds.
std::partial_ordering compare_numbers(const Value& a, const Value& b) {
  const bool a_int = a.is(ValueKind::Integer);
  const bool b_int = b.is(ValueKind::Integer);
  if (a_int && b_int) return a.as_integer() <=> b.as_integer();
  if (a_int) return compare_int_double(a.as_integer(), b.as_float());
  if (b_int) {
    // Flip the integer-first comparison.
    const std::partial_ordering r = compare_int_double(b.as_integer(), a.as_float());
    if (r == std::partial_ordering::less) return std::partial_ordering::greater;
    if (r == std::partial_ordering::greater) return std::partial_ordering::less;
    return r;
  }
  return compare_doubles(a.as_float(), b.as_float());
}

// The order classes of compare_for_order: strings, then all numbers together, then the rest
// in kind order. Integer and Float are adjacent kinds, so this agrees with the Value order
// between classes.
int order_class(const Value& v) {
  if (v.is(ValueKind::Float)) return static_cast<int>(ValueKind::Integer);
  return static_cast<int>(v.kind());
}

std::weak_ordering to_weak(std::strong_ordering o) {
  if (o < 0) return std::weak_ordering::less;
  if (o > 0) return std::weak_ordering::greater;
  return std::weak_ordering::equivalent;
}

}  // namespace

std::partial_ordering compare_int_double(std::int64_t i, double d) {
  if (std::isnan(d)) return std::partial_ordering::unordered;
  if (d >= kTwoPow63) return std::partial_ordering::less;
  if (d < -kTwoPow63) return std::partial_ordering::greater;
  // -2^63 <= trunc(d) < 2^63, so the conversion is exact and defined.
  const double whole = std::trunc(d);
  const auto whole_int = static_cast<std::int64_t>(whole);
  if (i != whole_int) return i <=> whole_int;
  // Same integral part: the fractional part of d decides.
  if (d > whole) return std::partial_ordering::less;
  if (d < whole) return std::partial_ordering::greater;
  return std::partial_ordering::equivalent;
}

bool is_number(const Value& v) { return v.is(ValueKind::Integer) || v.is(ValueKind::Float); }

std::optional<std::partial_ordering> compare_for_predicate(const Value& a, const Value& b) {
  if (is_number(a) && is_number(b)) return compare_numbers(a, b);
  if (a.is(ValueKind::String) && b.is(ValueKind::String)) {
    return a.as_string() <=> b.as_string();  // char_traits<char> compares as unsigned bytes
  }
  if (a.is(ValueKind::Instant) && b.is(ValueKind::Instant)) {
    return a.as_instant() <=> b.as_instant();
  }
  return std::nullopt;
}

bool less_for_window(const Value& a, const Value& b) {
  const std::optional<std::partial_ordering> o = compare_for_predicate(a, b);
  return o.has_value() && *o == std::partial_ordering::less;
}

std::weak_ordering compare_for_order(const Value& a, const Value& b) {
  const int ca = order_class(a);
  const int cb = order_class(b);
  if (ca != cb) return ca <=> cb;
  if (!is_number(a)) return to_weak(a <=> b);

  const bool a_nan = a.is(ValueKind::Float) && std::isnan(a.as_float());
  const bool b_nan = b.is(ValueKind::Float) && std::isnan(b.as_float());
  if (a_nan || b_nan) {
    if (a_nan && b_nan) return std::weak_ordering::equivalent;
    return a_nan ? std::weak_ordering::greater : std::weak_ordering::less;
  }
  const std::partial_ordering numeric = compare_numbers(a, b);
  if (numeric == std::partial_ordering::less) return std::weak_ordering::less;
  if (numeric == std::partial_ordering::greater) return std::weak_ordering::greater;
  // Numerically equal: 1 sorts before 1.0, so equivalence is structural equality.
  return static_cast<int>(a.kind()) <=> static_cast<int>(b.kind());
}

}  // namespace datalog::functions
