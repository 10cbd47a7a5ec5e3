// engine/datom.h: the datom — one record of a graph's history — and the bi-temporal view
// that decides which records a reader sees (LANGUAGE.md §5, §12).
#pragma once

#include <cstdint>
#include <limits>

#include "engine/value.h"

namespace datalog {

// Retract < Assert < Reassert within one transaction. Reassert marks an assertion made after
// a retraction of the same fact in the same transaction: it survives that retraction.
enum class Op : std::uint8_t { Retract = 0, Assert = 1, Reassert = 2 };

inline constexpr std::int64_t kForever = std::numeric_limits<std::int64_t>::max();

// An assertion or retraction of (e, a, v) in transaction tx, valid over [valid_from, valid_to).
struct Datom {
  EntityId e = 0;
  EntityId a = 0;
  Value v;
  std::uint64_t tx = 0;
  Op op = Op::Assert;
  std::int64_t valid_from = 0;
  std::int64_t valid_to = kForever;
};

// Which records are visible: transaction time up to as_of, valid at valid_at (or any time).
struct TimeView {
  std::uint64_t as_of = std::numeric_limits<std::uint64_t>::max();
  bool any_valid_time = false;
  std::int64_t valid_at = 0;  // used unless any_valid_time
};

}  // namespace datalog
