// Arithmetic built-ins. Integers wrap on overflow (two's complement, as Minigraf's
// wrapping_add); any float operand makes the result a float; a zero divisor or a NaN result is
// a row error.
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>

#include "engine/functions/builtin_calls.h"
#include "engine/functions/compare.h"
#include "engine/functions/integer_overflow.h"

namespace datalog::functions::calls {

namespace {

constexpr std::int64_t kMinInt = std::numeric_limits<std::int64_t>::min();

double as_double(const Value& v) {
  return v.is(ValueKind::Integer) ? static_cast<double>(v.as_integer()) : v.as_float();
}

CallResult float_result(double d) {
  if (std::isnan(d)) return CallResult::row_error();
  return CallResult::of(Value::floating(d));
}

// The shape shared by every binary operator: two integers use `on_ints`, two numbers with a
// float use `on_floats`, anything else is a row error.
template <typename OnInts, typename OnFloats>
CallResult binary_numeric(Args args, OnInts on_ints, OnFloats on_floats) {
  assert(args.size() == 2);
  const Value& a = args[0];
  const Value& b = args[1];
  if (!is_number(a) || !is_number(b)) return CallResult::row_error();
  if (a.is(ValueKind::Integer) && b.is(ValueKind::Integer)) {
    return on_ints(a.as_integer(), b.as_integer());
  }
  return on_floats(as_double(a), as_double(b));
}

template <typename OnInt, typename OnFloat>
CallResult unary_numeric(Args args, OnInt on_int, OnFloat on_float) {
  assert(args.size() == 1);
  const Value& a = args[0];
  if (a.is(ValueKind::Integer)) return CallResult::of(Value::integer(on_int(a.as_integer())));
  if (a.is(ValueKind::Float)) return float_result(on_float(a.as_float()));
  return CallResult::row_error();
}

CallResult int_result(std::int64_t i) { return CallResult::of(Value::integer(i)); }

// Clojure's mod: the remainder takes the divisor's sign.
template <typename T>
T floor_adjust(T r, T divisor) {
  if (r != 0 && ((r < 0) != (divisor < 0))) return r + divisor;
  return r;
}

}  // namespace

CallResult add(Args args) {
  return binary_numeric(
      args, [](std::int64_t a, std::int64_t b) { return int_result(wrapping_add(a, b)); },
      [](double a, double b) { return float_result(a + b); });
}

CallResult subtract(Args args) {
  if (args.size() == 1) {  // our extension: unary minus
    return unary_numeric(
        args, [](std::int64_t a) { return wrapping_sub(0, a); }, [](double a) { return -a; });
  }
  return binary_numeric(
      args, [](std::int64_t a, std::int64_t b) { return int_result(wrapping_sub(a, b)); },
      [](double a, double b) { return float_result(a - b); });
}

CallResult multiply(Args args) {
  return binary_numeric(
      args, [](std::int64_t a, std::int64_t b) { return int_result(wrapping_mul(a, b)); },
      [](double a, double b) { return float_result(a * b); });
}

CallResult divide(Args args) {
  return binary_numeric(
      args,
      [](std::int64_t a, std::int64_t b) {
        if (b == 0) return CallResult::row_error();
        if (a == kMinInt && b == -1) return int_result(kMinInt);  // wraps, as the other ops
        return int_result(a / b);                                 // C++ truncates toward zero
      },
      [](double a, double b) {
        if (b == 0.0 || std::isnan(b)) return CallResult::row_error();
        return float_result(a / b);
      });
}

CallResult abs(Args args) {
  return unary_numeric(
      args, [](std::int64_t a) { return a < 0 ? wrapping_sub(0, a) : a; },
      [](double a) { return std::fabs(a); });
}

CallResult inc(Args args) {
  return unary_numeric(
      args, [](std::int64_t a) { return wrapping_add(a, 1); }, [](double a) { return a + 1.0; });
}

CallResult dec(Args args) {
  return unary_numeric(
      args, [](std::int64_t a) { return wrapping_sub(a, 1); }, [](double a) { return a - 1.0; });
}

CallResult quot(Args args) {
  return binary_numeric(
      args,
      [](std::int64_t a, std::int64_t b) {
        if (b == 0) return CallResult::row_error();
        if (a == kMinInt && b == -1) return int_result(kMinInt);
        return int_result(a / b);
      },
      [](double a, double b) {
        if (b == 0.0) return CallResult::row_error();
        return float_result(std::trunc(a / b));
      });
}

CallResult rem(Args args) {
  return binary_numeric(
      args,
      [](std::int64_t a, std::int64_t b) {
        if (b == 0) return CallResult::row_error();
        if (b == -1) return int_result(0);  // avoids the undefined kMinInt % -1
        return int_result(a % b);
      },
      [](double a, double b) {
        if (b == 0.0) return CallResult::row_error();
        return float_result(std::fmod(a, b));
      });
}

CallResult mod(Args args) {
  return binary_numeric(
      args,
      [](std::int64_t a, std::int64_t b) {
        if (b == 0) return CallResult::row_error();
        if (b == -1) return int_result(0);
        return int_result(floor_adjust(a % b, b));
      },
      [](double a, double b) {
        if (b == 0.0) return CallResult::row_error();
        return float_result(floor_adjust(std::fmod(a, b), b));
      });
}

}  // namespace datalog::functions::calls
