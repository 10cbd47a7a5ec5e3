// Arithmetic built-ins. An integer result outside int64 fails the query, naming the call (Clojure
// and Datomic throw; Minigraf wraps); any float operand makes the result a float; a zero divisor
// or a NaN result is a row error.
#include <cassert>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <limits>

#include "engine/functions/builtin_calls.h"
#include "engine/functions/value_order.h"
#include "engine/functions/integer_overflow.h"

namespace datalog::functions::calls {

namespace {

constexpr std::int64_t kMinInt = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();

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
  if (a.is(ValueKind::Integer)) return on_int(a.as_integer());
  if (a.is(ValueKind::Float)) return float_result(on_float(a.as_float()));
  return CallResult::row_error();
}

CallResult int_result(std::int64_t i) { return CallResult::of(Value::integer(i)); }

CallResult overflow(const char* op, std::initializer_list<std::int64_t> args) {
  std::string call = std::string("(") + op;
  for (std::int64_t a : args) call += " " + std::to_string(a);
  return CallResult::query_error("integer overflow in " + call + ")");
}

// op applied with the compiler's overflow check (__builtin_add_overflow and friends).
template <bool (*Checked)(std::int64_t, std::int64_t, std::int64_t*)>
CallResult checked(const char* op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (Checked(a, b, &r)) return overflow(op, {a, b});
  return int_result(r);
}
bool add_overflows(std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_add_overflow(a, b, r); }
bool sub_overflows(std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_sub_overflow(a, b, r); }
bool mul_overflows(std::int64_t a, std::int64_t b, std::int64_t* r) { return __builtin_mul_overflow(a, b, r); }

// Clojure's mod: the remainder takes the divisor's sign.
template <typename T>
T floor_adjust(T r, T divisor) {
  if (r != 0 && ((r < 0) != (divisor < 0))) return r + divisor;
  return r;
}

}  // namespace

CallResult add(Args args) {
  return binary_numeric(
      args, [](std::int64_t a, std::int64_t b) { return checked<add_overflows>("+", a, b); },
      [](double a, double b) { return float_result(a + b); });
}

CallResult subtract(Args args) {
  if (args.size() == 1) {  // our extension: unary minus
    return unary_numeric(
        args, [](std::int64_t a) { return a == kMinInt ? overflow("-", {a}) : int_result(-a); },
        [](double a) { return -a; });
  }
  return binary_numeric(
      args, [](std::int64_t a, std::int64_t b) { return checked<sub_overflows>("-", a, b); },
      [](double a, double b) { return float_result(a - b); });
}

CallResult multiply(Args args) {
  return binary_numeric(
      args, [](std::int64_t a, std::int64_t b) { return checked<mul_overflows>("*", a, b); },
      [](double a, double b) { return float_result(a * b); });
}

CallResult divide(Args args) {
  return binary_numeric(
      args,
      [](std::int64_t a, std::int64_t b) {
        if (b == 0) return CallResult::row_error();
        if (a == kMinInt && b == -1) return overflow("/", {a, b});
        return int_result(a / b);  // C++ truncates toward zero
      },
      [](double a, double b) {
        if (b == 0.0 || std::isnan(b)) return CallResult::row_error();
        return float_result(a / b);
      });
}

CallResult abs(Args args) {
  return unary_numeric(
      args,
      [](std::int64_t a) {
        if (a == kMinInt) return overflow("abs", {a});
        return int_result(a < 0 ? -a : a);
      },
      [](double a) { return std::fabs(a); });
}

CallResult inc(Args args) {
  return unary_numeric(
      args, [](std::int64_t a) { return a == kMaxInt ? overflow("inc", {a}) : int_result(a + 1); },
      [](double a) { return a + 1.0; });
}

CallResult dec(Args args) {
  return unary_numeric(
      args, [](std::int64_t a) { return a == kMinInt ? overflow("dec", {a}) : int_result(a - 1); },
      [](double a) { return a - 1.0; });
}

CallResult quot(Args args) {
  return binary_numeric(
      args,
      [](std::int64_t a, std::int64_t b) {
        if (b == 0) return CallResult::row_error();
        if (a == kMinInt && b == -1) return overflow("quot", {a, b});
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
