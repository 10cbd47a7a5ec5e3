// engine/functions/number_sum.h: the running sum shared by the `sum` aggregate and the `sum`
// window function. Internal to engine/functions/.
//
// Integers are summed exactly (saturating) and, alongside, every number is summed as a double
// in row order. The value is the exact integer sum while only integers were seen, and the
// double sum (Minigraf's left-to-right f64 sum) once a float was seen.
#pragma once

#include <cstdint>

#include "engine/functions/integer_overflow.h"
#include "engine/value.h"

namespace datalog::functions {

class NumberSum {
 public:
  // Adds v if it is a number; returns false (and adds nothing) otherwise.
  bool add(const Value& v) {
    if (v.is(ValueKind::Integer)) {
      int_sum_ = saturating_add(int_sum_, v.as_integer());
      float_sum_ += static_cast<double>(v.as_integer());
      return true;
    }
    if (v.is(ValueKind::Float)) {
      float_sum_ += v.as_float();
      any_float_ = true;
      return true;
    }
    return false;
  }

  Value value() const {
    return any_float_ ? Value::floating(float_sum_) : Value::integer(int_sum_);
  }

 private:
  std::int64_t int_sum_ = 0;
  double float_sum_ = 0.0;
  bool any_float_ = false;
};

}  // namespace datalog::functions
