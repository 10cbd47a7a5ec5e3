// The built-in registry: lookup, arity messages (Minigraf's wording), truthiness, and that
// every built-in is total over every kind of value.
#include "test_support.h"

#include <cmath>
#include <string_view>

using namespace fntest;
using datalog::StatusCode;
using datalog::ValueKind;
using datalog::functions::check_builtin_arity;
using datalog::functions::find_builtin;
using datalog::functions::truthy;

TEST_CASE("find_builtin knows every function of LANGUAGE.md §8 and our extensions") {
  for (
      const char* name :
      {"<",          ">",          "<=",       ">=",           "=",          "!=",        "+",
       "-",          "*",          "/",        "starts-with?", "ends-with?", "contains?", "string?",
       "integer?",   "float?",     "boolean?", "nil?",         "str",        "subs",      "count",
       "upper-case", "lower-case", "abs",      "mod",          "quot",       "rem",       "min",
       "max",        "inc",        "dec",      "keyword?",     "ref?",       "instant?",  "uuid?",
       "not",        "identity"}) {
    INFO(name);
    const auto* b = find_builtin(name);
    REQUIRE(b != nullptr);
    CHECK(b->name == name);
  }
}

TEST_CASE("find_builtin refuses unknown names, regex functions and near misses") {
  for (const char* name : {"matches?", "re-find", "tuple", "get-else", "ground", "missing?", "foo",
                           "", "<>", "==", "STR", "starts-with", "sum", "avg"}) {
    INFO(name);
    CHECK(find_builtin(name) == nullptr);
  }
}

TEST_CASE("arity errors use Minigraf's messages") {
  auto message = [](std::string_view op, std::size_t n) {
    const datalog::Status st = check_builtin_arity(op, n);
    REQUIRE_FALSE(st.ok());
    CHECK(st.code() == StatusCode::InvalidArgument);
    return st.message();
  };
  CHECK(message("<", 1) == "< takes exactly 2 arguments");
  CHECK(message("=", 3) == "= takes exactly 2 arguments");
  CHECK(message("starts-with?", 1) == "starts-with? takes exactly 2 arguments");
  CHECK(message("+", 3) == "+ takes exactly 2 arguments");
  CHECK(message("string?", 2) == "string? takes exactly 1 argument");
  CHECK(message("nil?", 0) == "nil? takes exactly 1 argument");
  CHECK(message("not", 2) == "not takes exactly 1 argument");
  // Our variable-arity extensions.
  CHECK(message("-", 0) == "- takes 1 or 2 arguments");
  CHECK(message("-", 3) == "- takes 1 or 2 arguments");
  CHECK(message("subs", 1) == "subs takes 2 or 3 arguments");
  CHECK(message("subs", 4) == "subs takes 2 or 3 arguments");
}

TEST_CASE("an unknown operator is reported whatever its arity") {
  for (std::size_t n : {0u, 1u, 2u, 3u}) {
    const datalog::Status st = check_builtin_arity("frobnicate", n);
    CHECK(st.message() == "unknown expression operator: frobnicate");
  }
  CHECK(check_builtin_arity("matches?", 2).message() == "unknown expression operator: matches?");
}

TEST_CASE("accepted arities pass") {
  CHECK(check_builtin_arity("<", 2).ok());
  CHECK(check_builtin_arity("-", 1).ok());
  CHECK(check_builtin_arity("-", 2).ok());
  CHECK(check_builtin_arity("str", 0).ok());
  CHECK(check_builtin_arity("str", 7).ok());
  CHECK(check_builtin_arity("subs", 2).ok());
  CHECK(check_builtin_arity("subs", 3).ok());
  CHECK(check_builtin_arity("integer?", 1).ok());
}

TEST_CASE("truthy: true, non-zero integers and non-zero floats only") {
  CHECK(truthy(B(true)));
  CHECK(truthy(I(1)));
  CHECK(truthy(I(-7)));
  CHECK(truthy(F(0.5)));
  CHECK(truthy(F(-2.0)));
  CHECK_FALSE(truthy(B(false)));
  CHECK_FALSE(truthy(I(0)));
  CHECK_FALSE(truthy(F(0.0)));
  CHECK_FALSE(truthy(F(-0.0)));
  CHECK_FALSE(truthy(S("true")));
  CHECK_FALSE(truthy(S("")));
  CHECK_FALSE(truthy(K(":yes")));
  CHECK_FALSE(truthy(R(1)));
  CHECK_FALSE(truthy(T(1)));
  CHECK_FALSE(truthy(U(1)));
  CHECK_FALSE(truthy(Bytes("x")));
  CHECK_FALSE(truthy(Nil()));
}

TEST_CASE("every built-in is total: any kinds in, a value or a row error out") {
  const std::vector<Value> samples = {S(""),
                                      S("héllo"),
                                      I(0),
                                      I(-1),
                                      I(std::numeric_limits<std::int64_t>::min()),
                                      F(0.0),
                                      F(-2.5),
                                      B(true),
                                      T(0),
                                      R(3),
                                      U(9),
                                      K(":k"),
                                      Bytes(std::string("\0\xff", 2)),
                                      Nil()};
  int values = 0, row_errors = 0;
  for (
      const char* name :
      {"<",          ">",          "<=",       ">=",           "=",          "!=",        "+",
       "-",          "*",          "/",        "starts-with?", "ends-with?", "contains?", "string?",
       "integer?",   "float?",     "boolean?", "nil?",         "str",        "subs",      "count",
       "upper-case", "lower-case", "abs",      "mod",          "quot",       "rem",       "min",
       "max",        "inc",        "dec",      "keyword?",     "ref?",       "instant?",  "uuid?",
       "not",        "identity"}) {
    const auto* b = find_builtin(name);
    REQUIRE(b != nullptr);
    const std::string_view op = name;
    const bool boolean_result = op.back() == '?' || op == "<" || op == ">" || op == "<=" ||
                                op == ">=" || op == "=" || op == "!=" || op == "not";
    const bool kind_predicate =
        op == "string?" || op == "integer?" || op == "float?" || op == "boolean?" || op == "nil?" ||
        op == "keyword?" || op == "ref?" || op == "instant?" || op == "uuid?";
    const bool never_fails = op == "=" || op == "!=" || op == "not" || op == "identity" || kind_predicate;
    // The contract of builtins.h, for every call: a value or a row error or a query error,
    // never two; predicates and comparisons answer Booleans; no float result is NaN; `=`, `!=`,
    // `not`, `identity` and the kind predicates never fail; the same arguments give the same
    // result.
    auto check = [&](const std::vector<Value>& args) {
      INFO(name << " of " << args.size() << " arguments, the first " << args[0].to_edn());
      const auto result = b->call(args);
      CHECK_FALSE((result.ok() && result.failed()));
      if (result.ok()) {
        ++values;
        if (boolean_result) CHECK(result.value->is(ValueKind::Boolean));
        if (result.value->is(ValueKind::Float)) CHECK_FALSE(std::isnan(result.value->as_float()));
      } else {
        ++row_errors;
        CHECK_FALSE(never_fails);
      }
      const auto again = b->call(args);
      CHECK(again.ok() == result.ok());
      CHECK(again.error == result.error);
      if (again.ok() && result.ok()) CHECK(*again.value == *result.value);
    };
    for (const Value& a : samples) {
      if (b->arity.accepts(1)) check({a});
      for (const Value& c : samples) {
        if (b->arity.accepts(2)) check({a, c});
        if (b->arity.accepts(3)) check({a, c, I(1)});
      }
    }
  }
  // The samples reach both outcomes (a test whose calls all failed would check little).
  CHECK(values > 1000);
  CHECK(row_errors > 1000);
}
