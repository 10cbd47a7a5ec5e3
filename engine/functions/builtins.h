// engine/functions/builtins.h: the built-in functions of expression clauses (LANGUAGE.md §8).
//
// engine/functions/ holds the functions of the dialect as pure functions over Values: the
// built-ins called from `[(op ...)]` clauses (this header), the aggregates of `:find`
// (aggregates.h) and the window functions of `:over` (window.h). It knows nothing of SQLite,
// LMDB or the evaluator; the evaluator looks functions up here and calls them.
//
// Contract of a built-in call:
//   - The caller checks the arity first (check_builtin_arity, at parse or plan time); `call`
//     asserts it.
//   - A call never fails the query. A type mismatch, a division by zero, a NaN result, an
//     index out of range are *row errors*: CallResult::value is empty and the evaluator drops
//     the row (§8, "Expression errors silently drop rows").
//   - Filters keep a row iff truthy(result).
//
// Minigraf's functions, with Minigraf's semantics:
//   < > <= >=   numbers (exact integer/float comparison), strings (byte order); any other
//               pair is a row error; NaN compares false. Extension: instant with instant.
//   = !=        structural, never an error: 1 = 1.0 is false, :bob is not the entity :bob.
//   + - * /     int op int -> int, wrapping; `/` truncates toward zero; any float -> float;
//               division by zero or a NaN result is a row error; non-numbers a row error.
//   starts-with? ends-with? contains?   two strings, case-sensitive; else a row error.
//   string? integer? float? boolean? nil?   one argument; return a Boolean.
// Our extensions (what Datomic/Clojure users reach for; Clojure's semantics unless noted):
//   (- x)       unary minus (wrapping for integers).
//   str         any number of arguments; concatenates printed forms: strings unquoted, nil
//               prints nothing, floats always show a '.', instants as ISO 8601, uuids bare,
//               refs as their integer id, keywords with their ':'.
//   subs        (subs s start) / (subs s start end), indices in Unicode code points.
//   count       length of a string in code points (of bytes: in bytes).
//   upper-case lower-case   ASCII letters only; other bytes are kept.
//   abs inc dec quot rem mod   integers stay integers (wrapping), floats stay floats;
//               quot truncates, rem has the dividend's sign, mod the divisor's sign.
//   min max     two arguments of one comparable kind (as `<`); returns the smaller/larger.
//   keyword? ref? instant? uuid?   type predicates.
//   not         Boolean negation of truthiness. identity returns its argument.
// Not here: `matches?` and other regex functions (RE2, later); get-else/missing?/ground,
// which need the evaluator or the store.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <span>
#include <string_view>

#include "engine/status.h"
#include "engine/value.h"

namespace datalog::functions {

struct CallResult {
  std::optional<Value> value;  // empty = row error: the row is dropped (§8)
  std::string error;           // not empty: the query fails with this message (integer overflow)

  static CallResult of(Value v) { return CallResult{std::move(v), {}}; }
  static CallResult row_error() { return CallResult{}; }
  static CallResult query_error(std::string message) { return CallResult{std::nullopt, std::move(message)}; }
  bool ok() const { return value.has_value(); }
  bool failed() const { return !error.empty(); }
};

// Accepted argument counts, min..max inclusive; max == kVariadic for no upper bound.
struct Arity {
  static constexpr std::size_t kVariadic = static_cast<std::size_t>(-1);
  std::size_t min = 0;
  std::size_t max = 0;
  bool accepts(std::size_t n) const { return n >= min && n <= max; }
};

struct Builtin {
  std::string_view name;
  Arity arity;
  CallResult (*call)(std::span<const Value> args);
};

// The built-in named `op`, or nullptr.
const Builtin* find_builtin(std::string_view op);

// OK when `op` is a built-in taking `n` arguments. Otherwise Minigraf's messages:
// "X takes exactly 1 argument", "X takes exactly 2 arguments" (and for our variable-arity
// extensions "X takes 1 or 2 arguments", "X takes at least 1 argument"), or
// "unknown expression operator: X". The caller resolves user-defined (SQL) functions before
// asking, so an unknown name here is final.
Status check_builtin_arity(std::string_view op, std::size_t n);

// Truthiness of a filter's result (§8): true, a non-zero integer, a non-zero float.
// Everything else (false, 0, 0.0, -0.0, strings, keywords, refs, nil, ...) is falsy.
bool truthy(const Value& v);

}  // namespace datalog::functions
