// value_ranges (engine/eval/value_ranges.h): which comparisons narrow a scan, and to what.
// The ranges must hold every value that can pass the comparisons (they only save work).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "engine/eval/value_ranges.h"

using datalog::DatomFilter;
using datalog::Value;
using datalog::ValueKind;
using datalog::ValueRange;
using namespace datalog::eval;
namespace ast = datalog::ast;

namespace {

ast::Clause compare(const std::string& op, ast::ExprArg left, ast::ExprArg right) {
  ast::ExprClause c;
  c.expr.op = op;
  c.expr.args = {std::move(left), std::move(right)};
  return ast::Clause{c};
}
ast::Variable var(const std::string& name) { return ast::Variable{name, {}}; }

std::vector<ValueRange> ranges_of(const std::vector<ast::Clause>& body, const std::string& v = "?v") {
  return value_ranges(v, comparison_filters(body));
}

bool passes(const std::vector<ValueRange>& ranges, const Value& v) {
  DatomFilter f;
  f.v_ranges = ranges;
  return f.in_v_ranges(v);
}

}  // namespace

TEST_CASE("Only a comparison of a variable with a number or an instant narrows") {
  const std::vector<ast::Clause> body{
      compare("<", var("?v"), Value::string("m")),                  // strings: not narrowed
      compare("=", var("?v"), Value::integer(3)),                   // equality: not a range
      compare("<", var("?v"), var("?w")),                           // two variables
      compare("<", var("?_"), Value::integer(3)),                   // a wildcard
  };
  CHECK(comparison_filters(body).empty());
  CHECK(ranges_of(body).empty());
  // A comparison bound to an output variable is not a filter.
  ast::Clause bound = compare("<", var("?v"), Value::integer(3));
  std::get<ast::ExprClause>(bound.node).out = var("?ok");
  CHECK(comparison_filters({bound}).empty());
  // NaN compares false with everything: it is left to the filter.
  CHECK(ranges_of({compare("<", var("?v"), Value::floating(std::nan("")))}).empty());
}

TEST_CASE("An integer bound: integers and floats on the right side of it, nothing else") {
  const auto r = ranges_of({compare("<", var("?v"), Value::integer(3))});
  REQUIRE(r.size() == 2);
  CHECK(r[0].low.kind() == ValueKind::Integer);
  CHECK(r[0].high == Value::integer(2));  // strict: 3 itself fails
  CHECK(r[1].low.kind() == ValueKind::Float);
  CHECK(passes(r, Value::integer(2)));
  CHECK_FALSE(passes(r, Value::integer(3)));
  CHECK(passes(r, Value::floating(2.999)));
  CHECK(passes(r, Value::floating(-1e300)));
  CHECK_FALSE(passes(r, Value::floating(3.5)));
  CHECK_FALSE(passes(r, Value::string("1")));
  CHECK_FALSE(passes(r, Value::instant(0)));
  CHECK_FALSE(passes(r, Value::boolean(true)));
}

TEST_CASE("The variable on either side, and bounds that intersect") {
  const auto r = ranges_of({compare("<=", Value::integer(1), var("?v")),   // 1 <= ?v
                            compare(">", Value::floating(4.5), var("?v"))});  // ?v < 4.5
  CHECK(passes(r, Value::integer(1)));
  CHECK(passes(r, Value::integer(4)));
  CHECK(passes(r, Value::floating(4.5)));  // a float bound is kept inclusive: the filter decides
  CHECK_FALSE(passes(r, Value::integer(0)));
  CHECK_FALSE(passes(r, Value::integer(6)));
  // Other variables are not bounded by them.
  CHECK(ranges_of({compare("<", var("?v"), Value::integer(3))}, "?w").empty());
}

TEST_CASE("Bounds near the limits of int64 and of exact doubles") {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  CHECK_FALSE(passes(ranges_of({compare(">", var("?v"), Value::integer(max))}), Value::integer(max)));
  CHECK(passes(ranges_of({compare(">=", var("?v"), Value::integer(max))}), Value::integer(max)));
  CHECK_FALSE(passes(ranges_of({compare("<", var("?v"), Value::integer(min))}), Value::integer(min)));
  // 2^53 + 1 is not a double: the float bound from it widens outward.
  const std::int64_t big = (std::int64_t{1} << 53) + 1;
  CHECK(passes(ranges_of({compare(">=", var("?v"), Value::integer(big))}), Value::floating(9007199254740992.0 + 2.0)));
  CHECK(passes(ranges_of({compare("<", var("?v"), Value::floating(1e19))}), Value::integer(max)));
  CHECK_FALSE(passes(ranges_of({compare(">", var("?v"), Value::floating(1e19))}), Value::integer(max)));
  CHECK(passes(ranges_of({compare(">", var("?v"), Value::floating(-1e19))}), Value::integer(min)));
}

TEST_CASE("Instants bound instants; a number and an instant bound nothing together") {
  const auto r = ranges_of({compare(">", var("?v"), Value::instant(1000))});
  CHECK(passes(r, Value::instant(1000)));  // instants stay inclusive: the filter decides
  CHECK(passes(r, Value::instant(5000)));
  CHECK_FALSE(passes(r, Value::instant(999)));
  CHECK_FALSE(passes(r, Value::integer(5000)));
  const auto none = ranges_of({compare(">", var("?v"), Value::instant(1000)),
                               compare(">", var("?v"), Value::integer(0))});
  REQUIRE(none.size() == 1);
  CHECK(none[0].high < none[0].low);
  CHECK_FALSE(passes(none, Value::integer(1)));
  CHECK_FALSE(passes(none, Value::instant(2000)));
}

TEST_CASE("Only a comparison with an integer constant is exact on integers") {
  CHECK(exact_on_integers(std::get<ast::ExprClause>(compare("<", var("?v"), Value::integer(3)).node), "?v"));
  CHECK(exact_on_integers(std::get<ast::ExprClause>(compare(">=", Value::integer(3), var("?v")).node), "?v"));
  CHECK_FALSE(exact_on_integers(std::get<ast::ExprClause>(compare("<", var("?v"), Value::floating(3.5)).node), "?v"));
  CHECK_FALSE(exact_on_integers(std::get<ast::ExprClause>(compare("<", var("?v"), Value::instant(3)).node), "?v"));
  CHECK_FALSE(exact_on_integers(std::get<ast::ExprClause>(compare("<", var("?v"), Value::integer(3)).node), "?w"));
  CHECK_FALSE(exact_on_integers(std::get<ast::ExprClause>(compare("=", var("?v"), Value::integer(3)).node), "?v"));
  // The claim itself: every integer in the ranges passes each integer comparison.
  const std::vector<ast::Clause> body{compare(">", var("?v"), Value::integer(-3)),
                                      compare("<=", var("?v"), Value::floating(7.5)),
                                      compare("<", var("?v"), Value::integer(5))};
  const auto r = ranges_of(body);
  for (std::int64_t i = -10; i <= 10; ++i) {
    if (passes(r, Value::integer(i))) CHECK((i > -3 && i < 5));
  }
}
