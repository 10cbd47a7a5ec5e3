// engine/functions/value_order.h: how two Values compare, for predicates, aggregates and sorting.
//
// Three relations, each with one job:
//   - compare_for_predicate: the `<` `>` `<=` `>=` built-ins (LANGUAGE.md §8). Numbers compare
//     numerically across integer and float, strings in byte order, instants in time order
//     (our extension: Datomic users compare dates with `<`). Any other pair is a type error.
//   - less_for_window: window `min`/`max` (§14): the same relation, but an incomparable pair is
//     simply "not less", as Minigraf's value_lt.
//   - compare_for_order: sorting a window partition by its order key. It refines the
//     predicate order into a total order, so std::sort is well defined for any input and
//     "equal" means "structurally equal" (what `rank` calls a tie).
//
// Integer/float comparisons are exact (no rounding of the integer to a double), so the order
// stays transitive beyond 2^53; Minigraf rounds, which only differs for |x| > 2^53.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>

#include "engine/value.h"

namespace datalog::functions {

// Exact comparison of an integer with a double; unordered iff d is NaN.
std::partial_ordering compare_int_double(std::int64_t i, double d);

// Both values Integer or Float.
bool is_number(const Value& v);

// nullopt: the pair cannot be compared (a row error for `<`). unordered: a NaN is involved
// (every comparison is false).
std::optional<std::partial_ordering> compare_for_predicate(const Value& a, const Value& b);

// a < b under compare_for_predicate; false when the pair is incomparable.
bool less_for_window(const Value& a, const Value& b);

// A total order: strings (byte order) < numbers (numeric; on a numeric tie an integer sorts
// before a float; NaN last) < every other kind, by the Value order (value.h). equivalent iff
// a == b.
std::weak_ordering compare_for_order(const Value& a, const Value& b);

}  // namespace datalog::functions
