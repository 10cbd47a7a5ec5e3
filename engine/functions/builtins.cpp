// The registry of built-in functions: name, arity and call, in one sorted table.
#include "engine/functions/builtins.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "engine/functions/builtin_calls.h"

namespace datalog::functions {

namespace {

constexpr Arity kOne{1, 1};
constexpr Arity kTwo{2, 2};

// Sorted by name (byte order) for binary search; a static_assert below keeps it sorted.
constexpr std::array kBuiltins = {
    Builtin{"!=", kTwo, calls::not_equal},
    Builtin{"*", kTwo, calls::multiply},
    Builtin{"+", kTwo, calls::add},
    Builtin{"-", Arity{1, 2}, calls::subtract},
    Builtin{"/", kTwo, calls::divide},
    Builtin{"<", kTwo, calls::less},
    Builtin{"<=", kTwo, calls::less_equal},
    Builtin{"=", kTwo, calls::equal},
    Builtin{">", kTwo, calls::greater},
    Builtin{">=", kTwo, calls::greater_equal},
    Builtin{"abs", kOne, calls::abs},
    Builtin{"boolean?", kOne, calls::is_boolean},
    Builtin{"contains?", kTwo, calls::contains},
    Builtin{"count", kOne, calls::count},
    Builtin{"dec", kOne, calls::dec},
    Builtin{"ends-with?", kTwo, calls::ends_with},
    Builtin{"float?", kOne, calls::is_float},
    Builtin{"identity", kOne, calls::identity},
    Builtin{"inc", kOne, calls::inc},
    Builtin{"instant?", kOne, calls::is_instant},
    Builtin{"integer?", kOne, calls::is_integer},
    Builtin{"keyword?", kOne, calls::is_keyword},
    Builtin{"lower-case", kOne, calls::lower_case},
    Builtin{"max", kTwo, calls::max},
    Builtin{"min", kTwo, calls::min},
    Builtin{"mod", kTwo, calls::mod},
    Builtin{"nil?", kOne, calls::is_nil},
    Builtin{"not", kOne, calls::logical_not},
    Builtin{"quot", kTwo, calls::quot},
    Builtin{"ref?", kOne, calls::is_ref},
    Builtin{"rem", kTwo, calls::rem},
    Builtin{"starts-with?", kTwo, calls::starts_with},
    Builtin{"str", Arity{0, Arity::kVariadic}, calls::str},
    Builtin{"string?", kOne, calls::is_string},
    Builtin{"subs", Arity{2, 3}, calls::subs},
    Builtin{"upper-case", kOne, calls::upper_case},
    Builtin{"uuid?", kOne, calls::is_uuid},
};

constexpr bool sorted_by_name() {
  for (std::size_t i = 1; i < kBuiltins.size(); ++i) {
    if (!(kBuiltins[i - 1].name < kBuiltins[i].name)) return false;
  }
  return true;
}
static_assert(sorted_by_name(), "kBuiltins must stay sorted by name for find_builtin");

std::string_view plural(std::size_t n) { return n == 1 ? "argument" : "arguments"; }

}  // namespace

const Builtin* find_builtin(std::string_view op) {
  const auto it =
      std::lower_bound(kBuiltins.begin(), kBuiltins.end(), op,
                       [](const Builtin& b, std::string_view name) { return b.name < name; });
  if (it == kBuiltins.end() || it->name != op) return nullptr;
  return &*it;
}

Status check_builtin_arity(std::string_view op, std::size_t n) {
  const Builtin* b = find_builtin(op);
  if (b == nullptr) {
    return Status(StatusCode::InvalidArgument, fmt::format("unknown expression operator: {}", op));
  }
  if (b->arity.accepts(n)) return Status::OK();
  const Arity a = b->arity;
  std::string message;
  if (a.min == a.max) {
    message = fmt::format("{} takes exactly {} {}", op, a.min, plural(a.min));
  } else if (a.max == Arity::kVariadic) {
    message = fmt::format("{} takes at least {} {}", op, a.min, plural(a.min));
  } else if (a.max == a.min + 1) {
    message = fmt::format("{} takes {} or {} arguments", op, a.min, a.max);
  } else {
    message = fmt::format("{} takes {} to {} arguments", op, a.min, a.max);
  }
  return Status(StatusCode::InvalidArgument, std::move(message));
}

bool truthy(const Value& v) {
  switch (v.kind()) {
    case ValueKind::Boolean:
      return v.as_boolean();
    case ValueKind::Integer:
      return v.as_integer() != 0;
    case ValueKind::Float:
      return v.as_float() != 0.0;  // -0.0 == 0.0: falsy, as Minigraf
    default:
      return false;
  }
}

}  // namespace datalog::functions
