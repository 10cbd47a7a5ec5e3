// One-argument built-ins over any value: the type predicates (Minigraf's string? integer?
// float? boolean? nil?, and our keyword? ref? instant? uuid?), `not` and `identity`. None of
// them can fail.
#include <cassert>

#include "engine/functions/builtin_calls.h"

namespace datalog::functions::calls {

namespace {

CallResult kind_is(Args args, ValueKind kind) {
  assert(args.size() == 1);
  return CallResult::of(Value::boolean(args[0].is(kind)));
}

}  // namespace

CallResult is_string(Args args) { return kind_is(args, ValueKind::String); }
CallResult is_integer(Args args) { return kind_is(args, ValueKind::Integer); }
CallResult is_float(Args args) { return kind_is(args, ValueKind::Float); }
CallResult is_boolean(Args args) { return kind_is(args, ValueKind::Boolean); }
CallResult is_nil(Args args) { return kind_is(args, ValueKind::Nil); }
CallResult is_keyword(Args args) { return kind_is(args, ValueKind::Keyword); }
CallResult is_ref(Args args) { return kind_is(args, ValueKind::Ref); }
CallResult is_instant(Args args) { return kind_is(args, ValueKind::Instant); }
CallResult is_uuid(Args args) { return kind_is(args, ValueKind::Uuid); }

// Negates the dialect's truthiness (§8), not Clojure's: (not 0) is true here, because 0 is
// what a filter drops.
CallResult logical_not(Args args) {
  assert(args.size() == 1);
  return CallResult::of(Value::boolean(!truthy(args[0])));
}

CallResult identity(Args args) {
  assert(args.size() == 1);
  return CallResult::of(args[0]);
}

}  // namespace datalog::functions::calls
