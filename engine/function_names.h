// engine/function_names.h: the names of the dialect's built-in expression functions and
// the special forms of :where.
//
// The parser needs them to refuse a function written as a rule call in :where —
// `(matches? ?v "x")` instead of `[(matches? ?v "x")]` (LANGUAGE.md header rule 3) — and to keep
// rule names from shadowing a form. The pure functions come from engine/functions/builtins.h
// (one list for the parser and the evaluator); matches? and the binding functions are added here
// because the evaluator implements them, not engine/functions.
#pragma once

#include <string_view>

namespace datalog {

// <, +, starts-with?, str, matches?, string?, get-else, missing?, ground, ...
bool is_builtin_function(std::string_view name);

// not, not-join, or, or-join, and: the clause forms of :where.
bool is_clause_form(std::string_view name);

// get-else, missing?, ground: functions that read the graph or produce bindings, so they stand
// alone in an expression clause and never nest inside another expression.
bool is_binding_function(std::string_view name);

}  // namespace datalog
