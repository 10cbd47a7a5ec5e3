// engine/functions/aggregates.h: the aggregates of `:find` (LANGUAGE.md §14).
//
// One Accumulator per (group, aggregate). The evaluator feeds it the group's values in row
// order, nil included (the accumulator skips nil, as every aggregate does), then calls
// finish() once. add() and finish() return a query error (a Status, never a row drop):
// "Aggregate type errors ... fail the whole query".
//
// Rules (Minigraf's, then ours):
//   count           Integer count of the non-nil values.
//   count-distinct  Integer count of distinct values; distinct means structurally different
//                   (1 and 1.0 are two values).
//   sum             Integer if every value is an integer, saturating at the int64 bounds;
//                   Float if any value is a float (summed in row order as doubles).
//                   Anything else: "sum: expected Integer, Float, or Null, got String".
//                   An all-nil group sums to 0.
//   sum-distinct    sum over the distinct values (ascending value order, as Minigraf's
//                   BTreeSet; the first offending kind in that order names the error).
//   min / max       integers, floats or strings (ours: also instants); every value of a group
//                   must be of the same kind: "min: cannot compare Integer and Float values"
//                   (reported at the first value whose kind differs from the group's first);
//                   a group of another kind: "min: expected Integer, Float, String, or Null,
//                   got Boolean". An all-nil group has no min: finish() gives nullopt and the
//                   evaluator drops the group.
// Our extensions (header rule 3): numbers only, else "avg: expected Integer, Float, or Null,
// got String" (same wording as sum); Float results; an all-nil group gives nil (SQL's AVG;
// Minigraf's window avg does the same):
//   avg             arithmetic mean (sum in row order as doubles / count).
//   median          middle value; the mean of the two middle values for an even count.
//   variance        POPULATION variance (divide by n), as Datomic's and DataScript's
//                   `variance`; one value gives 0.0. Computed with Welford's method.
//   stddev          square root of the population variance.
//
// Empty input is the evaluator's rule, with zero_row_on_empty_input: with no grouping
// variables and only count/count-distinct specs, an empty input gives one row of zeros;
// otherwise no rows.
//
// Distinct tracking is an ordered set: O(n log n) time, O(distinct) memory.
// Thread safety: an Accumulator is used by one thread; the factory functions are pure.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "engine/status.h"
#include "engine/value.h"

namespace datalog::functions {

class Accumulator {
 public:
  virtual ~Accumulator() = default;
  // Folds in one value of the group; nil is skipped.
  virtual Status add(const Value& v) = 0;
  // The group's result; nullopt drops the group (min/max of an all-nil group). Call once.
  virtual Status finish(std::optional<Value>* out) = 0;
};

// A fresh accumulator for the aggregate `name`, or nullptr when the name is unknown.
std::unique_ptr<Accumulator> make_aggregate(std::string_view name);

bool is_known_aggregate(std::string_view name);

// "unknown aggregate function: 'x'" (Minigraf raises it only when a group has rows).
Status unknown_aggregate_error(std::string_view name);

// True for count and count-distinct: the aggregates that give a row of zeros on empty input.
bool zero_row_on_empty_input(std::string_view name);

// Minigraf's type names in messages: String, Integer, Float, Boolean, Ref, Keyword, Null;
// ours: Instant, Uuid, Bytes.
std::string_view type_name_for_message(ValueKind kind);

}  // namespace datalog::functions
