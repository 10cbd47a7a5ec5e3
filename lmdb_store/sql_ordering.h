// lmdb_store/sql_ordering.h: which stored values SQL's comparisons can hold, as key ranges.
//
// The store table answers `v > x`, `v <= y` and the like with ranges of the AVET index. SQL
// compares across storage classes (NULL < numbers < text < blob) and within a class by value;
// a stored value shows in SQL as one class or, for a reference, as either a number (its id) or
// text (its ident). So the ranges hold every stored value the comparison can be true for: the
// whole of each kind whose class lies strictly between the bounds, and the part of a kind of the
// bound's own class that the bound's value allows. SQLite re-checks every row, so the ranges
// only need to cover.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "lmdb_store/scan_plan.h"

namespace datalog::store {

// A bound of a comparison, as SQL holds it.
struct SqlBound {
  enum class Class { Null, Integer, Float, Text, Blob } type = Class::Null;
  std::int64_t integer = 0;
  double real = 0;             // also the numeric value of an Integer
  std::string_view bytes;      // Text and Blob
};

// The encoded-value ranges (no attribute prefix: ScanKeys::value_ranges) that hold every stored
// value v for which `v > lower` / `v >= lower` and `v < upper` / `v <= upper` can be true. A null
// bound pointer is absent; a bound of class Null matches nothing (no ranges).
std::vector<KeyRange> sql_value_ranges(const SqlBound* lower, const SqlBound* upper);

}  // namespace datalog::store
