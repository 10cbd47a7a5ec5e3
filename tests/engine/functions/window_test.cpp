// Window functions over one ordered partition (LANGUAGE.md §14).
#include "engine/functions/window.h"

#include <limits>

#include "test_support.h"

using namespace fntest;
using datalog::functions::check_window_function;
using datalog::functions::evaluate_window;
using datalog::functions::find_window_function;
using datalog::functions::window_function_takes_argument;
using datalog::functions::WindowFunction;

namespace {
// Keys are irrelevant to running aggregates; give each row its own.
std::vector<Value> keys_for(std::size_t n) {
  std::vector<Value> keys;
  for (std::size_t i = 0; i < n; ++i) keys.push_back(I(static_cast<std::int64_t>(i)));
  return keys;
}
std::vector<Value> as_vector(const datalog::ValueBuffer& values) { return {values.begin(), values.end()}; }
std::vector<Value> run(WindowFunction fn, const std::vector<Value>& args) {
  return as_vector(evaluate_window(fn, args, keys_for(args.size())));
}
std::vector<Value> rank_of(WindowFunction fn, const std::vector<Value>& keys) {
  return as_vector(evaluate_window(fn, {}, keys));
}
}  // namespace

TEST_CASE("window function names") {
  CHECK(find_window_function("sum") == WindowFunction::Sum);
  CHECK(find_window_function("count") == WindowFunction::Count);
  CHECK(find_window_function("min") == WindowFunction::Min);
  CHECK(find_window_function("max") == WindowFunction::Max);
  CHECK(find_window_function("avg") == WindowFunction::Avg);
  CHECK(find_window_function("rank") == WindowFunction::Rank);
  CHECK(find_window_function("dense-rank") == WindowFunction::DenseRank);
  CHECK(find_window_function("row-number") == WindowFunction::RowNumber);
  CHECK(find_window_function("lag") == WindowFunction::Lag);
  CHECK(find_window_function("lead") == WindowFunction::Lead);
  CHECK_FALSE(find_window_function("median"));
  CHECK_FALSE(find_window_function("ntile"));
  for (const char* name : {"sum", "rank", "row-number", "dense-rank", "lag", "lead"}) {
    CHECK(check_window_function(name).ok());
  }
}

TEST_CASE("window function errors use Minigraf's messages") {
  CHECK(check_window_function("count-distinct").message() ==
        "'count-distinct' is not window-compatible and cannot be used with ':over'");
  CHECK(check_window_function("sum-distinct").message() ==
        "'sum-distinct' is not window-compatible and cannot be used with ':over'");
  CHECK(check_window_function("median").message() ==
        "'median' is not window-compatible and cannot be used with ':over'");
  CHECK(check_window_function("ntile").message() == "unknown window function 'ntile'");
  CHECK(check_window_function("ntile").code() == datalog::StatusCode::InvalidArgument);
}

TEST_CASE("rank, dense-rank and row-number take no argument") {
  CHECK_FALSE(window_function_takes_argument(WindowFunction::Rank));
  CHECK_FALSE(window_function_takes_argument(WindowFunction::DenseRank));
  CHECK_FALSE(window_function_takes_argument(WindowFunction::RowNumber));
  for (WindowFunction fn :
       {WindowFunction::Sum, WindowFunction::Count, WindowFunction::Min, WindowFunction::Max,
        WindowFunction::Avg, WindowFunction::Lag, WindowFunction::Lead}) {
    CHECK(window_function_takes_argument(fn));
  }
}

TEST_CASE("sum is cumulative from the partition start") {
  CHECK(run(WindowFunction::Sum, {I(10), I(20), I(30)}) == std::vector<Value>{I(10), I(30), I(60)});
}

TEST_CASE("window sum turns Float at the first float and skips nil and non-numbers") {
  CHECK(run(WindowFunction::Sum, {Nil(), I(1), F(0.5), I(2), S("x")}) ==
        std::vector<Value>{I(0), I(1), F(1.5), F(3.5), F(3.5)});
}

TEST_CASE("window sum is exact for large integers and saturates") {
  const std::int64_t big = (std::int64_t{1} << 53) + 1;
  CHECK(run(WindowFunction::Sum, {I(big), I(0)}) == std::vector<Value>{I(big), I(big)});
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  CHECK(run(WindowFunction::Sum, {I(max), I(1)}) == std::vector<Value>{I(max), I(max)});
}

TEST_CASE("window count counts non-nil values so far") {
  CHECK(run(WindowFunction::Count, {I(1), Nil(), S("a"), Nil()}) ==
        std::vector<Value>{I(1), I(1), I(2), I(2)});
}

TEST_CASE("window min and max are running extremes, numeric across int and float") {
  CHECK(run(WindowFunction::Min, {I(5), F(4.5), I(6), I(1)}) ==
        std::vector<Value>{I(5), F(4.5), F(4.5), I(1)});
  CHECK(run(WindowFunction::Max, {I(5), F(4.5), F(5.5), I(1)}) ==
        std::vector<Value>{I(5), I(5), F(5.5), F(5.5)});
  CHECK(run(WindowFunction::Max, {S("b"), S("c"), S("a")}) ==
        std::vector<Value>{S("b"), S("c"), S("c")});
  CHECK(run(WindowFunction::Min, {T(20), T(10)}) == std::vector<Value>{T(20), T(10)});
}

TEST_CASE("window min and max: nil before any value, ties keep the first") {
  CHECK(run(WindowFunction::Min, {Nil(), I(3), Nil()}) == std::vector<Value>{Nil(), I(3), I(3)});
  CHECK(run(WindowFunction::Min, {I(1), F(1.0)}) == std::vector<Value>{I(1), I(1)});
  CHECK(run(WindowFunction::Max, {F(1.0), I(1)}) == std::vector<Value>{F(1.0), F(1.0)});
}

TEST_CASE("window min and max skip values they cannot compare with the current best") {
  CHECK(run(WindowFunction::Min, {I(3), S("a"), I(2)}) == std::vector<Value>{I(3), I(3), I(2)});
  CHECK(run(WindowFunction::Max, {B(true), I(9)}) == std::vector<Value>{B(true), B(true)});
}

TEST_CASE("window avg is a Float running mean of the numbers") {
  CHECK(run(WindowFunction::Avg, {Nil(), I(10), I(20), S("x"), F(30.0)}) ==
        std::vector<Value>{Nil(), F(10.0), F(15.0), F(15.0), F(20.0)});
}

TEST_CASE("rank: ties share a rank and leave gaps") {
  CHECK(rank_of(WindowFunction::Rank, {I(10), I(20), I(20), I(30), I(30), I(30), I(40)}) ==
        std::vector<Value>{I(1), I(2), I(2), I(4), I(4), I(4), I(7)});
  CHECK(rank_of(WindowFunction::Rank, {S("a"), S("a"), S("a")}) ==
        std::vector<Value>{I(1), I(1), I(1)});
}

TEST_CASE("rank: a tie is structural equality, so 1 and 1.0 are not tied") {
  CHECK(rank_of(WindowFunction::Rank, {I(1), F(1.0), F(1.0)}) ==
        std::vector<Value>{I(1), I(2), I(2)});
  CHECK(rank_of(WindowFunction::Rank, {Nil(), Nil(), I(1)}) ==
        std::vector<Value>{I(1), I(1), I(3)});
}

TEST_CASE("dense-rank: ties share a rank without gaps") {
  CHECK(rank_of(WindowFunction::DenseRank, {I(10), I(20), I(20), I(30), I(30), I(40)}) ==
        std::vector<Value>{I(1), I(2), I(2), I(3), I(3), I(4)});
}

TEST_CASE("row-number numbers rows 1..n, ties included") {
  CHECK(rank_of(WindowFunction::RowNumber, {I(5), I(5), I(5)}) ==
        std::vector<Value>{I(1), I(2), I(3)});
}

TEST_CASE("rank after a descending sort") {
  const std::vector<Value> keys = {I(20), I(40), I(20), I(30)};
  const auto order = datalog::functions::window_sort_order(keys, /*descending=*/true);
  std::vector<Value> sorted;
  for (std::size_t i : order) sorted.push_back(keys[i]);
  CHECK(sorted == std::vector<Value>{I(40), I(30), I(20), I(20)});
  CHECK(rank_of(WindowFunction::Rank, sorted) == std::vector<Value>{I(1), I(2), I(3), I(3)});
}

TEST_CASE("lag and lead shift by one row, nil past the edge") {
  const std::vector<Value> args = {I(1), S("two"), Nil(), F(4.0)};
  CHECK(run(WindowFunction::Lag, args) == std::vector<Value>{Nil(), I(1), S("two"), Nil()});
  CHECK(run(WindowFunction::Lead, args) == std::vector<Value>{S("two"), Nil(), F(4.0), Nil()});
  CHECK(run(WindowFunction::Lag, {I(7)}) == std::vector<Value>{Nil()});
  CHECK(run(WindowFunction::Lead, {I(7)}) == std::vector<Value>{Nil()});
}

TEST_CASE("every window function of an empty partition is empty") {
  for (WindowFunction fn :
       {WindowFunction::Sum, WindowFunction::Count, WindowFunction::Min, WindowFunction::Max,
        WindowFunction::Avg, WindowFunction::Rank, WindowFunction::DenseRank,
        WindowFunction::RowNumber, WindowFunction::Lag, WindowFunction::Lead}) {
    CHECK(evaluate_window(fn, {}, {}).empty());
  }
}
