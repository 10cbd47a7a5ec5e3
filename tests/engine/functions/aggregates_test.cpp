// Minigraf's aggregates: count, count-distinct, sum, sum-distinct, min, max, with their
// nil, type and empty-group rules and messages (LANGUAGE.md §14).
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "test_support.h"

using namespace fntest;
using datalog::functions::is_known_aggregate;
using datalog::functions::make_aggregate;
using datalog::functions::unknown_aggregate_error;
using datalog::functions::zero_row_on_empty_input;

namespace {
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
}  // namespace

TEST_CASE("known and unknown aggregates") {
  for (const char* name : {"count", "count-distinct", "sum", "sum-distinct", "min", "max", "avg",
                           "median", "variance", "stddev"}) {
    INFO(name);
    CHECK(is_known_aggregate(name));
    CHECK(make_aggregate(name) != nullptr);
  }
  for (const char* name : {"rank", "row-number", "mean", "Sum", "distinct", "", "lag"}) {
    INFO(name);
    CHECK_FALSE(is_known_aggregate(name));
    CHECK(make_aggregate(name) == nullptr);
  }
  const datalog::Status st = unknown_aggregate_error("x");
  CHECK(st.code() == datalog::StatusCode::InvalidArgument);
  CHECK(st.message() == "unknown aggregate function: 'x'");
}

TEST_CASE("only count and count-distinct give a zero row on empty input") {
  CHECK(zero_row_on_empty_input("count"));
  CHECK(zero_row_on_empty_input("count-distinct"));
  for (const char* name :
       {"sum", "sum-distinct", "min", "max", "avg", "median", "variance", "stddev"}) {
    CHECK_FALSE(zero_row_on_empty_input(name));
  }
}

TEST_CASE("count counts non-nil values of any kind") {
  CHECK(aggregate_value("count", {}) == I(0));
  CHECK(aggregate_value("count", {Nil(), Nil()}) == I(0));
  CHECK(aggregate_value("count", {I(1), I(1), S("a"), Nil(), B(false), K(":k")}) == I(5));
}

TEST_CASE("count-distinct counts structurally distinct non-nil values") {
  CHECK(aggregate_value("count-distinct", {}) == I(0));
  CHECK(aggregate_value("count-distinct", {I(1), I(2), I(1)}) == I(2));
  CHECK(aggregate_value("count-distinct", {I(1), F(1.0)}) == I(2));
  CHECK(aggregate_value("count-distinct", {K(":a"), S(":a"), K(":a"), Nil(), Nil()}) == I(2));
  CHECK(aggregate_value("count-distinct", {B(true), B(true), R(1), R(1), R(2)}) == I(3));
}

TEST_CASE("count-distinct takes -0.0 and 0.0, and NaNs of any payload, as one value each") {
  const double quiet = std::numeric_limits<double>::quiet_NaN();
  const double other_nan = std::bit_cast<double>(std::bit_cast<std::uint64_t>(quiet) | 1);
  REQUIRE(std::isnan(other_nan));
  CHECK(aggregate_value("count-distinct", {F(0.0), F(-0.0), F(quiet), F(other_nan), F(-quiet)}) ==
        I(2));
}

TEST_CASE("count-distinct handles many values") {
  std::vector<Value> values;
  for (int i = 0; i < 20000; ++i) values.push_back(I(i % 1000));
  CHECK(aggregate_value("count-distinct", values) == I(1000));
}

TEST_CASE("sum of integers is an integer") {
  CHECK(aggregate_value("sum", {I(10), I(20), I(30)}) == I(60));
  CHECK(aggregate_value("sum", {I(-5), Nil(), I(5)}) == I(0));
}

TEST_CASE("sum of an all-nil group is 0") {
  CHECK(aggregate_value("sum", {}) == I(0));
  CHECK(aggregate_value("sum", {Nil(), Nil()}) == I(0));
  CHECK(aggregate_value("sum-distinct", {Nil()}) == I(0));
}

TEST_CASE("sum saturates at the int64 bounds") {
  CHECK(aggregate_value("sum", {I(kMax), I(1)}) == I(kMax));
  CHECK(aggregate_value("sum", {I(kMax), I(kMax), I(-1)}) == I(kMax - 1));
  CHECK(aggregate_value("sum", {I(kMin), I(-1)}) == I(kMin));
}

TEST_CASE("sum with any float is a float") {
  CHECK(aggregate_value("sum", {F(1.5), F(2.5)}) == F(4.0));
  CHECK(aggregate_value("sum", {I(1), F(0.5), I(2)}) == F(3.5));
  CHECK(aggregate_value("sum", {I(1), Nil(), F(0.0)}) == F(1.0));
}

TEST_CASE("sum of a non-number fails the query with Minigraf's message") {
  CHECK(aggregate_error("sum", {I(1), S("a")}) ==
        "sum: expected Integer, Float, or Null, got String");
  CHECK(aggregate_error("sum", {B(true)}) == "sum: expected Integer, Float, or Null, got Boolean");
  CHECK(aggregate_error("sum", {F(1.0), K(":k")}) ==
        "sum: expected Integer, Float, or Null, got Keyword");
  CHECK(aggregate_error("sum", {R(1)}) == "sum: expected Integer, Float, or Null, got Ref");
  CHECK(aggregate_error("sum", {T(1)}) == "sum: expected Integer, Float, or Null, got Instant");
  CHECK(aggregate_error("sum", {U(1)}) == "sum: expected Integer, Float, or Null, got Uuid");
  CHECK(aggregate_error("sum", {Bytes("x")}) == "sum: expected Integer, Float, or Null, got Bytes");
  // The first offending value in row order names the error.
  CHECK(aggregate_error("sum", {I(1), B(true), S("a")}) ==
        "sum: expected Integer, Float, or Null, got Boolean");
}

TEST_CASE("sum-distinct sums each distinct value once") {
  CHECK(aggregate_value("sum-distinct", {I(5), I(5), I(7)}) == I(12));
  CHECK(aggregate_value("sum-distinct", {I(1), F(1.0), I(1)}) == F(2.0));
  CHECK(aggregate_value("sum-distinct", {F(0.5), F(0.5), Nil()}) == F(0.5));
  CHECK(aggregate_value("sum-distinct", {I(kMax), I(kMax), I(1)}) == I(kMax));
}

TEST_CASE("sum-distinct errors name the first offending kind in value order") {
  // Strings sort before numbers, so a string is reported even when it comes last.
  CHECK(aggregate_error("sum-distinct", {I(1), B(true), S("a")}) ==
        "sum: expected Integer, Float, or Null, got String");
  CHECK(aggregate_error("sum-distinct", {K(":k"), I(1), B(true)}) ==
        "sum: expected Integer, Float, or Null, got Boolean");
}

TEST_CASE("min and max of integers, floats, strings") {
  CHECK(aggregate_value("min", {I(30), I(10), I(20)}) == I(10));
  CHECK(aggregate_value("max", {I(30), I(10), I(20)}) == I(30));
  CHECK(aggregate_value("min", {F(2.5), F(-1.0), Nil()}) == F(-1.0));
  CHECK(aggregate_value("max", {Nil(), F(2.5), F(-1.0)}) == F(2.5));
  CHECK(aggregate_value("min", {S("pear"), S("apple"), S("Zoo")}) == S("Zoo"));
  CHECK(aggregate_value("max", {S("pear"), S("apple"), S("Zoo")}) == S("pear"));
  CHECK(aggregate_value("min", {I(kMax), I(kMin)}) == I(kMin));
  CHECK(aggregate_value("max", {I(7)}) == I(7));
}

TEST_CASE("min and max of instants (our extension)") {
  CHECK(aggregate_value("min", {T(300), T(100), T(200)}) == T(100));
  CHECK(aggregate_value("max", {T(300), T(100), Nil()}) == T(300));
}

TEST_CASE("min and max ties keep the first value") {
  CHECK(aggregate_value("min", {F(0.0), F(-0.0)}) == F(0.0));
  CHECK(aggregate_value("max", {F(-0.0), F(0.0)}) == F(-0.0));
}

TEST_CASE("min and max of an all-nil group drop the group") {
  for (const char* name : {"min", "max"}) {
    INFO(name);
    AggregateOutcome empty = aggregate(name, {});
    CHECK(empty.status.ok());
    CHECK_FALSE(empty.value.has_value());
    AggregateOutcome nils = aggregate(name, {Nil(), Nil()});
    CHECK(nils.status.ok());
    CHECK_FALSE(nils.value.has_value());
  }
}

TEST_CASE("min and max reject mixed kinds with Minigraf's message") {
  CHECK(aggregate_error("min", {I(1), F(2.0)}) == "min: cannot compare Integer and Float values");
  CHECK(aggregate_error("max", {F(2.0), I(1)}) == "max: cannot compare Float and Integer values");
  CHECK(aggregate_error("min", {S("a"), I(1)}) == "min: cannot compare String and Integer values");
  CHECK(aggregate_error("max", {Nil(), I(1), Nil(), S("x")}) ==
        "max: cannot compare Integer and String values");
  // The mismatch is reported against the group's first value.
  CHECK(aggregate_error("min", {I(1), I(2), B(true), S("x")}) ==
        "min: cannot compare Integer and Boolean values");
}

TEST_CASE("min and max reject kinds they cannot order with Minigraf's message") {
  CHECK(aggregate_error("min", {B(true), B(false)}) ==
        "min: expected Integer, Float, String, or Null, got Boolean");
  CHECK(aggregate_error("max", {K(":a")}) ==
        "max: expected Integer, Float, String, or Null, got Keyword");
  CHECK(aggregate_error("min", {R(1), R(2)}) ==
        "min: expected Integer, Float, String, or Null, got Ref");
  CHECK(aggregate_error("max", {U(1)}) ==
        "max: expected Integer, Float, String, or Null, got Uuid");
  CHECK(aggregate_error("min", {Bytes("a")}) ==
        "min: expected Integer, Float, String, or Null, got Bytes");
}

TEST_CASE("a kind mismatch anywhere takes precedence over an unorderable kind") {
  CHECK(aggregate_error("min", {B(true), B(false), I(1)}) ==
        "min: cannot compare Boolean and Integer values");
}
