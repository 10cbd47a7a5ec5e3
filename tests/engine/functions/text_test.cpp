// starts-with? ends-with? contains? (Minigraf's), str subs count upper-case lower-case (ours).
#include "test_support.h"

using namespace fntest;

TEST_CASE("string predicates are case-sensitive byte tests") {
  CHECK(ok("starts-with?", {S("hello"), S("he")}) == B(true));
  CHECK(ok("starts-with?", {S("hello"), S("He")}) == B(false));
  CHECK(ok("starts-with?", {S("hello"), S("")}) == B(true));
  CHECK(ok("starts-with?", {S("he"), S("hello")}) == B(false));
  CHECK(ok("ends-with?", {S("hello"), S("llo")}) == B(true));
  CHECK(ok("ends-with?", {S("hello"), S("hel")}) == B(false));
  CHECK(ok("contains?", {S("hello"), S("ell")}) == B(true));
  CHECK(ok("contains?", {S("hello"), S("ELL")}) == B(false));
  CHECK(ok("contains?", {S(""), S("")}) == B(true));
  CHECK(ok("contains?", {S("naïve"), S("ï")}) == B(true));
}

TEST_CASE("string predicates need two strings") {
  for (const char* op : {"starts-with?", "ends-with?", "contains?"}) {
    INFO(op);
    CHECK(row_error(op, {S("a"), I(1)}));
    CHECK(row_error(op, {I(1), S("1")}));
    CHECK(row_error(op, {K(":ab"), S(":a")}));
    CHECK(row_error(op, {S("a"), Nil()}));
    CHECK(row_error(op, {Bytes("ab"), Bytes("a")}));
  }
}

TEST_CASE("str concatenates printed forms") {
  CHECK(ok("str", {}) == S(""));
  CHECK(ok("str", {S("a"), S("b")}) == S("ab"));
  CHECK(ok("str", {S("n="), I(42)}) == S("n=42"));
  CHECK(ok("str", {I(-7)}) == S("-7"));
  CHECK(ok("str", {F(1.0)}) == S("1.0"));  // a float always shows it is one
  CHECK(ok("str", {F(2.5)}) == S("2.5"));
  CHECK(ok("str", {F(-3.0)}) == S("-3.0"));
  CHECK(ok("str", {B(true), B(false)}) == S("truefalse"));
  CHECK(ok("str", {K(":status/active")}) == S(":status/active"));
  CHECK(ok("str", {S("a"), Nil(), S("b")}) == S("ab"));  // nil prints nothing, as Clojure
  CHECK(ok("str", {R(42)}) == S("42"));
  CHECK(ok("str", {T(0)}) == S("1970-01-01T00:00:00.000Z"));
  CHECK(ok("str", {U(1)}) == S("00000000-0000-0000-0000-000000000001"));
  CHECK(ok("str", {S("x"), I(1), S("y"), F(0.5)}) == S("x1y0.5"));
}

TEST_CASE("subs takes code-point positions") {
  CHECK(ok("subs", {S("hello"), I(1)}) == S("ello"));
  CHECK(ok("subs", {S("hello"), I(1), I(3)}) == S("el"));
  CHECK(ok("subs", {S("hello"), I(0), I(5)}) == S("hello"));
  CHECK(ok("subs", {S("hello"), I(5)}) == S(""));
  CHECK(ok("subs", {S("hello"), I(2), I(2)}) == S(""));
  CHECK(ok("subs", {S("héllo"), I(1), I(2)}) == S("é"));
  CHECK(ok("subs", {S("日本語"), I(1)}) == S("本語"));
}

TEST_CASE("subs out of range or mistyped is a row error") {
  CHECK(row_error("subs", {S("hello"), I(-1)}));
  CHECK(row_error("subs", {S("hello"), I(6)}));
  CHECK(row_error("subs", {S("hello"), I(3), I(2)}));
  CHECK(row_error("subs", {S("hello"), I(0), I(6)}));
  CHECK(row_error("subs", {S("hello"), F(1.0)}));
  CHECK(row_error("subs", {S("hello"), I(1), S("3")}));
  CHECK(row_error("subs", {K(":hello"), I(1)}));
  CHECK(row_error("subs", {Nil(), I(0)}));
}

TEST_CASE("count is a length in code points") {
  CHECK(ok("count", {S("")}) == I(0));
  CHECK(ok("count", {S("hello")}) == I(5));
  CHECK(ok("count", {S("héllo")}) == I(5));
  CHECK(ok("count", {S("日本語")}) == I(3));
  CHECK(ok("count", {Bytes(std::string("\0\1\2", 3))}) == I(3));
  CHECK(ok("count", {Nil()}) == I(0));
  CHECK(row_error("count", {I(12)}));
  CHECK(row_error("count", {K(":abc")}));
}

TEST_CASE("upper-case and lower-case map ASCII letters only") {
  CHECK(ok("upper-case", {S("Hello, World 1")}) == S("HELLO, WORLD 1"));
  CHECK(ok("lower-case", {S("Hello, World 1")}) == S("hello, world 1"));
  CHECK(ok("upper-case", {S("héllo")}) == S("HéLLO"));
  CHECK(ok("lower-case", {S("")}) == S(""));
  CHECK(row_error("upper-case", {K(":a")}));
  CHECK(row_error("lower-case", {Nil()}));
  CHECK(row_error("lower-case", {I(1)}));
}
