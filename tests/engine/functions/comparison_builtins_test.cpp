// < > <= >= (ordering, row error on incomparable kinds), = != (structural), min/max.
#include <cmath>
#include <limits>

#include "test_support.h"

using namespace fntest;

namespace {
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
const double kNaN = std::nan("");
}  // namespace

TEST_CASE("ordering predicates on integers") {
  CHECK(ok("<", {I(1), I(2)}) == B(true));
  CHECK(ok("<", {I(2), I(2)}) == B(false));
  CHECK(ok(">", {I(3), I(2)}) == B(true));
  CHECK(ok(">", {I(2), I(2)}) == B(false));
  CHECK(ok("<=", {I(2), I(2)}) == B(true));
  CHECK(ok("<=", {I(3), I(2)}) == B(false));
  CHECK(ok(">=", {I(2), I(2)}) == B(true));
  CHECK(ok(">=", {I(1), I(2)}) == B(false));
  CHECK(ok("<", {I(kMin), I(kMax)}) == B(true));
}

TEST_CASE("ordering predicates promote between integers and floats") {
  CHECK(ok("<", {I(1), F(1.5)}) == B(true));
  CHECK(ok(">", {F(1.5), I(1)}) == B(true));
  CHECK(ok("<=", {I(1), F(1.0)}) == B(true));
  CHECK(ok(">=", {F(1.0), I(1)}) == B(true));
  CHECK(ok("<", {I(1), F(1.0)}) == B(false));
  CHECK(ok("<", {F(-0.5), I(0)}) == B(true));
  CHECK(ok("<", {F(0.5), F(0.25)}) == B(false));
}

TEST_CASE("integer/float comparison is exact beyond 2^53") {
  const std::int64_t two53 = std::int64_t{1} << 53;
  // 2^53 + 1 is not a double; rounding it would call these equal.
  CHECK(ok(">", {I(two53 + 1), F(static_cast<double>(two53))}) == B(true));
  CHECK(ok("<", {F(static_cast<double>(two53)), I(two53 + 1)}) == B(true));
  CHECK(ok("<", {I(kMax), F(9223372036854775808.0)}) == B(true));
  CHECK(ok(">", {I(kMin), F(-1e19)}) == B(true));
  CHECK(ok("<=", {I(kMin), F(-9223372036854775808.0)}) == B(true));
  CHECK(ok(">=", {I(kMin), F(-9223372036854775808.0)}) == B(true));
  CHECK(ok("<", {I(-3), F(-2.5)}) == B(true));
  CHECK(ok(">", {I(-2), F(-2.5)}) == B(true));
  CHECK(ok("<", {I(0), F(std::numeric_limits<double>::infinity())}) == B(true));
}

TEST_CASE("ordering predicates compare strings in byte order") {
  CHECK(ok("<", {S("apple"), S("banana")}) == B(true));
  CHECK(ok("<", {S("Zebra"), S("apple")}) == B(true));  // 'Z' < 'a'
  CHECK(ok("<", {S("ab"), S("abc")}) == B(true));
  CHECK(ok("<", {S(""), S("a")}) == B(true));
  CHECK(ok(">=", {S("b"), S("b")}) == B(true));
  // Bytes >= 0x80 sort after ASCII (unsigned), so UTF-8 sorts by code point.
  CHECK(ok("<", {S("z"), S("é")}) == B(true));
}

TEST_CASE("ordering predicates compare instants (our extension)") {
  CHECK(ok("<", {T(1000), T(2000)}) == B(true));
  CHECK(ok(">=", {T(2000), T(2000)}) == B(true));
  CHECK(row_error("<", {T(1000), I(2000)}));
}

TEST_CASE("ordering predicates: any other mix is a row error") {
  for (const char* op : {"<", ">", "<=", ">="}) {
    INFO(op);
    CHECK(row_error(op, {S("1"), I(1)}));
    CHECK(row_error(op, {I(1), S("1")}));
    CHECK(row_error(op, {B(true), B(false)}));
    CHECK(row_error(op, {K(":a"), K(":b")}));
    CHECK(row_error(op, {R(1), R(2)}));
    CHECK(row_error(op, {U(1), U(2)}));
    CHECK(row_error(op, {Nil(), I(1)}));
    CHECK(row_error(op, {Nil(), Nil()}));
    CHECK(row_error(op, {F(1.0), B(true)}));
    CHECK(row_error(op, {Bytes("a"), Bytes("b")}));
  }
}

TEST_CASE("every ordering comparison with NaN is false, not an error") {
  for (const char* op : {"<", ">", "<=", ">="}) {
    INFO(op);
    CHECK(ok(op, {F(kNaN), F(1.0)}) == B(false));
    CHECK(ok(op, {I(1), F(kNaN)}) == B(false));
    CHECK(ok(op, {F(kNaN), F(kNaN)}) == B(false));
  }
}

TEST_CASE("= and != are structural and never error") {
  CHECK(ok("=", {I(1), I(1)}) == B(true));
  CHECK(ok("=", {I(1), F(1.0)}) == B(false));  // strictly typed
  CHECK(ok("!=", {I(1), F(1.0)}) == B(true));
  CHECK(ok("=", {F(2.5), F(2.5)}) == B(true));
  CHECK(ok("=", {F(0.0), F(-0.0)}) == B(true));
  CHECK(ok("=", {S("a"), S("a")}) == B(true));
  CHECK(ok("=", {S("a"), K(":a")}) == B(false));
  CHECK(ok("=", {K(":bob"), K(":bob")}) == B(true));
  CHECK(ok("=", {K(":bob"), R(7)}) == B(false));  // a keyword is not the entity it names
  CHECK(ok("=", {R(7), R(7)}) == B(true));
  CHECK(ok("=", {R(7), I(7)}) == B(false));
  CHECK(ok("=", {T(5), I(5)}) == B(false));
  CHECK(ok("=", {U(1), U(1)}) == B(true));
  CHECK(ok("=", {U(1), U(2)}) == B(false));
  CHECK(ok("=", {B(true), I(1)}) == B(false));
  CHECK(ok("=", {Nil(), Nil()}) == B(true));
  CHECK(ok("!=", {Nil(), Nil()}) == B(false));
  CHECK(ok("!=", {Nil(), B(false)}) == B(true));
  CHECK(ok("=", {Bytes("x"), Bytes("x")}) == B(true));
  CHECK(ok("=", {Bytes("x"), S("x")}) == B(false));
}

TEST_CASE("min and max of two comparable values (our extension)") {
  CHECK(ok("min", {I(3), I(2)}) == I(2));
  CHECK(ok("max", {I(3), I(2)}) == I(3));
  CHECK(ok("min", {I(3), F(2.5)}) == F(2.5));
  CHECK(ok("max", {I(3), F(2.5)}) == I(3));
  CHECK(ok("min", {I(1), F(1.0)}) == I(1));  // a tie keeps the first
  CHECK(ok("max", {F(1.0), I(1)}) == F(1.0));
  CHECK(ok("min", {S("b"), S("a")}) == S("a"));
  CHECK(ok("max", {T(1), T(2)}) == T(2));
  CHECK(row_error("min", {S("a"), I(1)}));
  CHECK(row_error("max", {Nil(), I(1)}));
  CHECK(row_error("max", {B(true), B(false)}));
}
