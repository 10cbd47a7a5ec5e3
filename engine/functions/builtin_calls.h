// engine/functions/builtin_calls.h: the call functions behind the registry in builtins.cpp.
// Internal to engine/functions/; callers use find_builtin. Each function receives exactly the
// number of arguments its registry entry accepts (asserted), and reports a type mismatch or
// an arithmetic fault as CallResult::row_error().
#pragma once

#include <span>

#include "engine/functions/builtins.h"

namespace datalog::functions::calls {

using Args = std::span<const Value>;

// comparison_builtins.cpp
CallResult less(Args args);
CallResult greater(Args args);
CallResult less_equal(Args args);
CallResult greater_equal(Args args);
CallResult equal(Args args);
CallResult not_equal(Args args);
CallResult min(Args args);
CallResult max(Args args);

// arithmetic.cpp
CallResult add(Args args);
CallResult subtract(Args args);  // one argument: unary minus
CallResult multiply(Args args);
CallResult divide(Args args);
CallResult abs(Args args);
CallResult inc(Args args);
CallResult dec(Args args);
CallResult quot(Args args);
CallResult rem(Args args);
CallResult mod(Args args);

// text.cpp
CallResult starts_with(Args args);
CallResult ends_with(Args args);
CallResult contains(Args args);
CallResult str(Args args);
CallResult subs(Args args);
CallResult count(Args args);
CallResult upper_case(Args args);
CallResult lower_case(Args args);

// type_predicates.cpp
CallResult is_string(Args args);
CallResult is_integer(Args args);
CallResult is_float(Args args);
CallResult is_boolean(Args args);
CallResult is_nil(Args args);
CallResult is_keyword(Args args);
CallResult is_ref(Args args);
CallResult is_instant(Args args);
CallResult is_uuid(Args args);
CallResult logical_not(Args args);
CallResult identity(Args args);

}  // namespace datalog::functions::calls
