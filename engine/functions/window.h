// engine/functions/window.h: window functions of `:find` over one partition (LANGUAGE.md §14).
//
// The evaluator splits rows into partitions, orders each one with window_sort_order (the
// order-by key under compare_for_order, stable, ascending or descending), and calls
// evaluate_window with the partition's rows in that order. Every row gets a value; nothing
// is collapsed.
//
// Semantics (Minigraf's):
//   sum count min max avg   cumulative, ROWS frame from the partition start to the current
//                           row, so tied rows get different running values.
//     sum     Integer while every number so far is an integer (exact, saturating), Float
//             once a float was seen; non-numbers are skipped; 0 before any number.
//     count   number of non-nil values so far.
//     min/max numbers compare numerically across integer and float, strings in byte order
//             (ours: instants in time order); a value that cannot be compared with the
//             current best is skipped; nil before any value.
//     avg     Float mean of the numbers so far; nil before any number.
//   rank        SQL RANK: rows whose order keys are equal share the first row's position;
//               the next distinct key jumps to its own position (1, 1, 3).
//   row-number  1..n in partition order.
// Our extensions:
//   dense-rank  as rank without gaps (1, 1, 2).
//   lag / lead  the argument of the previous / next row (offset 1); nil past the edge.
// The argument of an unbound variable is nil (the evaluator passes Value::nil()).
//
// Not window functions: count-distinct, sum-distinct (Minigraf's "not window-compatible"),
// and our median, variance, stddev.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/functions/value_order.h"
#include "engine/interruptible_sort.h"
#include "engine/large_buffer_allocator.h"
#include "engine/status.h"
#include "engine/value.h"

namespace datalog::functions {

enum class WindowFunction { Sum, Count, Min, Max, Avg, Rank, DenseRank, RowNumber, Lag, Lead };

std::optional<WindowFunction> find_window_function(std::string_view name);

// OK for a window function. Otherwise Minigraf's messages:
//   "'count-distinct' is not window-compatible and cannot be used with ':over'" for an
//   aggregate that has no window form, and "unknown window function 'x'" for anything else.
Status check_window_function(std::string_view name);

// False for rank, dense-rank and row-number, which are written without a ?var:
// (rank :over (...)).
bool window_function_takes_argument(WindowFunction fn);

// The permutation that orders a partition: result[i] is the index (into keys) of the row at
// position i. Stable, so rows with equal keys keep their incoming order. poll is called every
// few thousand comparisons; a status it returns stops the sort and is returned (*order is then
// unusable).
Status window_sort_order(std::span<const Value> keys, bool descending, const SortPoll& poll,
                         std::vector<std::size_t>* order);
std::vector<std::size_t> window_sort_order(std::span<const Value> keys, bool descending);

// One value per row, for rows already in window order. `order_keys` holds every row's
// order-by key and gives the row count; `args` holds the function's argument per row (same
// size), or is empty for rank, dense-rank and row-number.
ValueBuffer evaluate_window(WindowFunction fn, std::span<const Value> args,
                            std::span<const Value> order_keys);

}  // namespace datalog::functions
