// + - * / (Minigraf's), unary minus, abs inc dec quot rem mod (ours).
#include <cmath>
#include <limits>

#include "test_support.h"

using namespace fntest;

namespace {
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
const double kInf = std::numeric_limits<double>::infinity();
}  // namespace

TEST_CASE("integer arithmetic stays integer") {
  CHECK(ok("+", {I(2), I(3)}) == I(5));
  CHECK(ok("-", {I(2), I(3)}) == I(-1));
  CHECK(ok("*", {I(-4), I(3)}) == I(-12));
  CHECK(ok("/", {I(7), I(2)}) == I(3));
}

TEST_CASE("integer division truncates toward zero") {
  CHECK(ok("/", {I(-7), I(2)}) == I(-3));
  CHECK(ok("/", {I(7), I(-2)}) == I(-3));
  CHECK(ok("/", {I(-7), I(-2)}) == I(3));
  CHECK(ok("/", {I(1), I(3)}) == I(0));
}

TEST_CASE("integer overflow fails the query, naming the call") {
  CHECK(query_error("+", {I(kMax), I(30)}) == "integer overflow in (+ 9223372036854775807 30)");
  CHECK(query_error("-", {I(kMin), I(1)}) == "integer overflow in (- -9223372036854775808 1)");
  CHECK(query_error("*", {I(kMax), I(2)}) == "integer overflow in (* 9223372036854775807 2)");
  CHECK(query_error("/", {I(kMin), I(-1)}) == "integer overflow in (/ -9223372036854775808 -1)");
  CHECK(query_error("quot", {I(kMin), I(-1)}) == "integer overflow in (quot -9223372036854775808 -1)");
  CHECK(query_error("-", {I(kMin)}) == "integer overflow in (- -9223372036854775808)");
  CHECK(query_error("abs", {I(kMin)}) == "integer overflow in (abs -9223372036854775808)");
  CHECK(query_error("inc", {I(kMax)}) == "integer overflow in (inc 9223372036854775807)");
  CHECK(query_error("dec", {I(kMin)}) == "integer overflow in (dec -9223372036854775808)");
  // The limits themselves are fine.
  CHECK(ok("+", {I(kMax), I(0)}) == I(kMax));
  CHECK(ok("-", {I(kMin + 1)}) == I(kMax));
  CHECK(ok("*", {I(kMin), I(1)}) == I(kMin));
  CHECK(ok("rem", {I(kMin), I(-1)}) == I(0));
  CHECK(ok("mod", {I(kMin), I(-1)}) == I(0));
}

TEST_CASE("any float makes the result a float") {
  CHECK(ok("+", {I(1), F(0.5)}) == F(1.5));
  CHECK(ok("+", {F(0.5), I(1)}) == F(1.5));
  CHECK(ok("-", {F(1.0), I(1)}) == F(0.0));
  CHECK(ok("*", {I(2), F(1.25)}) == F(2.5));
  CHECK(ok("/", {I(7), F(2.0)}) == F(3.5));
  CHECK(ok("/", {F(1.0), F(4.0)}) == F(0.25));
  CHECK(ok("+", {F(1e308), F(1e308)}) == F(kInf));  // overflow to infinity is a value
}

TEST_CASE("division by zero is a row error, integer or float") {
  CHECK(row_error("/", {I(1), I(0)}));
  CHECK(row_error("/", {F(1.0), I(0)}));
  CHECK(row_error("/", {I(1), F(0.0)}));
  CHECK(row_error("/", {F(1.0), F(-0.0)}));
  CHECK(row_error("/", {I(0), I(0)}));
}

TEST_CASE("a NaN result is a row error") {
  CHECK(row_error("+", {F(kInf), F(-kInf)}));
  CHECK(row_error("-", {F(kInf), F(kInf)}));
  CHECK(row_error("*", {F(kInf), I(0)}));
  CHECK(row_error("/", {F(kInf), F(kInf)}));
  CHECK(row_error("/", {F(1.0), F(std::nan(""))}));
}

TEST_CASE("arithmetic on non-numbers is a row error") {
  for (const char* op : {"+", "-", "*", "/"}) {
    INFO(op);
    CHECK(row_error(op, {S("1"), I(1)}));
    CHECK(row_error(op, {I(1), S("1")}));
    CHECK(row_error(op, {B(true), I(1)}));
    CHECK(row_error(op, {Nil(), I(1)}));
    CHECK(row_error(op, {I(1), Nil()}));
    CHECK(row_error(op, {K(":a"), F(1.0)}));
    CHECK(row_error(op, {T(1), I(1)}));
    CHECK(row_error(op, {R(1), I(1)}));
  }
}

TEST_CASE("unary minus (our extension)") {
  CHECK(ok("-", {I(5)}) == I(-5));
  CHECK(ok("-", {I(-5)}) == I(5));
  CHECK(ok("-", {F(2.5)}) == F(-2.5));
  CHECK(row_error("-", {S("5")}));
  CHECK(row_error("-", {Nil()}));
}

TEST_CASE("abs, inc, dec") {
  CHECK(ok("abs", {I(-3)}) == I(3));
  CHECK(ok("abs", {I(3)}) == I(3));
  CHECK(ok("abs", {F(-2.5)}) == F(2.5));
  CHECK(ok("inc", {I(1)}) == I(2));
  CHECK(ok("inc", {F(1.5)}) == F(2.5));
  CHECK(ok("dec", {I(1)}) == I(0));
  CHECK(ok("dec", {F(1.5)}) == F(0.5));
  for (const char* op : {"abs", "inc", "dec"}) {
    INFO(op);
    CHECK(row_error(op, {S("1")}));
    CHECK(row_error(op, {Nil()}));
    CHECK(row_error(op, {B(false)}));
  }
}

TEST_CASE("quot truncates, rem takes the dividend's sign, mod the divisor's") {
  CHECK(ok("quot", {I(7), I(2)}) == I(3));
  CHECK(ok("quot", {I(-7), I(2)}) == I(-3));
  CHECK(ok("rem", {I(7), I(2)}) == I(1));
  CHECK(ok("rem", {I(-7), I(2)}) == I(-1));
  CHECK(ok("rem", {I(7), I(-2)}) == I(1));
  CHECK(ok("mod", {I(7), I(2)}) == I(1));
  CHECK(ok("mod", {I(-7), I(2)}) == I(1));
  CHECK(ok("mod", {I(7), I(-2)}) == I(-1));
  CHECK(ok("mod", {I(-7), I(-2)}) == I(-1));
  CHECK(ok("mod", {I(6), I(3)}) == I(0));
  CHECK(ok("mod", {I(-6), I(3)}) == I(0));
}

TEST_CASE("quot, rem, mod at the integer edges") {
  CHECK(ok("rem", {I(kMin), I(-1)}) == I(0));
  CHECK(ok("mod", {I(kMin), I(-1)}) == I(0));
  CHECK(ok("mod", {I(kMin), I(kMax)}) == I(kMax - 1));
  CHECK(ok("mod", {I(kMax), I(kMin)}) == I(-1));
}

TEST_CASE("quot, rem, mod with floats") {
  CHECK(ok("quot", {F(7.5), I(2)}) == F(3.0));
  CHECK(ok("quot", {F(-7.5), I(2)}) == F(-3.0));
  CHECK(ok("rem", {F(7.5), I(2)}) == F(1.5));
  CHECK(ok("rem", {F(-7.5), I(2)}) == F(-1.5));
  CHECK(ok("mod", {F(-7.5), I(2)}) == F(0.5));
  CHECK(ok("mod", {F(7.5), F(-2.0)}) == F(-0.5));
  CHECK(row_error("rem", {F(kInf), I(2)}));  // fmod(inf, 2) is NaN
}

TEST_CASE("quot, rem, mod: zero divisor and non-numbers are row errors") {
  for (const char* op : {"quot", "rem", "mod"}) {
    INFO(op);
    CHECK(row_error(op, {I(1), I(0)}));
    CHECK(row_error(op, {F(1.0), F(0.0)}));
    CHECK(row_error(op, {I(1), F(0.0)}));
    CHECK(row_error(op, {S("7"), I(2)}));
    CHECK(row_error(op, {I(7), Nil()}));
  }
}
