#include "engine/eval/value_ranges.h"

#include <cmath>
#include <limits>
#include <optional>

namespace datalog::eval {

namespace {

constexpr std::int64_t kMinInt = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
// Doubles at or beyond these are outside int64 (2^63), so they do not bound integers.
constexpr double kIntLimit = 9223372036854775808.0;

bool is_comparison(const std::string& op) {
  return op == "<" || op == ">" || op == "<=" || op == ">=";
}

bool bounds_kind(const Value& c) {
  return c.is(ValueKind::Integer) || (c.is(ValueKind::Float) && !std::isnan(c.as_float())) ||
         c.is(ValueKind::Instant);
}

// The variable and constant of a comparison filter, and whether the variable is bounded from
// above (?v < C, C > ?v) rather than from below.
struct Bound {
  const ast::Variable* var = nullptr;
  const Value* constant = nullptr;
  bool upper = false;
  bool strict = false;  // < or >: the constant itself fails
};

std::optional<Bound> bound_of(const ast::ExprClause& c) {
  if (c.out || !is_comparison(c.expr.op) || c.expr.args.size() != 2) return std::nullopt;
  const auto* left_var = std::get_if<ast::Variable>(&c.expr.args[0]);
  const auto* right_var = std::get_if<ast::Variable>(&c.expr.args[1]);
  const auto* left_value = std::get_if<Value>(&c.expr.args[0]);
  const auto* right_value = std::get_if<Value>(&c.expr.args[1]);
  const bool less = c.expr.op[0] == '<';
  const bool strict = c.expr.op.size() == 1;
  if (left_var && !left_var->is_wildcard() && right_value && bounds_kind(*right_value)) {
    return Bound{left_var, right_value, less, strict};
  }
  if (right_var && !right_var->is_wildcard() && left_value && bounds_kind(*left_value)) {
    return Bound{right_var, left_value, !less, strict};
  }
  return std::nullopt;
}

// Inclusive bounds per kind a filter can allow; a kind no filter allows is off.
struct Limits {
  bool numbers = true, instants = true;
  std::int64_t int_low = kMinInt, int_high = kMaxInt;
  bool ints = true;  // false once a float bound lies beyond every integer
  double float_low = -kInf, float_high = kInf;
  std::int64_t instant_low = kMinInt, instant_high = kMaxInt;

  void add_number(const Value& c, bool upper, bool strict) {
    instants = false;
    if (c.is(ValueKind::Integer)) {
      const std::int64_t i = c.as_integer();
      const double d = static_cast<double>(i);  // may round: widen outward by one step
      if (upper) {
        if (strict && i == kMinInt) ints = false;
        else int_high = std::min(int_high, strict ? i - 1 : i);
        float_high = std::min(float_high, std::nextafter(d, kInf));
      } else {
        if (strict && i == kMaxInt) ints = false;
        else int_low = std::max(int_low, strict ? i + 1 : i);
        float_low = std::max(float_low, std::nextafter(d, -kInf));
      }
      return;
    }
    const double x = c.as_float();
    if (upper) {
      float_high = std::min(float_high, x);
      if (x < -kIntLimit) ints = false;
      else if (x < kIntLimit) int_high = std::min(int_high, static_cast<std::int64_t>(std::ceil(x)));
    } else {
      float_low = std::max(float_low, x);
      if (x >= kIntLimit) ints = false;
      else if (x >= -kIntLimit) int_low = std::max(int_low, static_cast<std::int64_t>(std::floor(x)));
    }
  }
  void add_instant(const Value& c, bool upper) {
    numbers = false;
    if (upper) instant_high = std::min(instant_high, c.as_instant());
    else instant_low = std::max(instant_low, c.as_instant());
  }
};

}  // namespace

std::vector<const ast::ExprClause*> comparison_filters(const std::vector<ast::Clause>& body) {
  std::vector<const ast::ExprClause*> out;
  for (const auto& clause : body) {
    const auto* e = std::get_if<ast::ExprClause>(&clause.node);
    if (e && bound_of(*e)) out.push_back(e);
  }
  return out;
}

std::vector<ValueRange> value_ranges(const std::string& var,
                                     const std::vector<const ast::ExprClause*>& filters) {
  Limits limits;
  bool bounded = false;
  for (const ast::ExprClause* f : filters) {
    const std::optional<Bound> b = bound_of(*f);
    if (!b || b->var->name != var) continue;
    bounded = true;
    if (b->constant->is(ValueKind::Instant)) limits.add_instant(*b->constant, b->upper);
    else limits.add_number(*b->constant, b->upper, b->strict);
  }
  if (!bounded) return {};
  std::vector<ValueRange> out;  // in kind order: integer, float, instant
  if (limits.numbers && limits.ints && limits.int_low <= limits.int_high) {
    out.push_back({Value::integer(limits.int_low), Value::integer(limits.int_high)});
  }
  if (limits.numbers && limits.float_low <= limits.float_high) {
    out.push_back({Value::floating(limits.float_low), Value::floating(limits.float_high)});
  }
  if (limits.instants && limits.instant_low <= limits.instant_high) {
    out.push_back({Value::instant(limits.instant_low), Value::instant(limits.instant_high)});
  }
  if (out.empty()) out.push_back({Value::integer(1), Value::integer(0)});  // nothing passes
  return out;
}

bool exact_on_integers(const ast::ExprClause& filter, const std::string& var) {
  const std::optional<Bound> b = bound_of(filter);
  return b && b->var->name == var && b->constant->is(ValueKind::Integer);
}

}  // namespace datalog::eval
