// engine/functions/integer_overflow.h: int64 arithmetic that never overflows undefinedly.
// Expression arithmetic wraps (as Minigraf's wrapping_add); aggregate sums saturate (§14).
// Internal to engine/functions/.
#pragma once

#include <cstdint>
#include <limits>

namespace datalog::functions {

// Two's-complement wrapping, done in unsigned arithmetic where overflow is defined.
inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline std::int64_t wrapping_sub(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
inline std::int64_t wrapping_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}

// Clamps to the int64 bounds instead of wrapping.
inline std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max()
               : std::numeric_limits<std::int64_t>::min();
}

}  // namespace datalog::functions
