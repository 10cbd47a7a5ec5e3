// engine/functions/integer_overflow.h: int64 arithmetic that never overflows undefinedly.
// Expression arithmetic fails the query on overflow (Minigraf wraps; a wrapped number is a wrong
// answer that looks right); aggregate sums saturate (§14). Internal to engine/functions/.
#pragma once

#include <cstdint>
#include <limits>

namespace datalog::functions {

// Clamps to the int64 bounds instead of wrapping.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

}  // namespace datalog::functions
