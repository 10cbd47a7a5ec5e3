// Comparison built-ins: < > <= >= (ordering, may be a row error), = != (structural, never an
// error), and the two-argument min/max extension.
#include <cassert>
#include <compare>

#include "engine/functions/builtin_calls.h"
#include "engine/functions/value_order.h"

namespace datalog::functions::calls {

namespace {

// Applies `test` to the ordering of the two arguments. Incomparable kinds are a row error;
// an unordered pair (NaN) makes every ordering predicate false, as in Minigraf.
template <typename Test>
CallResult ordering_predicate(Args args, Test test) {
  assert(args.size() == 2);
  const std::optional<std::partial_ordering> o = compare_for_predicate(args[0], args[1]);
  if (!o) return CallResult::row_error();
  if (*o == std::partial_ordering::unordered) return CallResult::of(Value::boolean(false));
  return CallResult::of(Value::boolean(test(*o)));
}

// min/max: both arguments of one comparable pair (as `<`); ties and NaN keep the first.
CallResult pick(Args args, bool want_smaller) {
  assert(args.size() == 2);
  const std::optional<std::partial_ordering> o = compare_for_predicate(args[0], args[1]);
  if (!o) return CallResult::row_error();
  const bool second_wins =
      want_smaller ? *o == std::partial_ordering::greater : *o == std::partial_ordering::less;
  return CallResult::of(second_wins ? args[1] : args[0]);
}

}  // namespace

CallResult less(Args args) {
  return ordering_predicate(args, [](std::partial_ordering o) { return o < 0; });
}
CallResult greater(Args args) {
  return ordering_predicate(args, [](std::partial_ordering o) { return o > 0; });
}
CallResult less_equal(Args args) {
  return ordering_predicate(args, [](std::partial_ordering o) { return o <= 0; });
}
CallResult greater_equal(Args args) {
  return ordering_predicate(args, [](std::partial_ordering o) { return o >= 0; });
}

// Structural: kinds must match (1 != 1.0), then values (value.h's total order).
CallResult equal(Args args) {
  assert(args.size() == 2);
  return CallResult::of(Value::boolean(args[0] == args[1]));
}
CallResult not_equal(Args args) {
  assert(args.size() == 2);
  return CallResult::of(Value::boolean(!(args[0] == args[1])));
}

CallResult min(Args args) { return pick(args, /*want_smaller=*/true); }
CallResult max(Args args) { return pick(args, /*want_smaller=*/false); }

}  // namespace datalog::functions::calls
