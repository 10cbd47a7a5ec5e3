// engine/eval/expression_eval.h: evaluating expression clauses for one row (LANGUAGE.md §8 and
// the header's get-else, missing?, ground).
//
// A filter clause `[(expr)]` produces one marker value when the row stays. A binding clause
// `[(expr) ?out]` produces the values ?out takes (usually one; get-else may give several: one per
// stored value). An evaluation error inside an expression (a type mismatch, a division by
// zero) drops the row, as in Minigraf; unknown functions and bad arity are query errors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/relation.h"
#include "engine/status.h"

namespace datalog::eval {

Status evaluate_clause_expression(EvalContext& ctx, const ast::ExprClause& clause,
                                  const Relation& rel, RowView row, std::vector<Value>* produced);

// The name of the host function (a SQL function, §16) that e calls, or nullopt when e calls a
// function of the engine. The evaluator resolves calls the same way.
std::optional<std::string> host_function_of(const ast::Expr& e);

// The variables an expression reads (nested calls included), each once, in order.
void expr_variables(const ast::Expr& e, std::vector<std::string>& out);

}  // namespace datalog::eval
