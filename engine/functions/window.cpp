// Window functions over one ordered partition: running aggregates (a ROWS frame from the
// partition start), ranks, and lag/lead.
#include "engine/functions/window.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <numeric>

#include "engine/functions/aggregates.h"
#include "engine/functions/number_sum.h"

namespace datalog::functions {

namespace {

// Non-numbers are skipped (Minigraf's window step ignores them; only the aggregate errors).
ValueBuffer running_sum(std::span<const Value> args) {
  ValueBuffer out;
  out.reserve(args.size());
  NumberSum sum;
  for (const Value& v : args) {
    sum.add(v);
    out.push_back(sum.value());
  }
  return out;
}

ValueBuffer running_count(std::span<const Value> args) {
  ValueBuffer out;
  out.reserve(args.size());
  std::int64_t count = 0;
  for (const Value& v : args) {
    if (!v.is(ValueKind::Nil)) ++count;
    out.push_back(Value::integer(count));
  }
  return out;
}

// A value replaces the best only when strictly better and comparable with it (Minigraf's
// value_lt), so the first of equal values stays.
ValueBuffer running_extreme(std::span<const Value> args, bool is_min) {
  ValueBuffer out;
  out.reserve(args.size());
  std::optional<Value> best;
  for (const Value& v : args) {
    if (!v.is(ValueKind::Nil)) {
      if (!best || (is_min ? less_for_window(v, *best) : less_for_window(*best, v))) best = v;
    }
    out.push_back(best ? *best : Value::nil());
  }
  return out;
}

ValueBuffer running_avg(std::span<const Value> args) {
  ValueBuffer out;
  out.reserve(args.size());
  double sum = 0.0;
  std::int64_t count = 0;
  for (const Value& v : args) {
    if (v.is(ValueKind::Integer) || v.is(ValueKind::Float)) {
      sum += v.is(ValueKind::Integer) ? static_cast<double>(v.as_integer()) : v.as_float();
      ++count;
    }
    out.push_back(count == 0 ? Value::nil() : Value::floating(sum / static_cast<double>(count)));
  }
  return out;
}

// A tie is structural equality of the order keys, which is exactly equivalence under
// compare_for_order, so tied rows are adjacent after window_sort_order.
ValueBuffer ranks(std::span<const Value> keys, bool dense) {
  ValueBuffer out;
  out.reserve(keys.size());
  std::int64_t rank = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i == 0 || !(keys[i] == keys[i - 1])) {
      rank = dense ? rank + 1 : static_cast<std::int64_t>(i) + 1;
    }
    out.push_back(Value::integer(rank));
  }
  return out;
}

ValueBuffer row_numbers(std::size_t n) {
  ValueBuffer out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    out.push_back(Value::integer(static_cast<std::int64_t>(i) + 1));
  return out;
}

// offset -1: lag (previous row); +1: lead (next row).
ValueBuffer shifted(std::span<const Value> args, std::ptrdiff_t offset) {
  ValueBuffer out;
  out.reserve(args.size());
  const auto n = static_cast<std::ptrdiff_t>(args.size());
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::ptrdiff_t j = i + offset;
    out.push_back(j >= 0 && j < n ? args[static_cast<std::size_t>(j)] : Value::nil());
  }
  return out;
}

}  // namespace

std::optional<WindowFunction> find_window_function(std::string_view name) {
  if (name == "sum") return WindowFunction::Sum;
  if (name == "count") return WindowFunction::Count;
  if (name == "min") return WindowFunction::Min;
  if (name == "max") return WindowFunction::Max;
  if (name == "avg") return WindowFunction::Avg;
  if (name == "rank") return WindowFunction::Rank;
  if (name == "dense-rank") return WindowFunction::DenseRank;
  if (name == "row-number") return WindowFunction::RowNumber;
  if (name == "lag") return WindowFunction::Lag;
  if (name == "lead") return WindowFunction::Lead;
  return std::nullopt;
}

Status check_window_function(std::string_view name) {
  if (find_window_function(name)) return Status::OK();
  if (is_known_aggregate(name)) {
    return Status(
        StatusCode::InvalidArgument,
        fmt::format("'{}' is not window-compatible and cannot be used with ':over'", name));
  }
  return Status(StatusCode::InvalidArgument, fmt::format("unknown window function '{}'", name));
}

bool window_function_takes_argument(WindowFunction fn) {
  return fn != WindowFunction::Rank && fn != WindowFunction::DenseRank &&
         fn != WindowFunction::RowNumber;
}

Status window_sort_order(std::span<const Value> keys, bool descending, const SortPoll& poll,
                         std::vector<std::size_t>* order) {
  order->resize(keys.size());
  std::iota(order->begin(), order->end(), std::size_t{0});
  return interruptible_sort(
      order->begin(), order->end(),
      [&](std::size_t a, std::size_t b) {
        return descending ? compare_for_order(keys[b], keys[a]) < 0
                          : compare_for_order(keys[a], keys[b]) < 0;
      },
      poll, /*stable=*/true);
}

std::vector<std::size_t> window_sort_order(std::span<const Value> keys, bool descending) {
  std::vector<std::size_t> order;
  (void)window_sort_order(keys, descending, nullptr, &order);  // without a poll it cannot fail
  return order;
}

ValueBuffer evaluate_window(WindowFunction fn, std::span<const Value> args,
                                   std::span<const Value> order_keys) {
  assert(!window_function_takes_argument(fn) || args.size() == order_keys.size());
  switch (fn) {
    case WindowFunction::Sum:
      return running_sum(args);
    case WindowFunction::Count:
      return running_count(args);
    case WindowFunction::Min:
      return running_extreme(args, /*is_min=*/true);
    case WindowFunction::Max:
      return running_extreme(args, /*is_min=*/false);
    case WindowFunction::Avg:
      return running_avg(args);
    case WindowFunction::Rank:
      return ranks(order_keys, /*dense=*/false);
    case WindowFunction::DenseRank:
      return ranks(order_keys, /*dense=*/true);
    case WindowFunction::RowNumber:
      return row_numbers(order_keys.size());
    case WindowFunction::Lag:
      return shifted(args, -1);
    case WindowFunction::Lead:
      return shifted(args, +1);
  }
  return {};
}

}  // namespace datalog::functions
