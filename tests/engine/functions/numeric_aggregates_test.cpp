// Our numeric aggregates: avg, median, variance (population), stddev.
#include <cmath>

#include "test_support.h"

using namespace fntest;

namespace {
double as_float(const Value& v) {
  REQUIRE(v.is(datalog::ValueKind::Float));
  return v.as_float();
}
}  // namespace

TEST_CASE("avg is a Float mean of the non-nil numbers") {
  CHECK(aggregate_value("avg", {I(10), I(20), I(30)}) == F(20.0));
  CHECK(aggregate_value("avg", {I(1), I(2)}) == F(1.5));
  CHECK(aggregate_value("avg", {I(1), Nil(), F(2.0)}) == F(1.5));
  CHECK(aggregate_value("avg", {I(4)}) == F(4.0));
}

TEST_CASE("median is the middle value, or the mean of the two middle values") {
  CHECK(aggregate_value("median", {I(3), I(1), I(2)}) == F(2.0));
  CHECK(aggregate_value("median", {I(4), I(1), I(3), I(2)}) == F(2.5));
  CHECK(aggregate_value("median", {F(7.5)}) == F(7.5));
  CHECK(aggregate_value("median", {I(5), I(5), I(1), Nil(), I(100)}) == F(5.0));
  CHECK(aggregate_value("median", {F(1e308), F(1e308)}) == F(1e308));  // no overflow
  CHECK(aggregate_value("median", {I(-3), F(-1.5), I(10), I(0)}) == F(-0.75));
}

TEST_CASE("variance is the population variance, as Datomic's") {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population variance 4 (sample variance would be 32/7).
  const std::vector<Value> values = {I(2), I(4), I(4), I(4), I(5), I(5), I(7), I(9)};
  CHECK(as_float(aggregate_value("variance", values)) == Approx(4.0));
  CHECK(as_float(aggregate_value("stddev", values)) == Approx(2.0));
}

TEST_CASE("variance of one value or of equal values is 0") {
  CHECK(aggregate_value("variance", {I(42)}) == F(0.0));
  CHECK(aggregate_value("stddev", {F(3.5)}) == F(0.0));
  CHECK(aggregate_value("variance", {I(7), I(7), I(7)}) == F(0.0));
}

TEST_CASE("variance is numerically stable for large offsets") {
  // Values 1e9 + {4, 7, 13, 16}: population variance 22.5. A naive sum-of-squares loses it.
  const double base = 1e9;
  const std::vector<Value> values = {F(base + 4), F(base + 7), F(base + 13), F(base + 16)};
  CHECK(as_float(aggregate_value("variance", values)) == Approx(22.5));
}

TEST_CASE("variance and stddev skip nils and mix integers and floats") {
  CHECK(as_float(aggregate_value("variance", {I(1), Nil(), F(3.0)})) == Approx(1.0));
  CHECK(as_float(aggregate_value("stddev", {I(1), F(3.0), Nil()})) == Approx(1.0));
}

TEST_CASE("numeric aggregates of an all-nil group give nil") {
  for (const char* name : {"avg", "median", "variance", "stddev"}) {
    INFO(name);
    CHECK(aggregate_value(name, {}) == Nil());
    CHECK(aggregate_value(name, {Nil(), Nil()}) == Nil());
  }
}

TEST_CASE("numeric aggregates of a non-number fail the query") {
  CHECK(aggregate_error("avg", {I(1), S("a")}) ==
        "avg: expected Integer, Float, or Null, got String");
  CHECK(aggregate_error("median", {B(true)}) ==
        "median: expected Integer, Float, or Null, got Boolean");
  CHECK(aggregate_error("variance", {I(1), K(":k")}) ==
        "variance: expected Integer, Float, or Null, got Keyword");
  CHECK(aggregate_error("stddev", {T(1)}) ==
        "stddev: expected Integer, Float, or Null, got Instant");
}
